package diagnose

import (
	"fmt"
	"reflect"
	"testing"
)

// TestAnalyzeDescribesEveryNodeInPlace analyses 1,000 nodes, whose descriptions are made on
// every CPU in batches, and a selection of 3 of them: each report is the node's own
// description, in the nodes' order, as Describe gives it one node at a time.
func TestAnalyzeDescribesEveryNodeInPlace(t *testing.T) {
	s := healthy()
	base := s.Nodes[0]
	s.Nodes = s.Nodes[:0]
	for i := range 1000 {
		n := *base.DeepCopy()
		n.Name = fmt.Sprintf("%s-%04d", base.Name, i)
		s.Nodes = append(s.Nodes, n)
	}
	x := NewIndex(s)
	selected := map[string]bool{s.Nodes[7].Name: true, s.Nodes[300].Name: true, s.Nodes[999].Name: true}
	for _, opts := range []Options{{}, {Nodes: selected}} {
		r := Analyze(s, opts)
		var want []NodeReport
		for _, n := range x.Nodes {
			if opts.Nodes == nil || opts.Nodes[n.Name()] {
				want = append(want, Describe(x, n))
			}
		}
		if len(r.Nodes) != len(want) {
			t.Fatalf("%d selected: %d node reports, want %d", len(opts.Nodes), len(r.Nodes), len(want))
		}
		for i := range want {
			got := r.Nodes[i]
			got.Findings, got.Status = want[i].Findings, want[i].Status
			if !reflect.DeepEqual(got, want[i]) {
				t.Fatalf("%d selected: report %d is %s's description, want %s's", len(opts.Nodes), i, got.Identity.Node, want[i].Identity.Node)
			}
		}
	}
}
