package diagnose

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestCiliumFirstIndexOutOfRange edits the demo-cilium cluster's CiliumNodes to a
// first-interface-index out of the range Cilium computes with (below 0, above the type's 3
// interfaces): nothing is computed from it, no Cilium finding is left or invented on those
// nodes, and a note names the value. The snapshot so edited reads back. The healthy twins (0
// to 3) compute as Cilium's operator does.
func TestCiliumFirstIndexOutOfRange(t *testing.T) {
	ciliumChecks := []string{"cilium-max-pods-exceeds-ip-capacity", "cilium-eni-selection-mismatch"}
	tests := []struct {
		first int32
		// want is how many findings of ciliumChecks the cluster has (-1: not counted), out how
		// many of its 6 nodes have the index out of range, note what the note says.
		want, out int
		note      string
	}{
		{first: -2147483648, out: 6, note: "spec.eni.first-interface-index -2147483648 is out of range (0 to 3, the interfaces of m5.large)"},
		{first: -5, out: 6, note: "spec.eni.first-interface-index -5 is out of range (0 to 3, the interfaces of m5.large)"},
		{first: 5, out: 6, note: "spec.eni.first-interface-index 5 is out of range (0 to 4, the interfaces of "},
		// Out of range for the two 3-interface m5.large nodes only; the 4-interface nodes have
		// none left for pods.
		{first: 4, want: 4, out: 2, note: "spec.eni.first-interface-index 4 is out of range (0 to 3, the interfaces of m5.large; Cilium's operator counts no pool for such a node)"},
		{first: 1, want: 3}, // the demo as it is: 2 criticals and a selection mismatch
		{first: 3, want: 2}, // no interface left for pods on the m5.large nodes
		{first: 0, want: -1},
	}
	for _, tc := range tests {
		s, err := demo.SnapshotOf(demo.CiliumContext)
		if err != nil {
			t.Fatal(err)
		}
		for i := range s.CiliumNodes {
			s.CiliumNodes[i].FirstInterfaceIndex = &tc.first
		}
		var buf bytes.Buffer
		if err := snapshot.Write(&buf, s); err != nil {
			t.Fatal(err)
		}
		read, err := snapshot.Read(&buf)
		if err != nil {
			t.Fatalf("first-interface-index %d: the edited snapshot: %v", tc.first, err)
		}
		r := Analyze(read, Options{})
		var got []Finding
		for _, f := range r.Findings {
			if slices.Contains(ciliumChecks, f.ID) {
				got = append(got, f)
			}
			if strings.Contains(f.Message, "first-interface-index -") || strings.Contains(f.Message, "ENIs - first-interface-index 5") {
				t.Errorf("first-interface-index %d: finding %s on %s computes with it: %s", tc.first, f.ID, f.Node, f.Message)
			}
		}
		if tc.want >= 0 && len(got) != tc.want {
			t.Errorf("first-interface-index %d: %d Cilium findings, want %d: %+v", tc.first, len(got), tc.want, got)
		}
		notes := strings.Join(r.Notes, "\n")
		if tc.note == "" {
			if strings.Contains(notes, "first-interface-index") {
				t.Errorf("first-interface-index %d: notes %q, want none about it", tc.first, notes)
			}
			continue
		}
		if !strings.Contains(notes, tc.note) || strings.Contains(notes, "and 3 more") != (tc.out > 3) {
			t.Errorf("first-interface-index %d: notes %q, want them to say %q for the first 3 nodes and count the rest", tc.first, notes, tc.note)
		}
		out := 0
		for _, n := range r.Nodes {
			c := n.Cilium
			if c == nil || !strings.HasPrefix(c.FirstInterfaceIndexProblem, "out of range (0 to ") {
				continue
			}
			out++
			if c.PodIPs != 0 || c.Allocatable != 0 || c.Formula != "" || slices.ContainsFunc(c.ENIs, func(e CiliumENIReport) bool { return e.Managed }) {
				t.Errorf("first-interface-index %d: node %s's Cilium section %+v: want nothing computed", tc.first, n.Identity.Node, c)
			}
		}
		if out != tc.out {
			t.Errorf("first-interface-index %d: %d nodes whose Cilium section says the index is out of range, want %d", tc.first, out, tc.out)
		}
	}
}
