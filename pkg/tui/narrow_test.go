package tui

import (
	"slices"
	"testing"
)

// TestNarrowingMatchesAFullScan types, deletes and toggles its way through a filter over a
// 3,000-node report and checks after every key that the nodes table shows exactly what a scan
// of every row for the same selection shows: narrowing from an earlier query's rows, and going
// back to them on backspace, must not change what matches, its order, headings or counts.
func TestNarrowingMatchesAFullScan(t *testing.T) {
	m := ready(t, syntheticReport(3000), 200, 60)
	keys := []string{
		"/", "i", "p", "-", "1", "0", "-", "1", "2", "backspace", "backspace", "3", "backspace",
		"backspace", "backspace", "backspace", "backspace", "x", "backspace", "2", "enter",
		"1", "/", "-", "5", "enter", "1", "g", "/", "backspace", "backspace", "1", "enter", "g", "S", "/", "9",
	}
	narrowedOnce := false
	for i, k := range keys {
		m = update(t, m, keyMsg(k))
		if m.view != viewNodes {
			t.Fatalf("after key %d (%q): view %d, want the nodes table", i, k, m.view)
		}
		got := m.nodes
		if len(got.narrowed) > 1 {
			narrowedOnce = true
		}
		full := got
		full.narrowed = nil
		full = full.apply(m.sel, "")
		if !slices.Equal(got.lines, full.lines) {
			t.Fatalf("after key %d (%q), selection %+v: %d lines, a full scan gives %d (or they differ)", i, k, m.sel, len(got.lines), len(full.lines))
		}
		if gn, gc := got.shownKinds(); gn != full.nodes || gc != full.claims {
			t.Fatalf("after key %d (%q): counts %d nodes %d claims, a full scan gives %d and %d", i, k, gn, gc, full.nodes, full.claims)
		}
	}
	if !narrowedOnce {
		t.Fatal("no key narrowed from an earlier query's rows: the test does not exercise narrowing")
	}
}
