package collect

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/ec2sim"
)

func TestEC2FeedBatchesAsPagesArrive(t *testing.T) {
	w := newEC2World(t, 450)
	c := &Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}
	e := c.startEC2(t.Context())
	// Pages of 150 nodes, the second sent twice: the first batch goes out with the second
	// page, before the node list is complete.
	nodes := w.snap.Nodes
	e.addNodes(nodes[:150])
	if got := w.sim.Count(ec2sim.DescribeInstances); got != 0 {
		t.Errorf("after 150 nodes: got %d DescribeInstances requests, want 0", got)
	}
	e.addNodes(nodes[150:300])
	e.addNodes(nodes[150:300])
	e.addNodes(nodes[300:])
	e.nodesDone(w.snap)
	e.finish(t.Context(), w.snap)

	var sizes []int
	for _, r := range w.sim.Requests() {
		if r.Action == ec2sim.DescribeInstances {
			sizes = append(sizes, r.Values())
		}
	}
	slices.Sort(sizes)
	if diff := cmp.Diff([]int{50, 200, 200}, sizes); diff != "" {
		t.Errorf("DescribeInstances batch sizes (-want +got):\n%s", diff)
	}
	if got := len(w.snap.Instances); got != 450 || len(w.snap.Gaps) != 0 {
		t.Errorf("got %d instances and gaps %v, want 450 and none", got, w.snap.Gaps)
	}
}

func TestEC2WithoutRegionWaitsForTheNodes(t *testing.T) {
	w := newEC2World(t, 30)
	c := &Collector{EC2: ec2sim.NewClient(w.url, "")}
	e := c.startEC2(t.Context())
	e.addNodes(w.snap.Nodes)
	if got := w.sim.Count(ec2sim.DescribeInstances); got != 0 {
		t.Fatalf("without a Region: got %d DescribeInstances requests before the nodes were complete, want 0", got)
	}
	e.nodesDone(w.snap)
	e.finish(t.Context(), w.snap)
	if got := len(w.snap.Instances); got != 30 || w.snap.Region != "us-west-2" {
		t.Errorf("got %d instances in Region %q, want 30 in us-west-2 (from the providerIDs)", got, w.snap.Region)
	}
}
