package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// TestNodeTabsAreTheSheetsSections: on every node of both demo clusters, at a narrow and a wide
// screen, each tab of the node view jumps to the line its section's header is on, as the
// printer wrote it, in sheet order, References last; a Cilium node's Capacity tab is its
// Cilium IPAM section.
func TestNodeTabsAreTheSheetsSections(t *testing.T) {
	for _, ctx := range demo.Contexts() {
		s, err := demo.SnapshotOf(ctx)
		if err != nil {
			t.Fatal(err)
		}
		l := Loaded{Report: diagnose.Analyze(s, diagnose.Options{}), Index: diagnose.NewIndex(s)}
		for _, size := range [][2]int{{80, 24}, {200, 60}} {
			m := readyLoaded(t, l, size[0], size[1])
			for _, n := range l.Report.Nodes {
				m = m.do(action{kind: actOpenNode, arg: n.Identity.Node})
				if m.view != viewNode {
					t.Fatalf("%s: view %d, want the node sheet", n.Identity.Node, m.view)
				}
				content := strings.Split(nodeContent(m), "\n")
				last := -1
				for i, sec := range m.node.sections {
					if sec.line <= last {
						t.Errorf("%s %dx%d: section %d (%s) at line %d, not after %d", n.Identity.Node, size[0], size[1], i, sec.tab.label, sec.line, last)
					}
					last = sec.line
					got := strings.TrimSpace(ansi.Strip(content[sec.line]))
					if !strings.HasPrefix(got, sec.tab.header) && (sec.tab.alt == "" || !strings.HasPrefix(got, sec.tab.alt)) {
						t.Errorf("%s %dx%d: tab %s jumps to %q", n.Identity.Node, size[0], size[1], sec.tab.label, got)
					}
				}
				if n.Status != "skipped" && (len(m.node.sections) < 7 || m.node.sections[len(m.node.sections)-1].tab.label != "References") {
					t.Errorf("%s: %d sections, want every tab and References last: %+v", n.Identity.Node, len(m.node.sections), m.node.sections)
				}
				m = press(t, m, "esc")
			}
		}
	}
}

// nodeContent returns the whole content the node view lays out.
func nodeContent(m Model) string {
	_, content := m.node.lay(m.node.th, m.node.vp.Width, m.node.vp.Height, func(cols int, th theme) string {
		return printer.NodeSheet(m.node.report, m.node.uses, cols, th.Styles)
	}, nil)
	return content
}
