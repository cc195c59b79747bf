package collect

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestEC2RegionThatFailsIsItsOwnGap: one node in an invented Region and two in a Region the
// account has not enabled used to turn the whole EC2 read into one "ec2" gap, hiding the main
// Region's findings. Now each is a gap of its own Region, the invented one costs no request, and
// the main Region is read in full.
func TestEC2RegionThatFailsIsItsOwnGap(t *testing.T) {
	w := newEC2World(t, 4)
	w.sim.FailRegion("eu-south-2", "AuthFailure")
	w.snap.Nodes = append(w.snap.Nodes,
		ec2Node("gone", "us-west-2a", ec2InstanceID(90), "m5.large"), // no such instance
		ec2Node("bogus", "zz-bogus0-1a", ec2InstanceID(91), "m5.large"),
		ec2Node("eu-0", "eu-south-2a", ec2InstanceID(92), "m5.large"),
		ec2Node("eu-1", "eu-south-2b", ec2InstanceID(93), "m5.large"))
	(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
	s := w.snap

	var regional []string
	for _, g := range s.Gaps {
		if g.Region == "" {
			t.Errorf("gap %+v covers every Region", g)
			continue
		}
		regional = append(regional, g.Region+": "+g.Reason)
	}
	if len(regional) != 2 || !strings.HasPrefix(regional[0], "eu-south-2: AuthFailure") ||
		!strings.HasPrefix(regional[1], "zz-bogus0-1: zz-bogus0-1 is not a Region of any AWS partition (named by 1 providerID)") {
		t.Errorf("regional gaps = %q, want eu-south-2's AuthFailure and zz-bogus0-1 not a Region", regional)
	}
	if s.Unavailable(snapshot.SourceDescribeInstances) || s.Unavailable(snapshot.SourceDescribeSubnets) {
		t.Errorf("the main Region's reads count as unavailable: gaps %+v", s.Gaps)
	}
	if len(s.Instances) != 4 || len(s.Subnets) < 2 {
		t.Errorf("read %d instances and %d subnets in us-west-2, want 4 and the nodes' subnets", len(s.Instances), len(s.Subnets))
	}
	perRegion := map[string]int{}
	for _, r := range w.sim.Requests() {
		perRegion[r.Region]++
	}
	if perRegion["zz-bogus0-1"] != 0 || perRegion["eu-south-2"] == 0 || perRegion["eu-south-2"] > 2 {
		t.Errorf("requests per Region %v: want none to zz-bogus0-1 and eu-south-2 given up after its first failure", perRegion)
	}
}

// TestEC2RegionsAreCapped: nodes naming 12 Regions read the 8 with most nodes (us-west-2's 4
// lose the tie with eu-north-1's by name); each of the others is a gap that says why, and none
// of their Regions is called.
func TestEC2RegionsAreCapped(t *testing.T) {
	w := newEC2World(t, 4)
	regions := []string{"us-east-1", "us-east-2", "us-west-1", "eu-west-1", "eu-west-2", "eu-west-3",
		"eu-central-1", "eu-north-1", "ap-south-1", "ap-northeast-1", "sa-east-1"}
	for i, region := range regions {
		for j := range len(regions) - i { // fewer nodes in each later Region
			w.snap.Nodes = append(w.snap.Nodes, ec2Node(fmt.Sprintf("n-%d-%d", i, j), region+"a", ec2InstanceID(100+20*i+j), "m5.large"))
		}
	}
	(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)

	var capped []string
	for _, g := range w.snap.Gaps {
		if g.Region != "" && strings.HasPrefix(g.Reason, "not read: the nodes name more than 8 Regions") {
			capped = append(capped, g.Region)
		}
	}
	if want := []string{"ap-northeast-1", "ap-south-1", "sa-east-1", "us-west-2"}; !slices.Equal(capped, want) {
		t.Errorf("Regions not read = %q, want %q (gaps %+v)", capped, want, w.snap.Gaps)
	}
	called := map[string]bool{}
	for _, r := range w.sim.Requests() {
		called[r.Region] = true
	}
	for _, region := range capped {
		if called[region] {
			t.Errorf("%s was called although beyond the cap", region)
		}
	}
	if len(called) != 8 || w.snap.Region != "us-east-1" {
		t.Errorf("called %d Regions (%v), main Region %s; want 8, us-east-1 the main one", len(called), called, w.snap.Region)
	}
}

func providerNodes(ids ...string) []corev1.Node {
	nodes := make([]corev1.Node, len(ids))
	for i, id := range ids {
		nodes[i].Name, nodes[i].Spec.ProviderID = id, id
	}
	return nodes
}

// TestNodesByRegionPassesAPageOfOneRegionOn checks that a page whose nodes all name one Region
// is passed on as it is, not copied, and that a page of several Regions, or with a node that
// names none, is grouped as before.
func TestNodesByRegionPassesAPageOfOneRegionOn(t *testing.T) {
	one := providerNodes("aws:///us-west-2a/i-1", "aws:///us-west-2b/i-2", "aws:///us-west-2a/i-3")
	got := ec2NodesByRegion(one)
	if len(got) != 1 || len(got["us-west-2"]) != 3 || &got["us-west-2"][0] != &one[0] {
		t.Errorf("one Region: got %d Regions, us-west-2 holding %d nodes (the page itself: %v), want the page of 3 as it is",
			len(got), len(got["us-west-2"]), len(got["us-west-2"]) > 0 && &got["us-west-2"][0] == &one[0])
	}
	mixed := providerNodes("aws:///us-west-2a/i-1", "aws:///eu-west-1a/i-2", "", "aws:///us-west-2c/i-4", "aws:///bogus/i-5")
	got = ec2NodesByRegion(mixed)
	names := func(nodes []corev1.Node) (out []string) {
		for _, n := range nodes {
			out = append(out, n.Name)
		}
		return out
	}
	want := map[string][]string{"us-west-2": {"aws:///us-west-2a/i-1", "aws:///us-west-2c/i-4"},
		"eu-west-1": {"aws:///eu-west-1a/i-2"}, "": {"aws:///bogus/i-5"}}
	if len(got) != len(want) {
		t.Fatalf("several Regions: got %d groups, want %d: %v", len(got), len(want), got)
	}
	for region, w := range want {
		if g := names(got[region]); !slices.Equal(g, w) || &got[region][0] == &mixed[0] {
			t.Errorf("Region %q: got %v, want %v, copied out of the page", region, g, w)
		}
	}
	if got := ec2NodesByRegion(providerNodes("", "aws:///us-west-2a/i-1")); len(got) != 1 || len(got["us-west-2"]) != 1 {
		t.Errorf("a page with a node that names no instance: got %v, want us-west-2 with one node", got)
	}
}
