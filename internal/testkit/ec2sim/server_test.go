package ec2sim

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func testInstance(n int) snapshot.Instance {
	return snapshot.Instance{
		ID: fmt.Sprintf("i-%017x", n), Type: "m5.large", State: "running", Zone: "us-west-2a", ZoneID: "usw2-az1",
		SubnetID: "subnet-1", VpcID: "vpc-1", PrivateIP: "10.0.0.10",
		SecurityGroups: []snapshot.GroupRef{{ID: "sg-1", Name: "nodes"}},
		Placement:      snapshot.Placement{GroupName: "train", GroupID: "pg-1", PartitionNumber: 2},
		LaunchTime:     time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC),
		Tags:           map[string]string{"Name": "node"},
		ENIs: []snapshot.ENI{{
			ID: "eni-1", InterfaceType: "efa", NetworkCardIndex: 1, DeviceIndex: 0, SubnetID: "subnet-1",
			PrimaryIP: "10.0.0.10", PrivateIPs: []string{"10.0.0.10", "10.0.0.11"},
			IPv4Prefixes: []string{"10.0.1.0/28"}, IPv6Prefixes: []string{"2600:1f14::/80"},
			SecurityGroups: []snapshot.GroupRef{{ID: "sg-1", Name: "nodes"}},
		}},
	}
}

func TestDescribeInstancesDecodes(t *testing.T) {
	sim := New()
	sim.AddInstances(testInstance(1))
	client := NewClient(sim.Start(t), "us-west-2")
	out, err := client.DescribeInstances(t.Context(), &ec2.DescribeInstancesInput{
		Filters: []types.Filter{{Name: aws.String("instance-id"), Values: []string{testInstance(1).ID, "i-00000000000000fff"}}},
	})
	if err != nil {
		t.Fatalf("DescribeInstances: %v", err)
	}
	if len(out.Reservations) != 1 || len(out.Reservations[0].Instances) != 1 {
		t.Fatalf("got %d reservations, want 1 with 1 instance", len(out.Reservations))
	}
	got := out.Reservations[0].Instances[0]
	want := types.Instance{
		InstanceId: aws.String(testInstance(1).ID), InstanceType: types.InstanceTypeM5Large,
		State:            &types.InstanceState{Code: aws.Int32(16), Name: types.InstanceStateNameRunning},
		PrivateIpAddress: aws.String("10.0.0.10"), SubnetId: aws.String("subnet-1"), VpcId: aws.String("vpc-1"),
		LaunchTime: aws.Time(time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)),
		Placement: &types.Placement{
			AvailabilityZone: aws.String("us-west-2a"), AvailabilityZoneId: aws.String("usw2-az1"),
			GroupName: aws.String("train"), GroupId: aws.String("pg-1"), PartitionNumber: aws.Int32(2),
			Tenancy: types.TenancyDefault,
		},
		SecurityGroups: []types.GroupIdentifier{{GroupId: aws.String("sg-1"), GroupName: aws.String("nodes")}},
		Tags:           []types.Tag{{Key: aws.String("Name"), Value: aws.String("node")}},
		NetworkInterfaces: []types.InstanceNetworkInterface{{
			NetworkInterfaceId: aws.String("eni-1"), InterfaceType: aws.String("efa"), SubnetId: aws.String("subnet-1"),
			Status: types.NetworkInterfaceStatusInUse, PrivateIpAddress: aws.String("10.0.0.10"),
			Attachment: &types.InstanceNetworkInterfaceAttachment{
				DeviceIndex: aws.Int32(0), NetworkCardIndex: aws.Int32(1), Status: types.AttachmentStatusAttached,
			},
			Groups: []types.GroupIdentifier{{GroupId: aws.String("sg-1"), GroupName: aws.String("nodes")}},
			PrivateIpAddresses: []types.InstancePrivateIpAddress{
				{PrivateIpAddress: aws.String("10.0.0.10"), Primary: aws.Bool(true)},
				{PrivateIpAddress: aws.String("10.0.0.11"), Primary: aws.Bool(false)},
			},
			Ipv4Prefixes: []types.InstanceIpv4Prefix{{Ipv4Prefix: aws.String("10.0.1.0/28")}},
			Ipv6Prefixes: []types.InstanceIpv6Prefix{{Ipv6Prefix: aws.String("2600:1f14::/80")}},
		}},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(types.Instance{}, types.InstanceState{},
		types.Placement{}, types.GroupIdentifier{}, types.Tag{}, types.InstanceNetworkInterface{},
		types.InstanceNetworkInterfaceAttachment{}, types.InstancePrivateIpAddress{}, types.InstanceIpv4Prefix{},
		types.InstanceIpv6Prefix{})); diff != "" {
		t.Errorf("instance mismatch (-want +got):\n%s", diff)
	}
	reqs := sim.Requests()
	if len(reqs) != 1 || reqs[0].Region != "us-west-2" || reqs[0].Values() != 2 {
		t.Errorf("got requests %+v, want one in us-west-2 with 2 values", reqs)
	}
}

func TestPagination(t *testing.T) {
	sim := New()
	for i := range 25 {
		sim.AddInstances(testInstance(i))
	}
	sim.SetPageSize(10)
	client := NewClient(sim.Start(t), "us-west-2")
	pages := ec2.NewDescribeInstancesPaginator(client, &ec2.DescribeInstancesInput{MaxResults: aws.Int32(1000)})
	var ids []string
	for pages.HasMorePages() {
		out, err := pages.NextPage(t.Context())
		if err != nil {
			t.Fatalf("NextPage: %v", err)
		}
		for _, r := range out.Reservations {
			for _, in := range r.Instances {
				ids = append(ids, aws.ToString(in.InstanceId))
			}
		}
	}
	if got, want := sim.Count(DescribeInstances), 3; got != want {
		t.Errorf("got %d requests, want %d", got, want)
	}
	if len(ids) != 25 || ids[0] != testInstance(0).ID || ids[24] != testInstance(24).ID {
		t.Errorf("got %d IDs %v, want the 25 in order", len(ids), ids)
	}
}

func TestErrors(t *testing.T) {
	sim := New()
	sim.AddInstances(testInstance(1))
	sim.AddInstanceTypes(snapshot.InstanceType{Name: "m5.large"})
	sim.AddPlacementGroups(snapshot.PlacementGroup{ID: "pg-1", Name: "train", Strategy: "cluster"})
	client := NewClient(sim.Start(t), "us-west-2")
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"unknown instance ID in InstanceIds", func() error {
			_, err := client.DescribeInstances(t.Context(), &ec2.DescribeInstancesInput{InstanceIds: []string{"i-00000000000000fff"}})
			return err
		}, "InvalidInstanceID.NotFound"},
		{"InstanceIds with MaxResults", func() error {
			_, err := client.DescribeInstances(t.Context(), &ec2.DescribeInstancesInput{
				InstanceIds: []string{testInstance(1).ID}, MaxResults: aws.Int32(5)})
			return err
		}, "InvalidParameterCombination"},
		{"unknown filter", func() error {
			_, err := client.DescribePlacementGroups(t.Context(), &ec2.DescribePlacementGroupsInput{
				Filters: []types.Filter{{Name: aws.String("group-id"), Values: []string{"pg-1"}}}})
			return err
		}, "InvalidParameterValue"},
		{"unknown placement group ID", func() error {
			_, err := client.DescribePlacementGroups(t.Context(), &ec2.DescribePlacementGroupsInput{GroupIds: []string{"pg-9"}})
			return err
		}, "InvalidPlacementGroup.Unknown"},
		{"unknown instance type", func() error {
			_, err := client.DescribeInstanceTypes(t.Context(), &ec2.DescribeInstanceTypesInput{
				InstanceTypes: []types.InstanceType{"m5.large", "x9.huge"}})
			return err
		}, "InvalidInstanceType"},
		{"too many filter values", func() error {
			ids := make([]string, 201)
			for i := range ids {
				ids[i] = testInstance(i).ID
			}
			_, err := client.DescribeInstances(t.Context(), &ec2.DescribeInstancesInput{
				Filters: []types.Filter{{Name: aws.String("instance-id"), Values: ids}}})
			return err
		}, "InvalidParameterValue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var apiErr smithy.APIError
			if err := tt.call(); !errors.As(err, &apiErr) || apiErr.ErrorCode() != tt.want {
				t.Errorf("got error %v, want code %s", err, tt.want)
			}
		})
	}
}

func TestFaults(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(*Server)
		wantCode  string
		wantCalls int
	}{
		{"fail twice then succeed", func(s *Server) { s.Fail(DescribeSubnets, "InternalError", 2) }, "", 3},
		{"throttled beyond retries", func(s *Server) { s.Fail(DescribeSubnets, "RequestLimitExceeded", 0) },
			"RequestLimitExceeded", ClientMaxAttempts},
		{"unauthorized is not retried", func(s *Server) { s.Fail(DescribeSubnets, "UnauthorizedOperation", 0) },
			"UnauthorizedOperation", 1},
		{"empty token bucket", func(s *Server) { s.SetThrottle(1, 0); s.SetLatency(time.Millisecond) },
			"RequestLimitExceeded", ClientMaxAttempts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim := New()
			sim.AddSubnets(snapshot.Subnet{ID: "subnet-1", CIDR: "10.0.0.0/24", Zone: "us-west-2a", AvailableIPs: 7})
			tt.setup(sim)
			client := NewClient(sim.Start(t), "us-west-2")
			_, _ = client.DescribeInstances(t.Context(), &ec2.DescribeInstancesInput{}) // takes the bucket's token
			out, err := client.DescribeSubnets(t.Context(), &ec2.DescribeSubnetsInput{})
			var apiErr smithy.APIError
			switch {
			case tt.wantCode == "" && err != nil:
				t.Fatalf("DescribeSubnets: %v", err)
			case tt.wantCode == "" && aws.ToInt32(out.Subnets[0].AvailableIpAddressCount) != 7:
				t.Errorf("got %+v, want subnet-1 with 7 free addresses", out.Subnets)
			case tt.wantCode != "" && (!errors.As(err, &apiErr) || apiErr.ErrorCode() != tt.wantCode):
				t.Errorf("got error %v, want code %s", err, tt.wantCode)
			}
			if got := sim.Count(DescribeSubnets); got != tt.wantCalls {
				t.Errorf("got %d DescribeSubnets requests, want %d", got, tt.wantCalls)
			}
		})
	}
}

func TestConcurrentCounts(t *testing.T) {
	sim := New()
	client := NewClient(sim.Start(t), "us-west-2")
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := client.DescribeSecurityGroups(t.Context(), &ec2.DescribeSecurityGroupsInput{}); err != nil {
				t.Errorf("DescribeSecurityGroups: %v", err)
			}
		})
	}
	wg.Wait()
	if got := sim.Count(DescribeSecurityGroups); got != 20 {
		t.Errorf("got %d requests, want 20", got)
	}
}

func TestBucketRefills(t *testing.T) {
	now := time.Unix(0, 0)
	b := &bucket{capacity: 2, refill: 1, tokens: 2, last: now}
	steps := []struct {
		after time.Duration
		want  bool
	}{{0, true}, {0, true}, {0, false}, {500 * time.Millisecond, false}, {500 * time.Millisecond, true}, {10 * time.Second, true}, {0, true}, {0, false}}
	for i, s := range steps {
		now = now.Add(s.after)
		if got := b.take(now); got != s.want {
			t.Errorf("step %d: got %v, want %v", i, got, s.want)
		}
	}
}
