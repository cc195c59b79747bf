package collect

import (
	stdcmp "cmp"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestEC2FeedBatchesAsPagesArrive(t *testing.T) {
	w := newEC2World(t, 450)
	c := &Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}
	e := c.startEC2(t.Context())
	// Pages of 150 nodes, the second sent twice: the first batch goes out with the second
	// page, before the node list is complete.
	nodes := w.snap.Nodes
	e.addNodes(nodes[:150], -1)
	if got := w.sim.Count(ec2sim.DescribeInstances); got != 0 {
		t.Errorf("after 150 nodes: got %d DescribeInstances requests, want 0", got)
	}
	e.addNodes(nodes[150:300], -1)
	e.addNodes(nodes[150:300], -1)
	e.addNodes(nodes[300:], -1)
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

func TestEC2WithoutRegionReadsTheProviderIDRegion(t *testing.T) {
	w := newEC2World(t, 230)
	c := &Collector{EC2: ec2sim.NewClient(w.url, "")}
	e := c.startEC2(t.Context())
	e.addNodes(w.snap.Nodes, -1)
	// The providerIDs name the Region, so a full batch goes out before the list is complete.
	waitFor(t, func() bool { return w.sim.Count(ec2sim.DescribeInstances) == 1 })
	e.nodesDone(w.snap)
	e.finish(t.Context(), w.snap)
	if got := len(w.snap.Instances); got != 230 || w.snap.Region != "us-west-2" || len(w.snap.Notes) != 0 {
		t.Errorf("got %d instances in Region %q, notes %q; want 230 in us-west-2 (from the providerIDs), no note",
			got, w.snap.Region, w.snap.Notes)
	}
}

// waitFor polls cond for up to five seconds and fails the test when it never holds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestEC2ReadsEachRegionOfTheNodes puts two of five nodes in eu-west-1: each Region describes
// its own instances and what they use, the Kubernetes objects' references go to the main
// Region (the one most nodes are in), and --region overrides both.
func TestEC2ReadsEachRegionOfTheNodes(t *testing.T) {
	for _, tc := range []struct {
		name, flag   string
		wantRegions  []string
		wantByRegion map[string]int // DescribeInstances requests per Region
	}{
		{"from the providerIDs", "", []string{"us-west-2", "eu-west-1"}, map[string]int{"us-west-2": 1, "eu-west-1": 1}},
		{"--region wins", "eu-west-1", nil, map[string]int{"eu-west-1": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newEC2World(t, 5)
			w.sim.AddInstances(
				snapshot.Instance{ID: ec2InstanceID(100), Type: "m5.large", State: "running", Zone: "eu-west-1a", SubnetID: "subnet-eu"},
				snapshot.Instance{ID: ec2InstanceID(101), Type: "m5.large", State: "running", Zone: "eu-west-1b", SubnetID: "subnet-eu"},
			)
			w.sim.AddSubnets(snapshot.Subnet{ID: "subnet-eu", VpcID: "vpc-eu", CIDR: "10.9.0.0/20", Zone: "eu-west-1a", AvailableIPs: 4000})
			w.snap.Nodes = append(w.snap.Nodes,
				ec2Node("eu-0", "eu-west-1a", ec2InstanceID(100), "m5.large"), ec2Node("eu-1", "eu-west-1b", ec2InstanceID(101), "m5.large"))
			(&Collector{EC2: ec2sim.NewClient(w.url, "ap-south-1"), Region: tc.flag}).collectEC2(t.Context(), w.snap)

			wantRegion := stdcmp.Or(tc.flag, "us-west-2")
			if w.snap.Region != wantRegion || !slices.Equal(w.snap.Regions, tc.wantRegions) {
				t.Errorf("got Region %q, Regions %q; want %q, %q", w.snap.Region, w.snap.Regions, wantRegion, tc.wantRegions)
			}
			got := map[string]int{}
			subnetsIn := map[string]bool{}
			for _, r := range w.sim.Requests() {
				switch r.Action {
				case ec2sim.DescribeInstances:
					got[r.Region]++
				case ec2sim.DescribeSubnets:
					subnetsIn[r.Region] = true
				}
			}
			if diff := cmp.Diff(tc.wantByRegion, got); diff != "" {
				t.Errorf("DescribeInstances per Region (-want +got):\n%s", diff)
			}
			for region := range tc.wantByRegion {
				if !subnetsIn[region] {
					t.Errorf("no DescribeSubnets in %s, where instances were read", region)
				}
			}
			if tc.flag == "" && (len(w.snap.Instances) != 7 || len(w.snap.Notes) != 1) {
				t.Errorf("got %d instances and notes %q, want 7 and one note about ap-south-1", len(w.snap.Instances), w.snap.Notes)
			}
		})
	}
}
