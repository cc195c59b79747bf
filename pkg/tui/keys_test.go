package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// everyView returns a model showing each view: the lists, an opened group, each kind of sheet
// (node, NodeClaim, finding, subnet, NodePool) and the explain view.
func everyView(t *testing.T) map[string]Model {
	t.Helper()
	l := demoLoaded(t)
	demo := readyLoaded(t, l, 120, 40)
	n := nodeWithPoolAndSubnet(t, demo.data)
	return map[string]Model{
		"nodes":          demo,
		"findings":       press(t, demo, "f"),
		"group":          press(t, demo, "f", "enter"),
		"subnets":        press(t, demo, "s"),
		"explain":        press(t, demo, "f", "e"),
		"node sheet":     demo.do(action{kind: actOpenNode, arg: n.Identity.Node}),
		"finding sheet":  press(t, demo, "f", "down", "enter", "enter"),
		"subnet sheet":   demo.do(action{kind: actOpenSubject, arg: "subnet/" + n.Subnet.ID}),
		"NodePool sheet": demo.do(action{kind: actOpenSubject, arg: "nodepool/" + n.Identity.NodePool}),
		"NodeClaim sheet": ready(t, claimsReport(t), 120, 40).
			do(action{kind: actOpenClaim, arg: claimPrefix + tuiUnregClaim}),
	}
}

// TestHelpQuitAndEscAreTheSameInEveryView checks that in every view ? (and H) shows every key
// and Esc closes it again without leaving the view, and that q quits.
func TestHelpQuitAndEscAreTheSameInEveryView(t *testing.T) {
	for name, m := range everyView(t) {
		t.Run(name, func(t *testing.T) {
			for _, help := range []string{"?", "H"} {
				shown := press(t, m, help)
				if shown.view != m.view || !shown.help.ShowAll {
					t.Errorf("%s: view %d full help %t, want view %d with the full help", help, shown.view, shown.help.ShowAll, m.view)
				}
				if closed := press(t, shown, "esc"); closed.view != m.view || closed.help.ShowAll {
					t.Errorf("esc on the full help: view %d full help %t, want view %d without it", closed.view, closed.help.ShowAll, m.view)
				}
			}
			if full := press(t, m, "?").helpView(); !strings.Contains(full, "? ") || !strings.Contains(full, "q ") {
				t.Errorf("the full help lacks ? and q:\n%s", full)
			}
			_, cmd := m.Update(keyMsg("q"))
			if cmd == nil {
				t.Fatal("q returned no command, want tea.Quit")
			}
			if _, ok := cmd().(tea.QuitMsg); !ok {
				t.Errorf("q returned %T, want tea.QuitMsg", cmd())
			}
		})
	}
}

// TestEveryViewEscGoesBack checks that Esc leaves every view but the nodes, where it has
// nothing left to close.
func TestEveryViewEscGoesBack(t *testing.T) {
	for name, m := range everyView(t) {
		if name == "nodes" {
			continue
		}
		if back := press(t, m, "esc"); back.view == m.view && back.active().where() == m.active().where() {
			t.Errorf("%s: esc stayed on %s", name, m.active().where())
		}
	}
}

// TestEverySheetSelectsLinksWithTabAndBrackets checks that in every sheet Tab and ] select the
// same next reference, Shift-Tab and [ the same previous one, and that the references' heading
// and the footer name them.
func TestEverySheetSelectsLinksWithTabAndBrackets(t *testing.T) {
	for name, m := range everyView(t) {
		if !isSheet(m.view) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			if len(m.links().refs) < 2 {
				t.Fatalf("the sheet has references %+v, want two at least", m.links().refs)
			}
			for _, keys := range [][2][]string{
				{{"tab"}, {"]"}}, {{"tab", "tab"}, {"]", "]"}}, {{"shift+tab"}, {"["}}, {{"tab", "shift+tab"}, {"]", "["}},
			} {
				a, b := press(t, m, keys[0]...).links().pick, press(t, m, keys[1]...).links().pick
				if a != b || a < 0 {
					t.Errorf("%v selected reference %d, %v %d: want the same one", keys[0], a, keys[1], b)
				}
			}
			if screen := press(t, m, "tab").View(); !strings.Contains(screen, "References  "+refsHint) {
				t.Errorf("the References heading lacks %q:\n%s", refsHint, screen)
			}
			if footer := m.helpView(); !strings.Contains(footer, "tab/] links") {
				t.Errorf("footer %q lacks tab/] links", footer)
			}
		})
	}
}

// TestNodeSheetJumpsSectionsWithBraces checks that } and { (and → and ←) move between the node
// sheet's sections, while Tab selects a reference as ] does.
func TestNodeSheetJumpsSectionsWithBraces(t *testing.T) {
	m := everyView(t)["node sheet"]
	for _, keys := range [][]string{{"}", "}"}, {"right", "l"}, {"}", "}", "}", "{"}} {
		if got := press(t, m, keys...).node.tab; got != 2 {
			t.Errorf("%v: section %d, want 2", keys, got)
		}
	}
	// Tab selects the first reference, as ] does, scrolling to it: the section follows the scroll.
	if tab, bracket := press(t, m, "tab"), press(t, m, "]"); tab.node.tab != bracket.node.tab || tab.node.links.pick != bracket.node.links.pick {
		t.Errorf("tab: section %d reference %d, want those of ]: %d %d", tab.node.tab, tab.node.links.pick, bracket.node.tab, bracket.node.links.pick)
	}
	if footer := m.helpView(); !strings.Contains(footer, "}/→ section") {
		t.Errorf("footer %q lacks }/→ section", footer)
	}
}

// TestEverySheetSaysWhatIsBelow checks that every sheet longer than the screen says, at the
// status line's end, how many lines are below it, one fewer after a line down, and nothing
// once at the bottom; the lists never do.
func TestEverySheetSaysWhatIsBelow(t *testing.T) {
	for name, m := range everyView(t) {
		t.Run(name, func(t *testing.T) {
			m = m.resize(80, 16)
			s, ok := m.active().(scroller)
			if !ok {
				if strings.Contains(m.statusView(), "more line") {
					t.Errorf("a list's status line says what is below: %q", m.statusView())
				}
				return
			}
			n := s.below()
			if n < 3 {
				t.Fatalf("the sheet has %d lines below at 80x16, want a longer sheet", n)
			}
			want := fmt.Sprintf("↓ %d more lines", n)
			if status := m.statusView(); !strings.HasSuffix(status, want) || width(status) != 80 {
				t.Errorf("status line %q, want it to end in %q at column 80", status, want)
			}
			want = fmt.Sprintf("↓ %d more lines", n-1)
			if status := press(t, m, "down").statusView(); !strings.HasSuffix(status, want) {
				t.Errorf("after a line down: status line %q, want it to end in %q", status, want)
			}
			if status := press(t, m, "end").statusView(); strings.Contains(status, "more line") {
				t.Errorf("at the bottom: status line %q, want no mark", status)
			}
		})
	}
}
