package collect

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

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
		if g := names(got[region]); len(g) != len(w) || (len(g) > 0 && &got[region][0] == &mixed[0]) {
			t.Errorf("Region %q: got %v, want %v (copied)", region, g, w)
		} else {
			for i := range g {
				if g[i] != w[i] {
					t.Errorf("Region %q: got %v, want %v", region, g, w)
				}
			}
		}
	}
	if got := ec2NodesByRegion(providerNodes("", "aws:///us-west-2a/i-1")); len(got) != 1 || len(got["us-west-2"]) != 1 {
		t.Errorf("a page with a node that names no instance: got %v, want us-west-2 with one node", got)
	}
}
