package tui

import (
	"slices"
	"strings"
	"testing"
)

func TestNaturalCompare(t *testing.T) {
	got := []string{"ip-10-0-50-100", "ip-10-0-50-20", "ip-10-0-5-9", "10.0.1.10", "10.0.1.9", "node-b", "node-a", "i-007", "i-7", "x"}
	slices.SortFunc(got, naturalCompare)
	want := []string{"10.0.1.9", "10.0.1.10", "i-007", "i-7", "ip-10-0-5-9", "ip-10-0-50-20", "ip-10-0-50-100", "node-a", "node-b", "x"}
	if !slices.Equal(got, want) {
		t.Errorf("natural order %q, want %q", got, want)
	}
	for _, p := range [][2]string{{"a", "a"}, {"a1", "a1"}} {
		if naturalCompare(p[0], p[1]) != 0 {
			t.Errorf("%q and %q compare unequal", p[0], p[1])
		}
	}
}

// TestRowsSortNaturally: rows of the same level and finding count, and the name order of the
// nodes table, read ip-10-0-50-20 before ip-10-0-50-100.
func TestRowsSortNaturally(t *testing.T) {
	rows := []row{{name: "ip-10-0-50-100", node: 0, claim: -1}, {name: "ip-10-0-50-20", node: 1, claim: -1}}
	sortRows(rows)
	if rows[0].name != "ip-10-0-50-20" {
		t.Errorf("sortRows: %s first, want ip-10-0-50-20", rows[0].name)
	}
	if c := compareCells("ip-10-0-50-100", "ip-10-0-50-20"); c <= 0 {
		t.Errorf("compareCells(ip-10-0-50-100, ip-10-0-50-20) = %d, want after", c)
	}
	if c := compareCells(none, "a"); c <= 0 {
		t.Errorf("an unknown cell sorts before a known one")
	}
}

// TestFooterDropsKeysNeverWords: at every width from 20 (the TUI's least) to 100 columns the
// footer holds whole key bindings only, never one cut mid-word.
func TestFooterDropsKeysNeverWords(t *testing.T) {
	r := demoReport(t)
	for w := 20; w <= 100; w++ {
		m := ready(t, r, w, 24)
		footer := m.helpView()
		if width(footer) > w {
			t.Errorf("at %d: footer of %d columns: %q", w, width(footer), footer)
		}
		if strings.Contains(footer, "…") {
			t.Errorf("at %d: footer cut mid-word: %q", w, footer)
		}
	}
}
