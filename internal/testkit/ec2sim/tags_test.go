package ec2sim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestDescribeSubnetsTagFilters(t *testing.T) {
	sim := New()
	sim.AddSubnets(
		snapshot.Subnet{ID: "subnet-a", VpcID: "vpc-1", Zone: "us-west-2a", Tags: map[string]string{"role": "pod", "team": "ml"}},
		snapshot.Subnet{ID: "subnet-b", VpcID: "vpc-1", Zone: "us-west-2b", Tags: map[string]string{"role": "pod"}},
		snapshot.Subnet{ID: "subnet-c", VpcID: "vpc-1", Zone: "us-west-2a", Tags: map[string]string{"role": "node", "team": "web"}},
		snapshot.Subnet{ID: "subnet-d", VpcID: "vpc-1", Zone: "us-west-2c"},
	)
	client := NewClient(sim.Start(t), "us-west-2")
	filter := func(name string, values ...string) types.Filter {
		return types.Filter{Name: aws.String(name), Values: values}
	}
	tests := []struct {
		name    string
		filters []types.Filter
		want    []string
	}{
		{name: "tag value", filters: []types.Filter{filter("tag:role", "pod")}, want: []string{"subnet-a", "subnet-b"}},
		{name: "tag values are ORed", filters: []types.Filter{filter("tag:role", "node", "pod")},
			want: []string{"subnet-a", "subnet-b", "subnet-c"}},
		{name: "tag key", filters: []types.Filter{filter("tag-key", "team")}, want: []string{"subnet-a", "subnet-c"}},
		{name: "filters are ANDed", filters: []types.Filter{filter("tag:role", "pod"), filter("tag-key", "team")},
			want: []string{"subnet-a"}},
		{name: "two tag-key filters are ANDed", filters: []types.Filter{filter("tag-key", "team"), filter("tag-key", "role")},
			want: []string{"subnet-a", "subnet-c"}},
		{name: "tag key and zone", filters: []types.Filter{filter("tag-key", "role"), filter("availability-zone", "us-west-2b")},
			want: []string{"subnet-b"}},
		{name: "no match", filters: []types.Filter{filter("tag:role", "none")}},
		{name: "absent key", filters: []types.Filter{filter("tag-key", "owner")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := client.DescribeSubnets(t.Context(), &ec2.DescribeSubnetsInput{Filters: tt.filters})
			if err != nil {
				t.Fatalf("DescribeSubnets: %v", err)
			}
			var got []string
			for _, s := range out.Subnets {
				got = append(got, aws.ToString(s.SubnetId))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("subnets (-want +got):\n%s", diff)
			}
		})
	}
}
