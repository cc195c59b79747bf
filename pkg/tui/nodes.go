package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// nodeLine is one line of the nodes table: a row, or a group heading when row is negative.
type nodeLine struct {
	row int
	// key and count describe a heading: the group's value and how many nodes it shows.
	key   string
	count int
}

// nodesModel is the nodes table: every node worst first, narrowed and grouped.
type nodesModel struct {
	d     *data
	group groupBy
	sort  sortBy
	// order is rows' indices in display order: sorted, then grouped.
	order  []int
	lines  []nodeLine
	list   cursorList
	layout layout
	width  int
	// narrowed is what the last applies matched, each selection's query containing the one
	// before: a query that extends one of them only needs to look at its rows, and deleting
	// characters goes back to one already matched. Nil after the order changes.
	narrowed []narrowing
	// nodes and claims count the nodes and the NodeClaims without a Node shown.
	nodes, claims int
	// sel is the selection last narrowed to: a new one puts the cursor on the first row.
	sel selection
}

// narrowing is the rows a selection matched, in display order.
type narrowing struct {
	sel  selection
	rows []int
}

// maxNarrowed bounds how many narrowings a nodes table keeps.
const maxNarrowed = 32

// narrowFrom returns the rows sel can match, in display order, and drops the narrowings sel
// does not extend. exact reports that the rows are what sel matched before.
func (m *nodesModel) narrowFrom(sel selection) (rows []int, exact bool) {
	for len(m.narrowed) > 0 {
		top := m.narrowed[len(m.narrowed)-1]
		if top.sel.only == sel.only && strings.Contains(sel.query, top.sel.query) {
			return top.rows, top.sel == sel
		}
		m.narrowed = m.narrowed[:len(m.narrowed)-1]
	}
	return m.order, false
}

// setData shows a new report, keeping the cursor on the same node when it is still there.
func (m nodesModel) setData(d *data, sel selection) (screen, action) {
	name, _ := m.selectedName()
	m.d, m.sel = d, sel
	m.layout = newLayout(d, m.width)
	m.order, m.narrowed = groupOrder(d.rows, sortOrder(d, m.sort), m.group), nil
	return m.apply(sel, name), action{}
}

// setSize fits the table into w columns and h lines, the column headings included.
func (m nodesModel) setSize(_ theme, w, h int) screen {
	m.width = w
	m.list.resize(h - 1)
	if m.d != nil {
		m.layout = newLayout(m.d, w)
	}
	return m
}

// cycleGroup switches to the next grouping.
func (m nodesModel) cycleGroup(sel selection) nodesModel {
	name, _ := m.selectedName()
	m.group = (m.group + 1) % numGroups
	m.order, m.narrowed = groupOrder(m.d.rows, sortOrder(m.d, m.sort), m.group), nil
	return m.apply(sel, name)
}

// cycleSort switches to the next order, keeping the cursor on the node under it.
func (m nodesModel) cycleSort(sel selection) nodesModel {
	name, _ := m.selectedName()
	m.sort = (m.sort + 1) % numSorts
	m.order, m.narrowed = groupOrder(m.d.rows, sortOrder(m.d, m.sort), m.group), nil
	return m.apply(sel, name)
}

// narrow applies sel: a selection other than the last (a filter typed, a severity toggled)
// puts the cursor on the first row; the same one (coming back to the table) keeps it on the
// node under it.
func (m nodesModel) narrow(sel selection) screen {
	if sel != m.sel {
		m.sel = sel
		m.list.cursor, m.list.offset = 0, 0
		return m.apply(sel, "")
	}
	name, _ := m.selectedName()
	return m.apply(sel, name)
}

// keys returns the nodes table's bindings.
func (m nodesModel) keys(k keyMap) helpKeys {
	return helpKeys{
		short: append(k.listKeys(m.list, m.selectable()), k.Filter, k.Group, k.Findings, k.Subnets, k.Help, k.Quit),
		full: [][]key.Binding{k.moveKeys(), append([]key.Binding{k.Open, k.Back}, append(k.narrowKeys(), k.Group, k.Sort)...),
			append(append([]key.Binding{k.Copy}, k.otherViewKeys(k.Nodes)...), m.legend()...)},
	}
}

// legend explains, in the full help, the mark of an inherited status when the level column
// shows glyphs and a row carries it.
func (m nodesModel) legend() []key.Binding {
	if m.d == nil || glyphWidth(m.d) == 1 || m.layout.widths[colLevel] > glyphWidth(m.d) {
		return nil
	}
	// A key no terminal sends: the binding is a line of the legend, never pressed.
	return []key.Binding{key.NewBinding(key.WithKeys("legend:inherited"), key.WithHelp("✖"+inheritedMark, "inherited status"))}
}

// update groups, opens the node under the cursor and moves the cursor.
func (m nodesModel) update(k keyMap, msg tea.KeyMsg, sel selection) (screen, action) {
	switch {
	case key.Matches(msg, k.Group):
		return m.cycleGroup(sel), action{}
	case key.Matches(msg, k.Sort):
		if m.d == nil {
			return m, action{}
		}
		return m.cycleSort(sel), action{}
	case key.Matches(msg, k.Open):
		if name, ok := m.selectedName(); ok {
			if m.d.rows[m.d.byName[name]].claim >= 0 {
				return m, action{kind: actOpenClaim, arg: name}
			}
			return m, action{kind: actOpenNode, arg: name}
		}
		return m, action{}
	case key.Matches(msg, k.Back):
		return m, action{kind: actBack}
	case m.list.moveKey(k, msg):
		return m, action{}
	}
	return m, action{kind: actPass}
}

// wheel moves the cursor with the mouse wheel.
func (m nodesModel) wheel(delta int) screen {
	m.list.wheel(delta)
	return m
}

// where counts the nodes shown and names the grouping.
func (m nodesModel) where() string {
	nodes, claims := m.shownKinds()
	s := fmt.Sprintf("nodes %d/%d", nodes, m.d.nodes)
	if all := len(m.d.rows) - m.d.nodes; all > 0 {
		s += fmt.Sprintf("  nodeclaims %d/%d", claims, all)
	}
	if m.group != groupNone {
		s += "  by " + m.group.String()
	}
	if m.sort != sortWorst {
		s += "  sort: " + m.sort.String()
	}
	return s
}

// apply rebuilds the visible lines for sel and puts the cursor on node name, or keeps its place.
func (m nodesModel) apply(sel selection, name string) nodesModel {
	if m.d == nil {
		return m
	}
	// A query that contains an earlier one matches a subset of what it matched, in the same order.
	from, exact := m.narrowFrom(sel)
	lines := make([]nodeLine, 0, len(m.lines))
	var matched []int
	if !exact {
		matched = make([]int, 0, len(from))
	}
	m.nodes, m.claims = 0, 0
	heading, key := -1, ""
	for _, ri := range from {
		r := &m.d.rows[ri]
		if !exact {
			if !sel.match(r.order.severity, r.hay) {
				continue
			}
			matched = append(matched, ri)
		}
		if r.claim >= 0 {
			m.claims++
		} else {
			m.nodes++
		}
		if m.group != groupNone {
			if k := r.groups[m.group]; heading < 0 || k != key {
				key, heading = k, len(lines)
				lines = append(lines, nodeLine{row: -1, key: k})
			}
			lines[heading].count++
		}
		lines = append(lines, nodeLine{row: ri})
	}
	m.lines = lines
	if !exact {
		if len(matched) == len(from) {
			matched = from
		}
		m.narrowed = append(m.narrowed[:len(m.narrowed):len(m.narrowed)], narrowing{sel: sel, rows: matched})
		if len(m.narrowed) > maxNarrowed {
			m.narrowed = m.narrowed[1:]
		}
	}
	skips := make([]bool, len(lines))
	cursor := m.list.cursor
	for i, l := range lines {
		skips[i] = l.row < 0
		if l.row >= 0 && name != "" && m.d.rows[l.row].name == name {
			cursor = i
		}
	}
	m.list.skips = skips
	m.list.reset(len(lines), cursor)
	return m
}

// groupOrder returns the row indices of order, which it reorders, grouped by g: groups in the
// order of their first node, each group's nodes in order.
func groupOrder(rows []row, order []int, g groupBy) []int {
	if g == groupNone {
		return order
	}
	first := map[string]int{}
	for i, ri := range order {
		if _, ok := first[rows[ri].groups[g]]; !ok {
			first[rows[ri].groups[g]] = i
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return first[rows[a].groups[g]] - first[rows[b].groups[g]] })
	return order
}

// selectedName returns the name of the node under the cursor.
func (m nodesModel) selectedName() (string, bool) {
	i, ok := m.list.selected()
	if m.d == nil || !ok || i >= len(m.lines) || m.lines[i].row < 0 {
		return "", false
	}
	return m.d.rows[m.lines[i].row].name, true
}

// selectable reports whether a node or NodeClaim is under the cursor.
func (m nodesModel) selectable() bool {
	_, ok := m.selectedName()
	return ok
}

// shown counts the nodes the table shows.
func (m nodesModel) shown() int {
	nodes, _ := m.shownKinds()
	return nodes
}

// shownKinds counts the nodes and the NodeClaims without a Node the table shows.
func (m nodesModel) shownKinds() (nodes, claims int) { return m.nodes, m.claims }

// view renders the column headings and the visible lines, height lines in all.
func (m nodesModel) view(th theme) string {
	var b strings.Builder
	var headings [numCols]string
	for c, col := range columns() {
		headings[c] = col.title
	}
	b.WriteString(strings.Repeat(" ", markerCols))
	var hb strings.Builder
	m.layout.line(&hb, th, &headings, "", false, true)
	b.WriteString(th.Label.Render(hb.String()))
	if len(m.lines) == 0 {
		b.WriteString("\n" + th.Dim.Render("  no nodes match: esc clears the filter, 1/2/3 toggle severities"))
	}
	from, to := m.list.visible()
	for i := from; i < to; i++ {
		b.WriteByte('\n')
		l := m.lines[i]
		if l.row < 0 {
			b.WriteString(th.Header.Render(fit(fmt.Sprintf("▾ %s %s (%d)", m.group, l.key, l.count), m.width, false)))
			continue
		}
		var rb strings.Builder
		if i == m.list.cursor {
			rb.WriteString("▸ ")
		} else {
			rb.WriteString("  ")
		}
		r := &m.d.rows[l.row]
		m.layout.line(&rb, th, &r.cells, r.look, r.inherited, false)
		if i == m.list.cursor {
			b.WriteString(th.Selected.Render(ansi.Strip(rb.String())))
			continue
		}
		b.WriteString(rb.String())
	}
	return b.String()
}
