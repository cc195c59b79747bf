package tui

import (
	"cmp"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// groupBy is what the nodes table is grouped by.
type groupBy int

// The groupings, in the order `g` cycles through them.
const (
	groupNone groupBy = iota
	groupPool
	groupClass
	groupZone
	groupSubnet
	numGroups
)

// String names the grouping for the status line.
func (g groupBy) String() string {
	return [...]string{"none", "NodePool", "NodeClass", "zone", "subnet"}[g]
}

// data is everything derived from one report, computed once when it arrives.
type data struct {
	report diagnose.Report
	// rows are the nodes, worst first, then the NodeClaims without a Node, worst first; nodes
	// counts the nodes among them.
	rows  []row
	nodes int
	// byName maps a node name, or nodeclaim/NAME, to its index in rows.
	byName map[string]int
	// widths are the widest cell of each column, headings included.
	widths  [numCols]int
	subnets []subnetRow
	groups  []findingGroup
	// subjects builds the sheets of the subjects findings name.
	subjects subjects
	// changes are the findings new and resolved since the previous collection; none on the first.
	changes changes
}

// derive computes the rows, subnets and finding groups of r.
func derive(r diagnose.Report, st *style.Styles) *data {
	d := &data{report: r, byName: make(map[string]int, len(r.Nodes))}
	d.rows = make([]row, len(r.Nodes))
	for i, n := range r.Nodes {
		d.rows[i] = newRow(i, n)
	}
	sortRows(d.rows)
	d.nodes = len(d.rows)
	for i, c := range r.NodeClaims {
		d.rows = append(d.rows, newClaimRow(i, c))
	}
	for i, c := range columns() {
		d.widths[i] = width(c.title)
	}
	d.widths[colLevel] = max(levelWidth(st), claimBadgeWidth(d.rows, st))
	for i, rw := range d.rows {
		d.byName[rw.name] = i
		for c := colCluster; c < numCols; c++ {
			d.widths[c] = max(d.widths[c], width(rw.cells[c]))
		}
	}
	d.subnets = deriveSubnets(r)
	d.groups = deriveGroups(r.Findings)
	return d
}

// findingGroup is every finding of one check.
type findingGroup struct {
	id       string
	severity diagnose.Severity
	findings []diagnose.Finding
	// hays are each finding's lower-case ID, node, resource and message.
	hays  []string
	nodes int
}

// deriveGroups groups findings by check ID, worst first, then by most findings.
func deriveGroups(list []diagnose.Finding) []findingGroup {
	at := map[string]int{}
	var groups []findingGroup
	nodes := map[string]map[string]bool{}
	for _, f := range list {
		i, ok := at[f.ID]
		if !ok {
			i = len(groups)
			at[f.ID] = i
			groups = append(groups, findingGroup{id: f.ID, severity: f.Severity})
			nodes[f.ID] = map[string]bool{}
		}
		g := &groups[i]
		g.severity = max(g.severity, f.Severity)
		g.findings = append(g.findings, f)
		g.hays = append(g.hays, strings.ToLower(strings.Join([]string{f.ID, f.Node, f.Resource, f.Message}, "\n")))
		if f.Node != "" && !nodes[f.ID][f.Node] {
			nodes[f.ID][f.Node] = true
			g.nodes++
		}
	}
	slices.SortStableFunc(groups, func(a, b findingGroup) int {
		return cmp.Or(cmp.Compare(b.severity, a.severity), cmp.Compare(len(b.findings), len(a.findings)),
			strings.Compare(a.id, b.id))
	})
	return groups
}

// node finds a node of the report by name.
func (d *data) node(name string) (diagnose.NodeReport, bool) {
	i, ok := d.byName[name]
	if !ok || d.rows[i].node < 0 {
		return diagnose.NodeReport{}, false
	}
	return d.report.Nodes[d.rows[i].node], true
}

// rawFinding returns finding f of the report, which views show escaped and cut for the
// screen, as it was read: the one at its place in the report the TUI was given, which keeps
// the findings' order. What is copied to the clipboard must be the real names and values.
// Without that report (or when f is not in this one) it returns f.
func (d *data) rawFinding(f diagnose.Finding) diagnose.Finding {
	raw := d.subjects.report.Findings
	if len(raw) != len(d.report.Findings) {
		return f
	}
	for i, g := range d.report.Findings {
		if g.ID == f.ID && g.Node == f.Node && g.Resource == f.Resource && g.Message == f.Message {
			return raw[i]
		}
	}
	return f
}
