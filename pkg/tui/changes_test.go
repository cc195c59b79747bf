package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// without returns a copy of r without the findings of key k, in the report's list and its nodes'.
func without(r diagnose.Report, k diagnose.FindingKey) diagnose.Report {
	drop := func(f diagnose.Finding) bool { return f.Key() == k }
	r.Findings = slices.DeleteFunc(slices.Clone(r.Findings), drop)
	r.Nodes = slices.Clone(r.Nodes)
	for i := range r.Nodes {
		r.Nodes[i].Findings = slices.DeleteFunc(slices.Clone(r.Nodes[i].Findings), drop)
	}
	return r
}

// changedReports returns two collections of the demo cluster: in the second, added is new and
// resolved is gone; the second was read a minute after the first.
func changedReports(t *testing.T) (first, second diagnose.Report, added, resolved diagnose.Finding) {
	t.Helper()
	r := demoReport(t)
	for _, n := range r.Nodes {
		if len(n.Findings) > 0 {
			added = n.Findings[0]
			break
		}
	}
	for _, f := range r.Findings {
		if f.ID != added.ID && f.Node != added.Node {
			resolved = f
			break
		}
	}
	if added.ID == "" || resolved.ID == "" {
		t.Fatal("the demo report has no two findings of different checks on different nodes")
	}
	first, second = without(r, added.Key()), without(r, resolved.Key())
	first.Taken = time.Date(2026, 12, 1, 12, 4, 5, 0, time.UTC)
	second.Taken = first.Taken.Add(time.Minute)
	return first, second, added, resolved
}

func TestReloadMarksNewFindingsAndListsResolvedOnes(t *testing.T) {
	first, second, added, resolved := changedReports(t)
	m := ready(t, first, 160, 40)
	if strings.Contains(press(t, m, "f").View(), "resolved since") {
		t.Fatal("the first collection lists resolved findings")
	}
	m = update(t, m, reportMsg{report: second})
	if !m.data.changes.isNew(added) || len(m.data.changes.added) != 1 {
		t.Fatalf("new findings: got %v, want only %v", m.data.changes.added, added.Key())
	}
	if len(m.data.changes.resolved) != 1 || m.data.changes.resolved[0].Key() != resolved.Key() {
		t.Fatalf("resolved: got %v, want only %v", m.data.changes.resolved, resolved.Key())
	}
	row := m.data.rows[m.data.byName[added.Node]]
	if want := row.cells[colFindings]; !strings.HasSuffix(want, "+1") {
		t.Errorf("node %s's finding count is %q, want it marked +1", added.Node, want)
	}
	for _, rw := range m.data.rows {
		if rw.name != added.Node && strings.Contains(rw.cells[colFindings], newGlyph) {
			t.Errorf("node %s's count %q is marked but has no new finding", rw.name, rw.cells[colFindings])
		}
	}
	f := press(t, m, "f")
	view := f.View()
	if !strings.Contains(view, "✔ 1 resolved since 12:04:05: "+resolved.ID) {
		t.Errorf("the findings view lacks the resolved line:\n%s", view)
	}
	var groupLine string
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, added.ID+" ") {
			groupLine = l
		}
	}
	if !strings.Contains(groupLine, "+1 new") {
		t.Errorf("the %s group is not marked new: %q", added.ID, groupLine)
	}
	m = update(t, m, reportMsg{report: second})
	if len(m.data.changes.added) != 0 || len(m.data.changes.resolved) != 0 {
		t.Errorf("an unchanged reload still marks changes: %+v", m.data.changes)
	}
}

func TestOpenedGroupMarksTheNewFinding(t *testing.T) {
	first, second, added, _ := changedReports(t)
	m := update(t, ready(t, first, 160, 40), reportMsg{report: second})
	m = press(t, m, "f")
	for i, g := range m.findings.groups {
		if m.data.groups[g].id == added.ID {
			m.findings.list.cursor = i
		}
	}
	view := press(t, m, "enter").View()
	if !strings.Contains(view, newGlyph+"new node/"+added.Node) {
		t.Fatalf("the opened %s group does not mark node/%s new:\n%s", added.ID, added.Node, view)
	}
	if n := strings.Count(view, newGlyph+"new "); n != 1 {
		t.Errorf("%d findings marked new, want 1:\n%s", n, view)
	}
}

// TestChangedFindingsScreen is the findings view at 80x24 after a reload that added one
// finding and resolved another; run `go test ./pkg/tui -update` to rewrite it.
func TestChangedFindingsScreen(t *testing.T) {
	first, second, _, _ := changedReports(t)
	m := update(t, ready(t, first, 80, 24), reportMsg{report: second})
	golden.RequireEqual(t, []byte(press(t, m, "f").View()))
}

// TestChangedFindingsScreenWide is the same at 200x60.
func TestChangedFindingsScreenWide(t *testing.T) {
	first, second, _, _ := changedReports(t)
	m := update(t, ready(t, first, 200, 60), reportMsg{report: second})
	golden.RequireEqual(t, []byte(press(t, m, "f").View()))
}
