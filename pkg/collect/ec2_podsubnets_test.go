package collect

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// autoClass returns an Auto Mode NodeClass with pod subnet terms.
func autoClass(name string, terms ...snapshot.SelectorTerm) snapshot.EC2NodeClass {
	return snapshot.EC2NodeClass{Name: name, Group: snapshot.AutoModeGroup, Kind: snapshot.KindNodeClass,
		PodSubnetSelectorTerms: terms}
}

func TestCollectEC2PodSubnets(t *testing.T) {
	role := map[string]string{"kubernetes.io/role/pod": "1"}
	anyTeam := map[string]string{"team": "*", "kubernetes.io/role/pod": "1"}
	tests := []struct {
		name    string
		classes []snapshot.EC2NodeClass
		fail    bool
		// wantCalls are the DescribeSubnets calls: one by ID plus one per distinct tag term.
		wantCalls   int
		wantSubnets []string
		wantTags    []map[string][]string
		wantGaps    []string
	}{
		{
			name:      "no Auto Mode NodeClass makes no extra call",
			classes:   []snapshot.EC2NodeClass{{Name: "default", PodSubnetSelectorTerms: []snapshot.SelectorTerm{{Tags: role}}}},
			wantCalls: 1, wantSubnets: []string{"subnet-a", "subnet-pods"},
		},
		{
			name:      "Auto Mode NodeClass without pod subnets makes no extra call",
			classes:   []snapshot.EC2NodeClass{autoClass("auto")},
			wantCalls: 1, wantSubnets: []string{"subnet-a", "subnet-pods"},
		},
		{
			name:      "id terms join the batch by ID",
			classes:   []snapshot.EC2NodeClass{autoClass("auto", snapshot.SelectorTerm{ID: "subnet-tagged-b"})},
			wantCalls: 1, wantSubnets: []string{"subnet-a", "subnet-pods", "subnet-tagged-b"},
		},
		{
			name: "one call per distinct tag term, results sorted and unique",
			classes: []snapshot.EC2NodeClass{
				autoClass("one", snapshot.SelectorTerm{Tags: role}, snapshot.SelectorTerm{Tags: anyTeam}),
				autoClass("two", snapshot.SelectorTerm{Tags: map[string]string{"kubernetes.io/role/pod": "1"}}),
			},
			wantCalls:   3,
			wantSubnets: []string{"subnet-a", "subnet-pods", "subnet-tagged-a", "subnet-tagged-b"},
			wantTags: []map[string][]string{
				{"tag:kubernetes.io/role/pod": {"1"}},
				{"tag:kubernetes.io/role/pod": {"1"}, "tag-key": {"team"}},
			},
		},
		{
			name:        "a tag term that matches nothing adds nothing",
			classes:     []snapshot.EC2NodeClass{autoClass("auto", snapshot.SelectorTerm{Tags: map[string]string{"nobody": "*"}})},
			wantCalls:   2,
			wantSubnets: []string{"subnet-a", "subnet-pods"},
			wantTags:    []map[string][]string{{"tag-key": {"nobody"}}},
		},
		{
			name:      "denied subnet calls are one DescribeSubnets gap",
			classes:   []snapshot.EC2NodeClass{autoClass("auto", snapshot.SelectorTerm{Tags: role})},
			fail:      true,
			wantCalls: 2, wantGaps: []string{snapshot.SourceDescribeSubnets},
			wantTags: []map[string][]string{{"tag:kubernetes.io/role/pod": {"1"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newEC2World(t, 1)
			w.sim.AddSubnets(
				snapshot.Subnet{ID: "subnet-tagged-a", VpcID: "vpc-1", Zone: "us-west-2a",
					Tags: map[string]string{"kubernetes.io/role/pod": "1", "team": "ml"}},
				snapshot.Subnet{ID: "subnet-tagged-b", VpcID: "vpc-1", Zone: "us-west-2b",
					Tags: map[string]string{"kubernetes.io/role/pod": "1"}},
				snapshot.Subnet{ID: "subnet-other", VpcID: "vpc-1", Zone: "us-west-2b",
					Tags: map[string]string{"team": "web"}},
			)
			if tt.fail {
				w.sim.Fail(ec2sim.DescribeSubnets, "UnauthorizedOperation", 0)
			}
			w.snap.NodeClasses = tt.classes
			(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)

			var gaps []string
			for _, g := range w.snap.Gaps {
				gaps = append(gaps, g.Source)
			}
			if diff := cmp.Diff(tt.wantGaps, gaps); diff != "" {
				t.Errorf("gap sources (-want +got):\n%s", diff)
			}
			if got := w.sim.Count(ec2sim.DescribeSubnets); got != tt.wantCalls {
				t.Errorf("got %d DescribeSubnets calls, want %d", got, tt.wantCalls)
			}
			if diff := cmp.Diff(tt.wantSubnets, ec2IDs(w.snap.Subnets, func(s snapshot.Subnet) string { return s.ID }),
				cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("subnets (-want +got):\n%s", diff)
			}
			var tagged []map[string][]string
			for _, r := range w.sim.Requests() {
				if r.Action == ec2sim.DescribeSubnets && r.Filters["subnet-id"] == nil {
					tagged = append(tagged, r.Filters)
				}
			}
			sortFilters := cmpopts.SortSlices(func(a, b map[string][]string) bool { return len(a) < len(b) })
			if diff := cmp.Diff(tt.wantTags, tagged, sortFilters, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("tag-term requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEC2TagFilters(t *testing.T) {
	got := ec2TagFilters(map[string]string{"b": "*", "a": "1", "c": "*"})
	want := []types.Filter{
		{Name: aws.String("tag:a"), Values: []string{"1"}},
		{Name: aws.String("tag-key"), Values: []string{"b"}},
		{Name: aws.String("tag-key"), Values: []string{"c"}},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(types.Filter{})); diff != "" {
		t.Errorf("filters (-want +got):\n%s", diff)
	}
}

// TestCollectEC2DiscoveredSubnets reads the subnets tagged kubernetes.io/role/cni=1 with one
// more DescribeSubnets only when aws-node's subnet discovery is on.
func TestCollectEC2DiscoveredSubnets(t *testing.T) {
	for _, tc := range []struct {
		name     string
		awsNode  *snapshot.AWSNode
		wantCall bool
	}{
		{"no aws-node", nil, false},
		{"VPC CNI 1.23 by default", &snapshot.AWSNode{Image: "amazon-k8s-cni:v1.23.1"}, true},
		{"VPC CNI 1.17 has no subnet discovery", &snapshot.AWSNode{Image: "amazon-k8s-cni:v1.17.1"}, false},
		{"turned off", &snapshot.AWSNode{Image: "amazon-k8s-cni:v1.23.1", Env: map[string]string{"ENABLE_SUBNET_DISCOVERY": "false"}}, false},
		{"custom networking takes over", &snapshot.AWSNode{Image: "amazon-k8s-cni:v1.23.1",
			Env: map[string]string{"AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG": "true"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newEC2World(t, 1)
			w.sim.AddSubnets(snapshot.Subnet{ID: "subnet-cni", VpcID: "vpc-1", CIDR: "100.64.0.0/16", Zone: "us-west-2a",
				Tags: map[string]string{"kubernetes.io/role/cni": "1"}})
			w.snap.AWSNode = tc.awsNode
			(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
			var tagged int
			for _, r := range w.sim.Requests() {
				if r.Action == ec2sim.DescribeSubnets && len(r.Filters["tag:kubernetes.io/role/cni"]) == 1 {
					tagged++
				}
			}
			read := slices.ContainsFunc(w.snap.Subnets, func(s snapshot.Subnet) bool { return s.ID == "subnet-cni" })
			if (tagged == 1) != tc.wantCall || read != tc.wantCall || tagged > 1 {
				t.Errorf("got %d tag-filtered DescribeSubnets, subnet read %v; want a call and the subnet: %v", tagged, read, tc.wantCall)
			}
		})
	}
}
