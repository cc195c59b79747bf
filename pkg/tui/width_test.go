package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// TestNodeNamesWholeFrom160Columns: from 160 columns every node name of the demo shows whole,
// and the level column names levels only once names and the other columns fit; at 80 columns
// the names give way before the core columns.
func TestNodeNamesWholeFrom160Columns(t *testing.T) {
	r := demoReport(t)
	for _, w := range []int{160, 200} {
		m := ready(t, r, w, 60)
		for _, n := range r.Nodes {
			if got := m.nodes.layout.widths[colName]; got < len(n.Identity.Node) {
				t.Errorf("%d columns: the name column is %d wide, %s is cut", w, got, n.Identity.Node)
			}
		}
		for _, line := range strings.Split(m.View(), "\n") {
			if strings.Contains(line, "ip-10-0-") && strings.Contains(line, ".us-west-2.…") {
				t.Errorf("%d columns: a node name is cut: %q", w, line)
			}
		}
	}
	for _, c := range []int{colPool, colType, colZone, colENIs, colFindings} {
		if m := ready(t, r, 80, 24); !contains(m.nodes.layout.show, c) {
			t.Errorf("80 columns: column %s dropped", columns()[c].title)
		}
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestInheritedStatusMarkedWithoutColour: without colour, a node whose level cell shows a
// status inherited from its subnet (no finding of its own) is told from a node whose own
// findings are critical by the mark after its glyph, at 80 columns and at 160; the full help
// says what the mark means.
func TestInheritedStatusMarkedWithoutColour(t *testing.T) {
	r := demoReport(t)
	var own, inherited string
	for _, n := range r.Nodes {
		switch {
		case n.Status == "critical" && own == "":
			own = n.Identity.Node
		case n.InheritedStatus == "critical" && n.Status == "ok" && len(n.Findings) == 0 && inherited == "":
			inherited = n.Identity.Node
		}
	}
	if own == "" || inherited == "" {
		t.Fatalf("the demo has no node with a critical of its own (%q) or only an inherited one (%q)", own, inherited)
	}
	for _, w := range []int{80, 160} {
		m := ready(t, r, w, 60)
		view := ansi.Strip(m.View())
		if got := rowGlyph(t, view, inherited); got != "✖"+inheritedMark {
			t.Errorf("%d columns: %s (inherited critical) shows %q, want %q", w, inherited, got, "✖"+inheritedMark)
		}
		if got := rowGlyph(t, view, own); got != "✖" {
			t.Errorf("%d columns: %s (its own critical) shows %q, want %q", w, own, got, "✖")
		}
		if help := press(t, m, "?").helpView(); !strings.Contains(help, "✖"+inheritedMark+" inherited status") {
			t.Errorf("%d columns: the full help does not explain the mark:\n%s", w, help)
		}
	}
}

// rowGlyph returns the level cell of the row of node name in view.
func rowGlyph(t *testing.T, view, name string) string {
	t.Helper()
	for _, line := range strings.Split(view, "\n") {
		if f := strings.Fields(strings.TrimPrefix(line, "▸")); len(f) > 1 && strings.HasPrefix(name, strings.TrimSuffix(f[1], "…")) {
			return f[0]
		}
	}
	t.Fatalf("no row of %s in\n%s", name, view)
	return ""
}

// TestCheckIDsWholeWhenWide: from 120 columns the findings view shows every check ID whole,
// the longest of the catalogue included.
func TestCheckIDsWholeWhenWide(t *testing.T) {
	const long = "efa-security-group-self-rule-missing"
	r := diagnose.Report{Nodes: demoReport(t).Nodes, Findings: []diagnose.Finding{
		{ID: long, Severity: diagnose.Warning, Resource: "securitygroup/sg-1", Message: "the group lets no EFA traffic in from itself"},
		{ID: "eni-leaked", Severity: diagnose.Warning, Resource: "eni/eni-1", Message: "available"},
	}}
	for _, w := range []int{120, 160} {
		view := ansi.Strip(press(t, ready(t, r, w, 30), "f").View())
		if !strings.Contains(view, long+" ") {
			t.Errorf("%d columns: %s is cut:\n%s", w, long, view)
		}
	}
}

// TestSubnetNodeCountsReadableAt80: at 80 columns each subnet's node count ends its line,
// never followed by a cut class name.
func TestSubnetNodeCountsReadableAt80(t *testing.T) {
	m := press(t, ready(t, demoReport(t), 80, 40), "s")
	view := ansi.Strip(m.View())
	lines := 0
	for _, line := range strings.Split(view, "\n") {
		if !strings.Contains(line, " subnet-") || !strings.Contains(line, " us-west-2") {
			continue
		}
		lines++
		f := strings.Fields(line)
		if last := f[len(f)-1]; strings.Contains(last, "…") || strings.Trim(last, "0123456789") != "" {
			t.Errorf("the line does not end in its node count: %q", line)
		}
	}
	if lines == 0 || strings.Contains(view, "NODES…") {
		t.Errorf("no subnet lines, or a cut heading:\n%s", view)
	}
}

// TestFilterAndToggleGoToTheFirstRow: in the nodes, findings and subnets views, a filter typed
// or a severity toggled puts the cursor on the first row; coming back to the view from a sheet
// keeps it where it was.
func TestFilterAndToggleGoToTheFirstRow(t *testing.T) {
	demo := readyLoaded(t, demoLoaded(t), 120, 40)
	for _, tt := range []struct {
		name string
		keys []string
	}{
		{"nodes, filter", []string{"/", "g", "e", "n", "enter"}},
		{"nodes, toggle", []string{"2"}},
		{"nodes, filter cleared", []string{"/", "g", "e", "n", "esc"}},
		{"findings, toggle", []string{"f", "2"}},
		{"findings, filter", []string{"f", "/", "s", "u", "b", "enter"}},
		{"subnets, toggle", []string{"s", "1"}},
		{"subnets, filter", []string{"s", "/", "u", "s", "enter"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := demo
			if tt.keys[0] == "f" || tt.keys[0] == "s" {
				m = press(t, m, tt.keys[0])
				tt.keys = tt.keys[1:]
			}
			m = press(t, m, "down", "down")
			if m.activeList().cursor == 0 {
				t.Fatal("the cursor did not move down: the test proves nothing")
			}
			m = press(t, m, tt.keys...)
			l := m.activeList()
			first := 0
			for !l.selectable(first) {
				first++
			}
			if l.cursor != first || l.offset != 0 {
				t.Errorf("after %v: cursor %d offset %d, want the first row %d", tt.keys, l.cursor, l.offset, first)
			}
		})
	}
	m := press(t, demo, "down", "down")
	at := m.nodes.list.cursor
	back := press(t, m, "enter", "esc")
	if back.view != viewNodes || back.nodes.list.cursor != at {
		t.Errorf("back from the node sheet: view %d cursor %d, want the nodes table at %d", back.view, back.nodes.list.cursor, at)
	}
}

// TestTabBarFollowsTheSection: the node sheet's tab bar brackets the section on screen: the
// one holding the top line while scrolling, References once a reference is selected, and
// the right one again after the terminal is resized.
func TestTabBarFollowsTheSection(t *testing.T) {
	demo := readyLoaded(t, demoLoaded(t), 80, 40)
	n := nodeWithPoolAndSubnet(t, demo.data)
	m := demo.do(action{kind: actOpenNode, arg: n.Identity.Node})
	active := func(m Model) string { return m.node.sections[m.node.tab].tab.label }
	onScreen := func(m Model) string {
		at := ""
		for _, s := range m.node.sections {
			if s.line <= m.node.vp.YOffset {
				at = s.tab.label
			}
		}
		return at
	}
	if got := active(press(t, m, "tab")); got != "References" {
		t.Errorf("a reference selected: the tab bar shows %s, want References", got)
	}
	m = press(t, m, "}", "}", "}", "j", "j")
	if active(m) != onScreen(m) {
		t.Fatalf("scrolled: the tab bar shows %s, the top line is in %s", active(m), onScreen(m))
	}
	for _, w := range []int{160, 60} {
		m = update(t, m, tea.WindowSizeMsg{Width: w, Height: 40})
		if active(m) != onScreen(m) && !m.node.vp.AtBottom() {
			t.Errorf("resized to %d: the tab bar shows %s, the top line is in %s", w, active(m), onScreen(m))
		}
	}
}
