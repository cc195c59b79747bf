package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// findingsModel lists findings grouped by check ID; opening a group lists its findings.
type findingsModel struct {
	d *data
	// groups are the shown groups' indices, and counts how many of each group's findings show.
	groups []int
	counts []int
	list   cursorList
	// open is the index of the opened group in d.groups, or -1 when the groups are listed.
	open  int
	items []int
	inner cursorList
	width int
	// height is the lines the view has; the list of groups leaves one for the resolved line.
	height int
	// sel is the selection last narrowed to: a new one puts the cursors on the first rows.
	sel selection
}

// newFindingsModel lists no groups until setData.
func newFindingsModel() findingsModel { return findingsModel{open: -1} }

// setData shows a new report's findings; an opened group stays open while it exists.
func (m findingsModel) setData(d *data, sel selection) (screen, action) {
	openID := ""
	if m.open >= 0 && m.d != nil {
		openID = m.d.groups[m.open].id
	}
	m.d, m.open, m.sel = d, -1, sel
	for i, g := range d.groups {
		if g.id == openID {
			m.open = i
		}
	}
	return m.apply(sel), action{}
}

// setSize fits the list into w columns and h lines.
func (m findingsModel) setSize(_ theme, w, h int) screen {
	m.width, m.height = w, h
	m.list.resize(h - 1 - m.resolvedLines())
	m.inner.resize(h - 1)
	return m
}

// resolvedLines is how many lines take the place of groups under their list: the resolved
// line when findings resolved and the checks-not-run line when checks did not run, each when
// the view has room for it beside a group.
func (m findingsModel) resolvedLines() int {
	if m.d == nil {
		return 0
	}
	n := 0
	if len(m.d.changes.resolved) > 0 && m.height >= 3 {
		n++
	}
	if len(m.d.report.NotRun) > 0 && m.height >= 3+n {
		n++
	}
	return n
}

// apply shows the groups, and the opened group's findings, that sel matches.
func (m findingsModel) apply(sel selection) findingsModel {
	if m.d == nil {
		return m
	}
	m.groups, m.counts = nil, nil
	for gi, g := range m.d.groups {
		n := 0
		for fi, f := range g.findings {
			if sel.match(f.Severity, g.hays[fi]) {
				n++
			}
		}
		if n > 0 {
			m.groups, m.counts = append(m.groups, gi), append(m.counts, n)
		}
	}
	m.list.resize(m.height - 1 - m.resolvedLines())
	m.list.reset(len(m.groups), m.list.cursor)
	m.items = nil
	if m.open >= 0 {
		g := m.d.groups[m.open]
		for fi, f := range g.findings {
			if sel.match(f.Severity, g.hays[fi]) {
				m.items = append(m.items, fi)
			}
		}
	}
	m.inner.reset(len(m.items), m.inner.cursor)
	return m
}

// narrow applies sel to the groups and the opened group; a selection other than the last puts
// the cursors on the first rows.
func (m findingsModel) narrow(sel selection) screen {
	if sel != m.sel {
		m.sel = sel
		m.list.cursor, m.list.offset, m.inner.cursor, m.inner.offset = 0, 0, 0, 0
	}
	return m.apply(sel)
}

// active returns the list the cursor keys move.
func (m *findingsModel) active() *cursorList {
	if m.open >= 0 {
		return &m.inner
	}
	return &m.list
}

// enter opens the group under the cursor, with sel applied to its findings.
func (m findingsModel) enter(sel selection) findingsModel {
	i, ok := m.list.selected()
	if m.open >= 0 || !ok || i >= len(m.groups) {
		return m
	}
	m.open = m.groups[i]
	m.inner.cursor, m.inner.offset = 0, 0
	return m.apply(sel)
}

// selectedFinding returns the finding under the cursor in an opened group.
func (m findingsModel) selectedFinding() (diagnose.Finding, bool) {
	i, ok := m.inner.selected()
	if m.open < 0 || !ok || i >= len(m.items) {
		return diagnose.Finding{}, false
	}
	return m.d.groups[m.open].findings[m.items[i]], true
}

// selectedCheck returns the check ID of the finding under the cursor in an opened group, or of
// the group under the cursor in the list of groups.
func (m findingsModel) selectedCheck() (string, bool) {
	if m.open >= 0 {
		f, ok := m.selectedFinding()
		return f.ID, ok
	}
	i, ok := m.list.selected()
	if m.d == nil || !ok || i >= len(m.groups) {
		return "", false
	}
	return m.d.groups[m.groups[i]].id, true
}

// view renders the groups, or the opened group's findings, height lines at most.
func (m findingsModel) view(th theme) string {
	var b strings.Builder
	if m.open >= 0 {
		g := m.d.groups[m.open]
		b.WriteString(th.Header.Render(fit(fmt.Sprintf("%s  %s, %s: enter opens a finding, esc goes back",
			g.id, countOf(len(g.findings), "finding", "findings"), countOf(g.nodes, "node", "nodes")), m.width, false)))
		from, to := m.inner.visible()
		for i := from; i < to; i++ {
			f := g.findings[m.items[i]]
			subj := f.Resource
			if f.Node != "" {
				subj = "node/" + f.Node
			}
			line := th.Level(f.Severity.String()).Mark() + " " + th.Strong.Render(subj) + "  " + f.Message
			if m.d.changes.isNew(f) {
				line = th.Level(f.Severity.String()).Mark() + " " + th.Strong.Render(newGlyph+"new "+subj) + "  " + f.Message
			}
			b.WriteString("\n" + cursorLine(th, line, i == m.inner.cursor, m.width))
		}
		return b.String()
	}
	l := m.groupLayout()
	b.WriteString(th.Label.Render(fit(fmt.Sprintf("  %-10s  %-*s  %*s  %*s  FIRST MESSAGE", "LEVEL", l.id, "CHECK",
		l.count, l.countHead, l.nodes, "NODES"), m.width, false)))
	if len(m.groups) == 0 {
		b.WriteString("\n" + th.Dim.Render("  no findings match"))
	}
	from, to := m.list.visible()
	for i := from; i < to; i++ {
		g := m.d.groups[m.groups[i]]
		first := g.findings[0].Message
		if n := m.d.changes.newCount(g.findings); n > 0 {
			first = th.Strong.Render(fmt.Sprintf("%s%d new", newGlyph, n)) + "  " + first
		}
		line := fmt.Sprintf("%s  %s  %*d  %*d  %s", fit(th.Level(g.severity.String()).Badge(), 10, true),
			fit(g.id, l.id, true), l.count, m.counts[i], l.nodes, g.nodes, first)
		b.WriteString("\n" + cursorLine(th, line, i == m.list.cursor, m.width))
	}
	foot := m.resolvedLines()
	if foot > 0 && len(m.d.changes.resolved) > 0 {
		b.WriteString("\n" + fit("  "+resolvedLine(th, m.d.changes), m.width, false))
		foot--
	}
	if foot > 0 {
		b.WriteString("\n" + fit("  "+notRunLine(th, m.d.report.NotRun), m.width, false))
	}
	return b.String()
}

// groupColumns are the widths of the groups list's check, count and nodes columns.
type groupColumns struct {
	id, count, nodes int
	countHead        string
}

// minMessage is the width the groups list keeps for the first message before it gives the
// check column its full width.
const minMessage = 32

// groupLayout sizes the groups list to the width: the check column as wide as the longest
// check ID shown, the counts as wide as their headers; below 120 columns the
// count header is "N" and the check column gives way (down to 16, IDs cut with an ellipsis)
// until the first message has minMessage columns.
func (m findingsModel) groupLayout() groupColumns {
	l := groupColumns{count: 8, nodes: 5, countHead: "FINDINGS"}
	for _, i := range m.groups {
		l.id = max(l.id, len(m.d.groups[i].id))
	}
	l.id = max(l.id, len("CHECK"))
	if m.width >= 120 {
		return l
	}
	l.count, l.countHead = 3, "N"
	fixed := 2 + 10 + 2 + 2 + l.count + 2 + l.nodes + 2
	l.id = max(min(l.id, m.width-fixed-minMessage), 16)
	return l
}

// resolvedLine names the findings that resolved since the previous collection, in its order:
// "✔ 2 resolved since 12:04:05: ID node/NAME, ID RESOURCE".
func resolvedLine(th theme, c changes) string {
	at := "the last read"
	if !c.since.IsZero() {
		at = c.since.UTC().Format("15:04:05")
	}
	names := make([]string, len(c.resolved))
	for i, f := range c.resolved {
		subj := f.Resource
		if f.Node != "" {
			subj = "node/" + f.Node
		}
		names[i] = f.ID + " " + subj
	}
	return th.OK.Style.Render(fmt.Sprintf("%s %d resolved since %s:", th.OK.Glyph, len(c.resolved), at)) + " " +
		strings.Join(names, ", ")
}

// notRunLine names the checks that did not run and the sources each needs that could not be
// read, as check -o wide does: "not run: 2 checks: sg-missing-cluster-tag (needs ...), ...".
func notRunLine(th theme, notRun []diagnose.NotRun) string {
	parts := make([]string, len(notRun))
	for i, n := range notRun {
		parts[i] = n.ID + " (needs " + strings.Join(n.Needs, ", ") + ")"
	}
	return th.Dim.Render("not run: "+countOf(len(notRun), "check", "checks")+", for want of a source each needs:") + " " +
		strings.Join(parts, ", ")
}

// cursorLine prefixes line with the cursor marker, cuts it to w columns and highlights it
// when selected.
func cursorLine(th theme, line string, selected bool, w int) string {
	if !selected {
		return fit("  "+line, w, false)
	}
	// The row's own colours end in resets that would cut the highlight short: highlight the
	// plain text (the glyphs still say the severity).
	return th.Selected.Render(fit("▸ "+ansi.Strip(line), w, false))
}

// countOf writes "1 finding" or "3 findings".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
