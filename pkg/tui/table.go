package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// column describes one column of the nodes table.
type column struct {
	title string
	// max is the widest the column grows; longer cells are cut with an ellipsis.
	max int
	// prio decides which columns a narrow screen keeps: lower is kept first.
	prio int
}

// columns returns the nodes table's columns, indexed by the col constants.
func columns() [numCols]column {
	return [numCols]column{
		colLevel:    {"", 10, 0},
		colCluster:  {"CLUSTER", 20, 1},
		colName:     {"NAME", 48, 0},
		colPool:     {"POOL", 16, 2},
		colType:     {"TYPE", 14, 3},
		colZone:     {"ZONE", 12, 4},
		colSubnet:   {"SUBNET", 24, 7},
		colIP:       {"IP", 15, 5},
		colENIs:     {"ENIS", 5, 6},
		colPods:     {"PODS/IPS", 9, 8},
		colEFA:      {"EFA", 5, 9},
		colPG:       {"PG", 16, 10},
		colFindings: {"FIND", 4, 1},
	}
}

// gap separates columns; the marker column before the first holds the cursor.
const (
	gap        = "  "
	markerCols = 2
	// minName is the narrowest the name column gets before other columns give way.
	minName = 24
	// corePrio is the lowest priority of the columns a screen keeps before the name column
	// grows to its full width: the rest (subnet, pods, EFA, placement group) and the level's
	// name come only after every name shows whole.
	corePrio = 6
)

// inheritedMark follows the level glyph of a node whose level cell shows an inherited
// status (a critical on its subnet, class or NodePool), so that without colour, or with the
// glyph alone, it is told from a node whose own findings are critical: "✖^" against "✖".
const inheritedMark = "^"

// layout is which columns show at a screen width, and how wide each is.
type layout struct {
	show   []int
	widths [numCols]int
}

// newLayout fits columns into width: the core columns by priority, each at most its natural
// width, with the name column at minName; then the name column grows to its full width;
// then the other columns by priority while they fit; then the level column names the level
// ("✖ critical (subnet)") when that fits too; what is left goes to the name column, up to its
// own width. A node name or a core column is never cut while a lesser column shows.
func newLayout(d *data, width int) layout {
	var l layout
	cols := columns()
	for c := range numCols {
		l.widths[c] = min(d.widths[c], cols[c].max)
	}
	l.widths[colLevel] = glyphWidth(d)
	name := l.widths[colName]
	l.widths[colName] = min(name, minName)
	used := markerCols + l.widths[colLevel] + len(gap) + l.widths[colName]
	chosen := [numCols]bool{colLevel: true, colName: true}
	add := func(from, to int) {
		for prio := from; prio <= to; prio++ {
			for c := range numCols {
				if c == colCluster && len(d.report.Clusters) < 2 {
					continue // one cluster: no column for it
				}
				if cols[c].prio == prio && !chosen[c] && used+len(gap)+l.widths[c] <= width {
					chosen[c] = true
					used += len(gap) + l.widths[c]
				}
			}
		}
	}
	add(1, corePrio)
	grow := min(name-l.widths[colName], max(width-used, 0))
	l.widths[colName] += grow
	used += grow
	add(corePrio+1, 10)
	if badge := d.widths[colLevel]; l.widths[colName] == name && used-l.widths[colLevel]+badge <= width {
		used += badge - l.widths[colLevel]
		l.widths[colLevel] = badge
	}
	l.widths[colName] = max(min(name, l.widths[colName]+width-used), 1)
	for c := range numCols {
		if chosen[c] {
			l.show = append(l.show, c)
		}
	}
	return l
}

// glyphWidth is the width of the level column when it shows glyphs only: the glyph, and the
// inherited mark when a row carries it.
func glyphWidth(d *data) int {
	for _, r := range d.rows {
		if r.inherited {
			return 1 + width(inheritedMark)
		}
	}
	return 1
}

// line renders cells in the layout's columns, styling the level cell with th: with the glyph
// and colour of level look, or of the cell's own level when look is empty.
func (l layout) line(b *strings.Builder, th theme, cells *[numCols]string, look string, inherited, heading bool) {
	for i, c := range l.show {
		if i > 0 {
			b.WriteString(gap)
		}
		cell := cells[c]
		if c == colLevel && !heading {
			lvl := th.Level(cell)
			if look != "" {
				lvl = th.Level(look)
				lvl.Name = cell
			}
			if l.widths[c] <= 1+width(inheritedMark) {
				cell = lvl.Mark()
				if inherited {
					cell += lvl.Style.Render(inheritedMark)
				}
			} else {
				cell = lvl.Badge()
			}
		}
		if i == len(l.show)-1 {
			b.WriteString(fit(cell, l.widths[c], false))
			continue
		}
		b.WriteString(fit(cell, l.widths[c], true))
	}
}

// fit cuts s to w columns with an ellipsis, and pads it to w when pad is set. A newline in s
// (a message of several lines) becomes a space: what fit returns is one line.
func fit(s string, w int, pad bool) string {
	s = oneLine(s)
	sw := width(s)
	if sw > w {
		return ansi.Truncate(s, w, "…")
	}
	if pad && sw < w {
		return s + strings.Repeat(" ", w-sw)
	}
	return s
}

// oneLine returns s with its newlines made spaces.
func oneLine(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	return strings.ReplaceAll(s, "\n", " ")
}

// width returns the display width of s, ignoring ANSI sequences.
func width(s string) int { return ansi.StringWidth(s) }

// levelWidth is the width of the widest level badge.
func levelWidth(st *style.Styles) int {
	w := 0
	for _, l := range []style.Level{st.Critical, st.Warning, st.Info, st.OK, st.Initialising, st.Terminating, st.Skipped} {
		w = max(w, width(l.Glyph+" "+l.Name))
	}
	return w
}
