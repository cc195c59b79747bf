package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// everyKey names a key of every binding in the key map, plus keys bound to nothing.
func everyKey() []string {
	return []string{
		"up", "down", "pgup", "pgdown", "home", "end", "G", "enter", "esc", "tab", "shift+tab",
		"left", "right", "h", "l", "}", "{", "]", "[", "j", "k", " ", "/", "1", "2", "3", "g", "n", "f", "s", "r", "?", "H", "e",
		"backspace", "x",
	}
}

// emptyScreens returns models whose active list shows nothing: a filter that matches nothing
// on every list view, an opened findings group narrowed to nothing, and a report without nodes.
func emptyScreens(t *testing.T) map[string]Model {
	t.Helper()
	r := demoReport(t)
	nothing := []string{"/", "z", "z", "z", "enter"}
	return map[string]Model{
		"nodes, filter matches nothing":     press(t, ready(t, r, 80, 24), nothing...),
		"findings, filter matches nothing":  press(t, ready(t, r, 80, 24), append([]string{"f"}, nothing...)...),
		"subnets, filter matches nothing":   press(t, ready(t, r, 80, 24), append([]string{"s"}, nothing...)...),
		"opened group, filter matches none": press(t, ready(t, r, 80, 24), append([]string{"f", "enter"}, nothing...)...),
		"nodes, grouped, matches nothing":   press(t, ready(t, r, 80, 24), append([]string{"g"}, nothing...)...),
		"report without nodes":              ready(t, diagnose.Report{}, 80, 24),
		"report without nodes, findings":    press(t, ready(t, diagnose.Report{}, 80, 24), "f"),
		"report without nodes, subnets":     press(t, ready(t, diagnose.Report{}, 80, 24), "s"),
		"report without nodes, tiny screen": ready(t, diagnose.Report{}, 1, 1),
	}
}

// TestEmptyListsTakeEveryKey presses every pair of keys on every screen whose list is empty:
// End then Enter used to put the cursor at -1 and crash with an index out of range.
func TestEmptyListsTakeEveryKey(t *testing.T) {
	keys := everyKey()
	for name, start := range emptyScreens(t) {
		t.Run(name, func(t *testing.T) {
			for _, first := range keys {
				for _, second := range keys {
					seq := fmt.Sprintf("%q %q", first, second)
					m := pressSafely(t, start, seq, first, second)
					if m == nil {
						return
					}
					if l := m.activeList(); l != nil && (l.cursor < 0 || (l.n > 0 && l.cursor >= l.n)) {
						t.Fatalf("after %s the cursor is %d on a list of %d", seq, l.cursor, l.n)
					}
				}
			}
		})
	}
}

// TestEndThenEnterOnNoMatch is the sequence that crashed: a filter matching nothing, End, Enter.
func TestEndThenEnterOnNoMatch(t *testing.T) {
	for _, tail := range [][]string{{"end", "enter"}, {"end", "esc"}, {"G", "enter"}, {"end", "up", "enter"}} {
		t.Run(strings.Join(tail, "+"), func(t *testing.T) {
			m := press(t, ready(t, demoReport(t), 80, 24), "/", "n", "o", "-", "s", "u", "c", "h", "enter")
			got := pressSafely(t, m, strings.Join(tail, " "), tail...)
			if got == nil {
				return
			}
			name, ok := got.nodes.selectedName()
			if shown := got.nodes.shown(); ok != (shown > 0) {
				t.Errorf("selected %q (%v) with %d nodes shown, want a node exactly when one shows", name, ok, shown)
			}
		})
	}
}

// pressSafely presses keys on m and renders the screen, failing the test (not the run) on a
// panic; it returns nil when one happened.
func pressSafely(t *testing.T, m Model, seq string, keys ...string) (got *Model) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Errorf("after %s: panic: %v", seq, p)
			got = nil
		}
	}()
	m = press(t, m, keys...)
	_ = m.View()
	return &m
}
