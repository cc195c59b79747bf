package printer

import (
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

func TestNodeSheetLeadsWithProblems(t *testing.T) {
	n := gpuNodeReport()
	n.Findings = []diagnose.Finding{{
		ID: "security-groups-drift", Severity: diagnose.Warning, Node: n.Identity.Node,
		Message: strings.Repeat("the node has a group its class does not list ", 4), Remedy: "set securityGroupSelectorTerms",
	}}
	lines := strings.Split(NodeSheet(n, nil, 60, nil), "\n")
	problems, identity := index(lines, "Problems"), index(lines, "Identity")
	if problems != 1 || identity < problems {
		t.Fatalf("Problems at line %d, Identity at %d, want Problems on line 1 before Identity:\n%s", problems, identity, strings.Join(lines, "\n"))
	}
	want := "  ▲ security-groups-drift  the node has a group its class d…"
	if got := lines[2]; got != want || width(got) > 60 {
		t.Errorf("problem line = %q, want %q cut to 60 columns", got, want)
	}
	if got, want := lines[3], "      remedy: set securityGroupSelectorTerms"; got != want {
		t.Errorf("remedy line = %q, want %q", got, want)
	}
}

func TestNodeSheetWithoutFindingsHasNoProblems(t *testing.T) {
	n := gpuNodeReport()
	n.Findings = nil
	if sheet := NodeSheet(n, nil, 100, nil); strings.Contains(sheet, "Problems") {
		t.Errorf("a node without findings got a Problems block:\n%s", sheet)
	}
}

func TestNodeSheetMarksOffendingValuesWithoutColour(t *testing.T) {
	tests := []struct {
		name string
		edit func(n *diagnose.NodeReport)
		want string
	}{
		{"address outside its subnet", func(n *diagnose.NodeReport) { n.Addresses[0].InSubnet = ptr(false) }, "in subnet CIDR: ✗ no"},
		{"subnet not selected", func(n *diagnose.NodeReport) { n.Subnet.Selected = ptr(false) }, "Selected by EC2NodeClass: ✗ no"},
		{"group not in the class", func(n *diagnose.NodeReport) {}, "in EC2NodeClass: ✗ no"},
		{"groups do not match", func(n *diagnose.NodeReport) {}, "Matches EC2NodeClass: ✗ no"},
		{"healthy address", func(n *diagnose.NodeReport) {}, "in subnet CIDR: yes"},
		{"EFA interfaces missing", func(n *diagnose.NodeReport) {
			n.Findings = append(n.Findings, diagnose.Finding{ID: "efa-interface-count-mismatch", Severity: diagnose.Critical})
		}, "Attached:                          ✗ 4"},
		{"EFA interfaces not advertised", func(n *diagnose.NodeReport) {
			n.Findings = append(n.Findings, diagnose.Finding{ID: "efa-resource-not-advertised", Severity: diagnose.Warning})
		}, "Allocatable vpc.amazonaws.com/efa: ✗ 4"},
		{"EFA node without a placement group", func(n *diagnose.NodeReport) {
			n.Placement.GroupName, n.Placement.GroupID = "", ""
			n.Findings = append(n.Findings, diagnose.Finding{ID: "efa-without-placement-group", Severity: diagnose.Warning})
		}, "Group:                ✗ none"},
		{"EFA counts without findings", func(n *diagnose.NodeReport) {}, "Attached:                          4\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := gpuNodeReport()
			tt.edit(&n)
			if sheet := NodeSheet(n, nil, 100, nil); !strings.Contains(sheet, tt.want) {
				t.Errorf("sheet lacks %q:\n%s", tt.want, sheet)
			}
		})
	}
}

// index returns the position of the first line equal to s, or -1.
func index(lines []string, s string) int {
	for i, l := range lines {
		if l == s {
			return i
		}
	}
	return -1
}
