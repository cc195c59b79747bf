package collect

import (
	"fmt"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2SimTagged returns ec2sim holding n running m5.large instances in subnet-a of us-west-2a,
// each tagged with tags.
func ec2SimTagged(n int, tags map[string]string) *ec2sim.Server {
	sim := ec2sim.New()
	for i := range n {
		sim.AddInstances(snapshot.Instance{ID: ec2InstanceID(i), Type: "m5.large", State: "running", Zone: "us-west-2a",
			SubnetID: "subnet-a", Tags: tags})
	}
	return sim
}

// TestInstancePagesAskForTheNextPageWhileDecoding reads 2,500 tagged instances, three pages
// of 1,000, and holds the visit of the first page until ec2sim has been asked for the
// second: only a read that asks for a page before the one before it is decoded and visited
// gets through. Every instance is visited once, and the pages cost three requests, no more.
func TestInstancePagesAskForTheNextPageWhileDecoding(t *testing.T) {
	sim := ec2SimTagged(2500, map[string]string{"kubernetes.io/cluster/prod": "owned"})
	c := ec2Call{api: ec2sim.NewClient(sim.Start(t), "us-west-2"), region: "us-west-2"}
	asked := func() bool {
		for _, r := range sim.Requests() {
			if r.NextToken != "" {
				return true
			}
		}
		return false
	}
	seen := map[string]bool{}
	var held error
	err := c.clusterStream(t.Context(), "prod", nil, 10, func(in snapshot.Instance) {
		if len(seen) == 0 {
			deadline := time.Now().Add(10 * time.Second)
			for !asked() && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if !asked() {
				held = fmt.Errorf("the second page was not asked for while the first was visited")
			}
		}
		seen[in.ID] = true
	})
	if err != nil {
		t.Fatal(err)
	}
	if held != nil {
		t.Fatal(held)
	}
	if len(seen) != 2500 {
		t.Fatalf("%d instances visited, want 2500", len(seen))
	}
	if got := sim.Counts()[ec2sim.DescribeInstances]; got != 3 {
		t.Fatalf("%d DescribeInstances for three pages, want 3", got)
	}
}

// TestInstancePagesStopAtTheirBound: a read bounded to two pages asks for no third, though
// the second page names one.
func TestInstancePagesStopAtTheirBound(t *testing.T) {
	sim := ec2SimTagged(2500, map[string]string{"kubernetes.io/cluster/prod": "owned"})
	c := ec2Call{api: ec2sim.NewClient(sim.Start(t), "us-west-2"), region: "us-west-2"}
	err := c.clusterStream(t.Context(), "prod", nil, 2, func(snapshot.Instance) {})
	if err == nil {
		t.Fatal("a read past its bound ended without an error")
	}
	if got := sim.Counts()[ec2sim.DescribeInstances]; got != 2 {
		t.Fatalf("%d DescribeInstances, want 2: none past the bound", got)
	}
}
