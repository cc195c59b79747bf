package collect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestCollectEC2Batches(t *testing.T) {
	tests := []struct {
		nodes     int
		wantBatch []int
	}{
		{1, []int{1}},
		{200, []int{200}},
		{450, []int{50, 200, 200}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d nodes", tt.nodes), func(t *testing.T) {
			w := newEC2World(t, tt.nodes)
			(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)

			if len(w.snap.Gaps) != 0 {
				t.Fatalf("got gaps %+v, want none", w.snap.Gaps)
			}
			if got := len(w.snap.Instances); got != tt.nodes {
				t.Errorf("got %d instances, want %d", got, tt.nodes)
			}
			var batches []int
			for _, r := range w.sim.Requests() {
				if r.Action == ec2sim.DescribeInstances {
					batches = append(batches, len(r.Filters["instance-id"]))
				}
			}
			slices.Sort(batches)
			if diff := cmp.Diff(tt.wantBatch, batches); diff != "" {
				t.Errorf("DescribeInstances batch sizes (-want +got):\n%s", diff)
			}
			// ceil(nodes/200) DescribeInstances, one call for each other kind, one of each
			// network kind and one for the available interfaces of the one VPC, its DescribeVpcs
			// and its two DNS attributes (no DHCP options set: none read); no cluster name, so no
			// search by cluster tag; nothing carves prefixes, so no subnet is read for its
			// addresses.
			if got, limit := w.sim.Total(), (tt.nodes+199)/200+4+4+1+3; got > limit {
				t.Errorf("got %d requests, want at most %d", got, limit)
			}
			for _, action := range []string{ec2sim.DescribeSubnets, ec2sim.DescribeSecurityGroups,
				ec2sim.DescribePlacementGroups, ec2sim.DescribeInstanceTypes, ec2sim.DescribeRouteTables,
				ec2sim.DescribeNatGateways, ec2sim.DescribeVpcEndpoints, ec2sim.DescribeNetworkAcls,
				ec2sim.DescribeNetworkInterfaces} {
				if got := w.sim.Count(action); got != 1 {
					t.Errorf("got %d %s requests, want 1", got, action)
				}
			}
			wantSubnets := []string{"subnet-a", "subnet-b", "subnet-pods"}
			if tt.nodes == 1 {
				wantSubnets = []string{"subnet-a", "subnet-pods"}
			}
			if diff := cmp.Diff(wantSubnets, ec2IDs(w.snap.Subnets, func(s snapshot.Subnet) string { return s.ID })); diff != "" {
				t.Errorf("subnets (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"sg-cluster", "sg-nodes", "sg-pods"},
				ec2IDs(w.snap.SecurityGroups, func(s snapshot.SecurityGroup) string { return s.ID })); diff != "" {
				t.Errorf("security groups (-want +got):\n%s", diff)
			}
			if len(w.snap.PlacementGroups) != 1 || w.snap.PlacementGroups[0].Strategy != "cluster" {
				t.Errorf("got placement groups %+v, want train (cluster)", w.snap.PlacementGroups)
			}
		})
	}
}

func ec2IDs[T any](items []T, key func(T) string) []string {
	out := make([]string, len(items))
	for i, v := range items {
		out[i] = key(v)
	}
	return out
}

func TestCollectEC2Sources(t *testing.T) {
	tests := []struct {
		name string
		// setup changes the world before collection; client options may be added.
		setup         func(*ec2World) []func(*ec2.Options)
		region        string
		wantGaps      []snapshot.Gap
		wantInstances int
		wantRegion    string
		// wantSubnets is how many subnets are read when instances are not (ENIConfig subnets).
		wantSubnets int
	}{
		{
			name: "unknown instance is simply absent",
			setup: func(w *ec2World) []func(*ec2.Options) {
				w.snap.Nodes = append(w.snap.Nodes, ec2Node("gone", "us-west-2a", ec2InstanceID(999), "m5.large"))
				return nil
			},
			region: "us-west-2", wantInstances: 5, wantRegion: "us-west-2",
		},
		{
			name: "pages are followed",
			setup: func(w *ec2World) []func(*ec2.Options) {
				w.sim.SetPageSize(2)
				return nil
			},
			region: "us-west-2", wantInstances: 5, wantRegion: "us-west-2",
		},
		{
			name: "throttling is retried",
			setup: func(w *ec2World) []func(*ec2.Options) {
				w.sim.Fail(ec2sim.DescribeInstances, "RequestLimitExceeded", 2)
				w.sim.Fail(ec2sim.DescribeSubnets, "RequestLimitExceeded", 1)
				return nil
			},
			region: "us-west-2", wantInstances: 5, wantRegion: "us-west-2",
		},
		{
			name: "throttling that outlasts the retries is a gap",
			setup: func(w *ec2World) []func(*ec2.Options) {
				w.sim.Fail(ec2sim.DescribeInstanceTypes, "RequestLimitExceeded", 0)
				return nil
			},
			region: "us-west-2", wantInstances: 5, wantRegion: "us-west-2",
			wantGaps: []snapshot.Gap{{Source: snapshot.SourceDescribeInstanceTypes,
				Reason: "RequestLimitExceeded: Request limit exceeded.",
				Remedy: "retry in a minute: EC2 is throttling this account's Describe calls, which Karpenter shares"}},
		},
		{
			name: "denied subnets are a gap and the rest is read",
			setup: func(w *ec2World) []func(*ec2.Options) {
				w.sim.Fail(ec2sim.DescribeSubnets, "UnauthorizedOperation", 0)
				return nil
			},
			region: "us-west-2", wantInstances: 5, wantRegion: "us-west-2",
			wantGaps: []snapshot.Gap{{Source: snapshot.SourceDescribeSubnets,
				Reason: "UnauthorizedOperation: You are not authorized to perform this operation. User: " +
					"arn:aws:iam::123456789012:user/karpnet is not authorized to perform: ec2:DescribeSubnets " +
					"because no identity-based policy allows the ec2:DescribeSubnets action",
				Remedy: "allow ec2:DescribeSubnets to the caller"}},
		},
		{
			name: "denied instances are a gap and the rest is read",
			setup: func(w *ec2World) []func(*ec2.Options) {
				w.sim.Fail(ec2sim.DescribeInstances, "UnauthorizedOperation", 0)
				return nil
			},
			region: "us-west-2", wantRegion: "us-west-2", wantSubnets: 1,
			wantGaps: []snapshot.Gap{{Source: snapshot.SourceDescribeInstances,
				Reason: "UnauthorizedOperation: You are not authorized to perform this operation. User: " +
					"arn:aws:iam::123456789012:user/karpnet is not authorized to perform: ec2:DescribeInstances " +
					"because no identity-based policy allows the ec2:DescribeInstances action",
				Remedy: "allow ec2:DescribeInstances to the caller"}},
		},
		{
			name: "missing credentials are one gap",
			setup: func(w *ec2World) []func(*ec2.Options) {
				return []func(*ec2.Options){func(o *ec2.Options) {
					o.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
						return aws.Credentials{}, errors.New("no credentials in the chain")
					})
				}}
			},
			region: "us-west-2", wantRegion: "us-west-2",
			wantGaps: []snapshot.Gap{{Source: snapshot.SourceEC2,
				Reason: "no AWS credentials: no credentials in the chain",
				Remedy: ec2CredentialsRemedy}},
		},
		{
			name: "rejected credentials are one gap",
			setup: func(w *ec2World) []func(*ec2.Options) {
				for _, a := range []string{ec2sim.DescribeInstances, ec2sim.DescribeSubnets, ec2sim.DescribeSecurityGroups} {
					w.sim.Fail(a, "AuthFailure", 0)
				}
				return nil
			},
			region: "us-west-2", wantRegion: "us-west-2",
			wantGaps: []snapshot.Gap{{Source: snapshot.SourceEC2,
				Reason: "AuthFailure: AWS was not able to validate the provided access credentials",
				Remedy: "refresh or fix the AWS credentials (`aws sso login`, AWS_PROFILE or --profile)"}},
		},
		{
			name:   "Region comes from the providerIDs",
			setup:  func(w *ec2World) []func(*ec2.Options) { return nil },
			region: "", wantInstances: 5, wantRegion: "us-west-2",
		},
		{
			name: "no Region at all",
			setup: func(w *ec2World) []func(*ec2.Options) {
				for i := range w.snap.Nodes {
					w.snap.Nodes[i].Spec.ProviderID = ""
				}
				return nil
			},
			region: "",
			wantGaps: []snapshot.Gap{{Source: snapshot.SourceEC2,
				Reason: "no AWS Region: none is configured and no node has an aws:///ZONE/ providerID",
				Remedy: "pass --region or set AWS_REGION"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newEC2World(t, 5)
			opts := tt.setup(w)
			(&Collector{EC2: ec2sim.NewClient(w.url, tt.region, opts...)}).collectEC2(t.Context(), w.snap)

			if diff := cmp.Diff(tt.wantGaps, w.snap.Gaps); diff != "" {
				t.Errorf("gaps (-want +got):\n%s", diff)
			}
			if got := len(w.snap.Instances); got != tt.wantInstances {
				t.Errorf("got %d instances, want %d", got, tt.wantInstances)
			}
			if tt.wantInstances == 0 && len(w.snap.Subnets) != tt.wantSubnets {
				t.Errorf("got %d subnets, want %d", len(w.snap.Subnets), tt.wantSubnets)
			}
			if w.snap.Region != tt.wantRegion {
				t.Errorf("got Region %q, want %q", w.snap.Region, tt.wantRegion)
			}
			for _, r := range w.sim.Requests() {
				if r.Region != tt.wantRegion {
					t.Errorf("got a %s request signed for %q, want %q", r.Action, r.Region, tt.wantRegion)
				}
			}
		})
	}
}
