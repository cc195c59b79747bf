package printer

import (
	"bytes"
	"regexp"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/diff"
	"github.com/karpnet/kubectl-karpnet/pkg/sheet"
)

// jsonNull finds a key whose value is null.
var jsonNull = regexp.MustCompile(`"[A-Za-z]+": null`)

// TestJSONListsAreNeverNull: every JSON the printers write has [] or {} for an empty list or
// map the schema has, never null, at any depth: a report, node sheet, NodeClaim, the subject
// sheets, a diff and explain's documents, each from values whose lists are all nil.
func TestJSONListsAreNeverNull(t *testing.T) {
	taken := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	finding := diagnose.Finding{ID: "x", Severity: diagnose.Warning, Resource: "node/a"}
	report := diagnose.Report{
		Nodes:      []diagnose.NodeReport{{Findings: []diagnose.Finding{finding}}},
		NodeClaims: []diagnose.NodeClaimReport{{Name: "c"}},
		Subnets:    []diagnose.SubnetUse{{}},
		Findings:   []diagnose.Finding{finding},
		Clusters:   []diagnose.ClusterReport{{Context: "a"}},
	}
	checks := diagnose.Checks()[:3]
	for _, tt := range []struct {
		name  string
		print func(w *bytes.Buffer) error
	}{
		{"report", func(w *bytes.Buffer) error { return PrintReport(w, report, JSON, nil) }},
		{"node sheet", func(w *bytes.Buffer) error { return PrintNodes(w, report, JSON, nil) }},
		{"NodeClaim", func(w *bytes.Buffer) error {
			return PrintNodeClaim(w, diagnose.NodeClaimReport{Name: "c"}, taken, JSON, nil)
		}},
		{"subnet", func(w *bytes.Buffer) error { return PrintSubnets(w, []sheet.SubnetSheet{{}}, JSON, nil) }},
		{"NodeClass", func(w *bytes.Buffer) error { return PrintNodeClasses(w, []sheet.NodeClassSheet{{}}, JSON, nil) }},
		{"NodePool", func(w *bytes.Buffer) error { return PrintNodePools(w, []sheet.NodePoolSheet{{}}, JSON, nil) }},
		{"placement group", func(w *bytes.Buffer) error {
			return PrintPlacementGroups(w, []sheet.PlacementGroupSheet{{}}, JSON, nil)
		}},
		{"ENI", func(w *bytes.Buffer) error { return PrintENIs(w, []sheet.ENISheet{{}}, JSON, nil) }},
		{"two subnets", func(w *bytes.Buffer) error { return PrintSubnets(w, []sheet.SubnetSheet{{}, {}}, JSON, nil) }},
		{"diff", func(w *bytes.Buffer) error {
			return PrintDiff(w, diff.Diff{Nodes: diff.NodeChanges{Changed: []diff.NodeChange{{}}}}, JSON, nil)
		}},
		{"explain", func(w *bytes.Buffer) error { return PrintExplain(w, checks, ExplainJSON, nil) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.print(&b); err != nil {
				t.Fatal(err)
			}
			if nulls := jsonNull.FindAllString(b.String(), -1); len(nulls) > 0 {
				t.Errorf("null where a list or map belongs: %q", nulls)
			}
		})
	}
}

// TestEmptyListsLeavesTheValue: filling a copy never writes to the value printed, which
// serve may be encoding at the same time.
func TestEmptyListsLeavesTheValue(t *testing.T) {
	r := diagnose.Report{Nodes: []diagnose.NodeReport{{}}}
	out := emptyLists(&r).(*diagnose.Report)
	if r.Nodes[0].Findings != nil || r.Findings != nil {
		t.Errorf("the value printed was changed: %+v", r)
	}
	if out.Findings == nil || out.Nodes[0].Findings == nil || out.Nodes[0].ENIs == nil {
		t.Errorf("the copy has nil lists: %+v", out)
	}
}
