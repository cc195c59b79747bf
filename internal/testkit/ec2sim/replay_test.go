package ec2sim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestReplayAnswersAsBefore turns replay on: a query asked again gets the same answer, still
// counted, throttled and delayed as any; a change to the data ends the replay of what it
// changes.
func TestReplayAnswersAsBefore(t *testing.T) {
	sim := New()
	sim.AddInstances(snapshot.Instance{ID: "i-1", Type: "m5.large", State: "running", Zone: "us-west-2a"})
	sim.SetReplay(true)
	client := NewClient(sim.Start(t), "us-west-2")
	ids := func() []string {
		t.Helper()
		out, err := client.DescribeInstances(t.Context(), &ec2.DescribeInstancesInput{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range out.Reservations {
			for _, in := range r.Instances {
				got = append(got, aws.ToString(in.InstanceId)+"/"+string(in.InstanceType))
			}
		}
		return got
	}
	first := ids()
	sim.mu.Lock()
	stored := len(sim.answers)
	sim.mu.Unlock()
	if stored != 1 {
		t.Fatalf("%d answers kept after one query, want 1", stored)
	}
	if again := ids(); len(again) != 1 || again[0] != first[0] {
		t.Fatalf("replayed %v, want %v", again, first)
	}
	sim.AddInstances(snapshot.Instance{ID: "i-1", Type: "c5.large", State: "running", Zone: "us-west-2a"})
	if changed := ids(); len(changed) != 1 || changed[0] != "i-1/c5.large" {
		t.Fatalf("after a change: %v, want i-1/c5.large", changed)
	}
	if got := sim.Counts()[DescribeInstances]; got != 3 {
		t.Fatalf("%d DescribeInstances counted, want 3: replayed answers are requests too", got)
	}
	sim.SetThrottle(1, 0)
	ids()
	if _, err := client.DescribeInstances(t.Context(), &ec2.DescribeInstancesInput{}); err == nil {
		t.Fatal("a replayed query with an empty bucket was answered, want RequestLimitExceeded")
	}
}
