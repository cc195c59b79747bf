package diagnose_test

import (
	"encoding/json"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// TestAnalyzeSharesEqualSections: the demo's nodes of one subnet share one subnet section, and
// every node's report is what Describe alone makes of it, sections shared or not.
func TestAnalyzeSharesEqualSections(t *testing.T) {
	s, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	r := diagnose.Analyze(s, diagnose.Options{})
	x := diagnose.NewIndex(s)
	bySubnet := map[string]*diagnose.SubnetReport{}
	shared := 0
	for i, n := range r.Nodes {
		alone := diagnose.Describe(x, x.Nodes[i])
		got, _ := json.Marshal(sections(n))
		want, _ := json.Marshal(sections(alone))
		if string(got) != string(want) {
			t.Errorf("node %s: its sections in the report differ from Describe's\n got %s\nwant %s", n.Identity.Node, got, want)
		}
		if n.Subnet == nil {
			continue
		}
		if seen, ok := bySubnet[n.Subnet.ID]; ok && seen == n.Subnet {
			shared++
		}
		bySubnet[n.Subnet.ID] = n.Subnet
	}
	if shared == 0 {
		t.Error("no two nodes of a subnet share its section")
	}
}

// sections are a node report's parts Describe makes.
func sections(n diagnose.NodeReport) diagnose.NodeReport {
	n.Findings, n.Status, n.InheritedStatus, n.InheritedFrom = nil, "", "", nil
	return n
}
