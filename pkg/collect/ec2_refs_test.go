package collect

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestEC2NodesWithInstancesAndRegion(t *testing.T) {
	nodes := []corev1.Node{
		ec2Node("b", "us-east-1a", ec2InstanceID(2), "m5.large"),
		ec2Node("a", "us-west-2b", ec2InstanceID(1), "m5.large"),
		ec2Node("c", "us-west-2-lax-1a", ec2InstanceID(1), "m5.large"),
		{Spec: corev1.NodeSpec{ProviderID: "kind://docker/kind/kind-control-plane"}},
		{Spec: corev1.NodeSpec{ProviderID: "aws:///us-west-2a/not-an-instance"}},
		{},
		// An instance ID diagnosis refuses (snapshot.ParseProviderID) is still described.
		{Spec: corev1.NodeSpec{ProviderID: "aws:///us-west-2a/i-0123ABCD"}},
	}
	var has []bool
	for _, n := range nodes {
		has = append(has, ec2HasInstance(n))
	}
	if diff := cmp.Diff([]bool{true, true, true, false, false, false, true}, has); diff != "" {
		t.Errorf("nodes with an instance (-want +got):\n%s", diff)
	}
	if got, want := ec2RegionOfNodes(nodes), "us-west-2"; got != want {
		t.Errorf("got Region %q, want %q", got, want)
	}
}

func TestCollectEC2PlacementAndTypeFallbacks(t *testing.T) {
	sim := ec2sim.New()
	sim.AddPlacementGroups(
		snapshot.PlacementGroup{ID: "pg-1", Name: "train", Strategy: "cluster"},
		snapshot.PlacementGroup{ID: "pg-2", Name: "spread", Strategy: "spread", SpreadLevel: "rack"},
	)
	sim.AddInstanceTypes(snapshot.InstanceType{Name: "m5.large", MaxENIs: 3, IPv4PerENI: 10})
	s := snapshot.New(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	s.Nodes = []corev1.Node{
		ec2Node("known", "us-west-2a", ec2InstanceID(1), "m5.large"),
		ec2Node("future", "us-west-2a", ec2InstanceID(2), "zz9.huge"),
		ec2Node("odd", "us-west-2a", ec2InstanceID(3), "not a type"),
	}
	s.NodeClasses = []snapshot.EC2NodeClass{
		{Name: "by-id", PlacementGroupSelector: &snapshot.PlacementGroupSelector{ID: "pg-2"}},
		{Name: "by-missing-id", PlacementGroupSelector: &snapshot.PlacementGroupSelector{ID: "pg-9"}},
		{Name: "by-name", PlacementGroupSelector: &snapshot.PlacementGroupSelector{Name: "train"}},
		{Name: "by-missing-name", PlacementGroupSelector: &snapshot.PlacementGroupSelector{Name: "gone"}},
	}

	(&Collector{EC2: ec2sim.NewClient(sim.Start(t), "us-west-2")}).collectEC2(t.Context(), s)

	if len(s.Gaps) != 0 {
		t.Errorf("got gaps %+v, want none", s.Gaps)
	}
	if diff := cmp.Diff([]string{"pg-1", "pg-2"},
		ec2IDs(s.PlacementGroups, func(g snapshot.PlacementGroup) string { return g.ID })); diff != "" {
		t.Errorf("placement groups (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"m5.large"},
		ec2IDs(s.InstanceTypes, func(v snapshot.InstanceType) string { return v.Name })); diff != "" {
		t.Errorf("instance types (-want +got):\n%s", diff)
	}
	var typeCalls [][]string
	for _, r := range sim.Requests() {
		if r.Action == ec2sim.DescribeInstanceTypes {
			typeCalls = append(typeCalls, r.Lists["InstanceType"])
		}
	}
	if diff := cmp.Diff([][]string{{"m5.large", "zz9.huge"}, {"m5.large"}}, typeCalls); diff != "" {
		t.Errorf("DescribeInstanceTypes calls (-want +got):\n%s", diff)
	}
}

func TestCollectEC2WithoutClient(t *testing.T) {
	configured := &snapshot.Gap{Source: snapshot.SourceEC2, Reason: "profile not found", Remedy: "pass --profile"}
	tests := []struct {
		name string
		gap  *snapshot.Gap
		want snapshot.Gap
	}{
		{"the loader's gap", configured, *configured},
		{"a default gap", nil, snapshot.Gap{Source: snapshot.SourceEC2, Reason: "no AWS configuration was loaded",
			Remedy: "configure AWS access (--profile, --region, AWS_PROFILE, `aws sso login`)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := snapshot.New(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
			(&Collector{EC2Gap: tt.gap}).collectEC2(t.Context(), s)
			if diff := cmp.Diff([]snapshot.Gap{tt.want}, s.Gaps); diff != "" {
				t.Errorf("gaps (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCollectEC2NothingToRead(t *testing.T) {
	sim := ec2sim.New()
	s := snapshot.New(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	s.Nodes = []corev1.Node{{Spec: corev1.NodeSpec{ProviderID: "kind://docker/kind/kind-control-plane"}}}
	(&Collector{EC2: ec2sim.NewClient(sim.Start(t), "")}).collectEC2(t.Context(), s)
	if len(s.Gaps) != 0 || sim.Total() != 0 {
		t.Errorf("got gaps %+v and %d requests, want none", s.Gaps, sim.Total())
	}
}
