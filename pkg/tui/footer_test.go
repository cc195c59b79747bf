package tui

import (
	"testing"

	"github.com/charmbracelet/bubbles/key"
)

// footerStates are views in the states where a key can have nothing to do: every view, an
// empty list, a sheet with a reference selected and at its end.
func footerStates(t *testing.T) map[string]Model {
	t.Helper()
	states := everyView(t)
	demo := states["nodes"]
	states["nodes, none match"] = press(t, demo, "/", "x", "y", "z", "q", "enter")
	states["findings, none match"] = press(t, demo, "f", "/", "x", "y", "z", "q", "enter")
	states["subnets, none match"] = press(t, demo, "s", "/", "x", "y", "z", "q", "enter")
	states["node sheet, link selected"] = press(t, states["node sheet"], "tab")
	states["node sheet, at its end"] = press(t, states["node sheet"], "end")
	return states
}

// TestFooterKeysDoSomething presses every key the footer names, in every view and state, and
// fails when the screen stays the same and no command comes back: the footer names only keys
// that do something here.
func TestFooterKeysDoSomething(t *testing.T) {
	for name, m := range footerStates(t) {
		keys := m.active().keys(m.keys)
		for _, b := range keys.short {
			k := pressable(b)
			next, cmd := pressCmd(t, m, k)
			if cmd == nil && next.View() == m.View() {
				t.Errorf("%s: the footer shows %q (%s), which changes nothing here", name, b.Help().Key, b.Help().Desc)
			}
		}
	}
}

// TestFullHelpNamesNoKeyOfTheViewItself: the full help of the nodes, findings and subnets views
// does not offer the key that shows the view already shown.
func TestFullHelpNamesNoKeyOfTheViewItself(t *testing.T) {
	states := everyView(t)
	for name, own := range map[string]string{"nodes": "n", "findings": "f", "subnets": "s"} {
		m := states[name]
		for _, col := range m.active().keys(m.keys).full {
			for _, b := range col {
				if pressable(b) == own {
					t.Errorf("%s: the full help offers %q (%s), the view already shown", name, own, b.Help().Desc)
				}
			}
		}
	}
}

// pressable is the key of b that keyMsg can press.
func pressable(b key.Binding) string { return b.Keys()[0] }
