package printer

import (
	"io"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// PrintNodePools writes the `describe nodepool` output of sheets to w in format f: the text
// sheets (NodePoolSheet at Width), or as JSON or YAML the one sheet, or a List of them. st
// colours the text; nil means no colour.
func PrintNodePools(w io.Writer, sheets []diagnose.NodePoolSheet, f Format, st *style.Styles) error {
	return printSheets(w, sheets, f, st, "NodePool sheets", poolSheet)
}

// NodePoolSheet returns the sheet of sh as text whose lines fit width columns (at least 40;
// zero or less means Width). Strings are escaped and cut as PrintReport does. st colours the
// text; nil means no colour.
func NodePoolSheet(sh diagnose.NodePoolSheet, width int, st *style.Styles) string {
	return sheetsText([]diagnose.NodePoolSheet{sh}, width, st, poolSheet)
}

func poolSheet(t *text, sh diagnose.NodePoolSheet) {
	subjectTitle(t, "nodepool/"+sh.Name, sh.Findings)
	t.header("NodePool")
	kind := firstOf(sh.NodeClassKind, firstOf(sh.NodeClassRef.Kind, "NodeClass"))
	class := kind + " " + orUnknown(sh.NodeClassRef.Name)
	if !sh.NodeClassFound {
		class += " (not found)"
	}
	classZones := "unknown (class not found)"
	if sh.NodeClassFound {
		classZones = orNone(strings.Join(sh.ClassZones, ", "))
	}
	pairs := []kv{
		{"Name", sh.Name},
		{"Class", class},
		{"Zones", requirementText(sh.Zones)},
		{"Class's subnet zones", classZones},
	}
	if len(sh.ZonesWithoutSubnet) > 0 {
		pairs = append(pairs, kv{"Zones without a subnet", t.st.Warning.Mark() + " " + strings.Join(sh.ZonesWithoutSubnet, ", ") + ": Karpenter launches nothing there"})
	}
	t.kvs(indent, append(pairs, []kv{
		{"Instance types", requirementText(sh.InstanceTypes)},
		{"Capacity types", requirementText(sh.CapacityTypes)},
	}...))
	t.header("Requirements")
	if len(sh.Requirements) == 0 {
		t.para(indent, "none")
	}
	reqs := make([]kv, len(sh.Requirements))
	for i, r := range sh.Requirements {
		reqs[i] = kv{r.Key, requirementText(&r)}
	}
	t.kvs(indent, reqs)
	conditionsSection(t, sh.Conditions)
	membersSection(t, "Nodes and NodeClaims", sh.Members, "none", false)
	subjectFindings(t, sh.Findings)
	refs := []string{}
	if sh.NodeClassFound && sh.NodeClassKind != "" {
		refs = append(refs, strings.ToLower(sh.NodeClassKind)+"/"+sh.NodeClassRef.Name)
	}
	references(t, append(refs, memberRefs(sh.Members)...))
}

// requirementText renders a requirement as "In a, b", "any" when r is nil.
func requirementText(r *snapshot.Requirement) string {
	if r == nil {
		return "any (not constrained)"
	}
	return strings.TrimSpace(r.Operator + " " + strings.Join(r.Values, ", "))
}
