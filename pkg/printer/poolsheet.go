package printer

import (
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/sheet"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// PrintNodePools writes the `describe nodepool` output of sheets to w in format f: the text
// sheets (NodePoolSheet at Width), or as JSON or YAML the one sheet, or a List of them. st
// colours the text; nil means no colour.
func PrintNodePools(w io.Writer, sheets []sheet.NodePoolSheet, f Format, st *style.Styles) error {
	return printSheets(w, sheets, f, st, "NodePool sheets", poolSheet)
}

// NodePoolSheet returns the sheet of sh as text whose lines fit width columns (at least 40;
// zero or less means Width). Strings are escaped and cut as PrintReport does. st colours the
// text; nil means no colour.
func NodePoolSheet(sh sheet.NodePoolSheet, width int, st *style.Styles) string {
	return sheetsText([]sheet.NodePoolSheet{sh}, width, true, st, poolSheet)
}

func poolSheet(t *text, sh sheet.NodePoolSheet) {
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
	pairs = append(pairs, []kv{
		{"Instance types", requirementText(sh.InstanceTypes)},
		{"Capacity types", requirementText(sh.CapacityTypes)},
	}...)
	if len(sh.Taints) > 0 {
		pairs = append(pairs, kv{"Taints", taintsText(sh.Taints)})
	}
	if len(sh.StartupTaints) > 0 {
		pairs = append(pairs, kv{"Startup taints", taintsText(sh.StartupTaints)})
	}
	t.kvs(indent, pairs)
	t.header("Requirements")
	if len(sh.Requirements) == 0 {
		t.para(indent, "none")
	}
	reqs := make([]kv, len(sh.Requirements))
	for i, r := range sh.Requirements {
		reqs[i] = kv{r.Key, requirementText(&r)}
	}
	t.kvs(indent, reqs)
	disruptionSection(t, sh.Disruption)
	conditionsSection(t, sh.Conditions)
	membersSection(t, "Nodes and NodeClaims", sh.Members, "none", false)
	subjectFindings(t, "nodepool/"+sh.Name, sh.Findings)
	references(t, sh.References())
}

// disruptionSection renders spec.disruption: the consolidation policy and each budget, "at
// most 10% of nodes at once" or, for a scheduled one, "... for 8h from 0 9 * * mon-fri", and
// Karpenter's default budget when none is written.
func disruptionSection(t *text, d *snapshot.Disruption) {
	t.header("Disruption")
	if d == nil {
		t.para(indent, "not set: Karpenter's defaults (at most 10% of the nodes disrupted at once)")
		return
	}
	consolidation := orUnknown(d.ConsolidationPolicy)
	if d.ConsolidateAfter != "" {
		consolidation += ", after " + d.ConsolidateAfter
	}
	pairs := []kv{{"Consolidation", consolidation}}
	if d.ExpireAfter != "" {
		pairs = append(pairs, kv{"Expire after", d.ExpireAfter})
	}
	if len(d.Budgets) == 0 {
		pairs = append(pairs, kv{"Budgets", "none written: Karpenter's default, at most 10% of the nodes at once"})
	}
	for i, b := range d.Budgets {
		pairs = append(pairs, kv{fmt.Sprintf("Budget %d", i+1), budgetText(b)})
	}
	t.kvs(indent, pairs)
}

// budgetText renders one disruption budget.
func budgetText(b snapshot.DisruptionBudget) string {
	nodes := orUnknown(b.Nodes)
	if !strings.HasSuffix(nodes, "%") {
		nodes += " node" + map[bool]string{true: "", false: "s"}[nodes == "1"]
	} else {
		nodes += " of the nodes"
	}
	s := "at most " + nodes + " at once"
	if nodes == "0 nodes" {
		s = "no node disrupted"
	}
	if b.Schedule != "" {
		s += ", for " + orUnknown(b.Duration) + " from each " + b.Schedule
	}
	if len(b.Reasons) > 0 {
		s += "; reasons " + strings.Join(b.Reasons, ", ")
	} else {
		s += "; every reason"
	}
	return s
}

// requirementText renders a requirement as "In a, b", "any" when r is nil.
func requirementText(r *snapshot.Requirement) string {
	if r == nil {
		return "any (not constrained)"
	}
	return strings.TrimSpace(r.Operator + " " + strings.Join(r.Values, ", "))
}

// taintsText writes taints as kubectl does, key=value:effect, separated by commas.
func taintsText(taints []corev1.Taint) string {
	parts := make([]string, len(taints))
	for i, tn := range taints {
		parts[i] = tn.ToString()
	}
	return strings.Join(parts, ", ")
}
