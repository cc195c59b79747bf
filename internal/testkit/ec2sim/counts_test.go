package ec2sim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/google/go-cmp/cmp"
)

func TestCountsAndThrottled(t *testing.T) {
	sim := New()
	sim.SetThrottle(2, 0)
	client := NewClient(sim.Start(t), "us-west-2")
	if _, err := client.DescribeSubnets(t.Context(), &ec2.DescribeSubnetsInput{}); err != nil {
		t.Fatalf("DescribeSubnets: %v", err)
	}
	if _, err := client.DescribeInstances(t.Context(), &ec2.DescribeInstancesInput{}); err != nil {
		t.Fatalf("DescribeInstances: %v", err)
	}
	if _, err := client.DescribeSecurityGroups(t.Context(), &ec2.DescribeSecurityGroupsInput{}); err == nil {
		t.Fatal("DescribeSecurityGroups with an empty bucket: got no error, want RequestLimitExceeded")
	}
	want := map[string]int{DescribeSubnets: 1, DescribeInstances: 1, DescribeSecurityGroups: ClientMaxAttempts}
	if diff := cmp.Diff(want, sim.Counts()); diff != "" {
		t.Errorf("Counts() (-want +got):\n%s", diff)
	}
	if got := sim.Throttled(); got != ClientMaxAttempts {
		t.Errorf("got Throttled() = %d, want %d", got, ClientMaxAttempts)
	}
}
