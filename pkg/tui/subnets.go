package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// subnetBar is the width of the bar in the subnets view.
const subnetBar = 20

// subnetsModel lists the subnets the nodes use, worst first.
type subnetsModel struct {
	d     *data
	shown []int
	list  cursorList
	width int
	// sel is the selection last narrowed to: a new one puts the cursor on the first row.
	sel selection
}

// setData shows a new report's subnets.
func (m subnetsModel) setData(d *data, sel selection) (screen, action) {
	m.d, m.sel = d, sel
	return m.apply(sel), action{}
}

// setSize fits the list into w columns and h lines.
func (m subnetsModel) setSize(_ theme, w, h int) screen {
	m.width = w
	m.list.resize(h - 1)
	return m
}

// apply shows the subnets sel matches; the severity toggles match a subnet's status (its worst
// finding, direct or inherited).
func (m subnetsModel) apply(sel selection) subnetsModel {
	if m.d == nil {
		return m
	}
	m.shown = nil
	for i, s := range m.d.subnets {
		if sel.match(levelSeverity(s.level), s.hay) {
			m.shown = append(m.shown, i)
		}
	}
	m.list.reset(len(m.shown), m.list.cursor)
	return m
}

// narrow applies sel to the subnets; a selection other than the last puts the cursor on the
// first row.
func (m subnetsModel) narrow(sel selection) screen {
	if sel != m.sel {
		m.sel = sel
		m.list.cursor, m.list.offset = 0, 0
	}
	return m.apply(sel)
}

// keys returns the subnets view's bindings.
func (m subnetsModel) keys(k keyMap) helpKeys {
	return helpKeys{
		short: append(k.listKeys(m.list, len(m.shown) > 0), k.Back, k.Filter, k.Nodes, k.Help, k.Quit),
		full:  [][]key.Binding{k.moveKeys(), append([]key.Binding{k.Open, k.Back}, k.narrowKeys()...), k.otherViewKeys(k.Subnets)},
	}
}

// update opens the sheet of the subnet under the cursor (its nodes, when the load has no
// snapshot to build sheets from) and moves the cursor.
func (m subnetsModel) update(k keyMap, msg tea.KeyMsg, _ selection) (screen, action) {
	switch {
	case key.Matches(msg, k.Open):
		if id, ok := m.selectedID(); ok {
			if _, sheet := m.d.subjects.sheet("subnet/" + id); sheet {
				return m, action{kind: actOpenSubject, arg: "subnet/" + id}
			}
			return m, action{kind: actNodesIn, arg: id}
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
func (m subnetsModel) wheel(delta int) screen {
	m.list.wheel(delta)
	return m
}

// where counts the subnets shown.
func (m subnetsModel) where() string {
	return fmt.Sprintf("subnets %d/%d", len(m.shown), len(m.d.subnets))
}

// selectedID returns the ID of the subnet under the cursor.
func (m subnetsModel) selectedID() (string, bool) {
	i, ok := m.list.selected()
	if !ok || i >= len(m.shown) {
		return "", false
	}
	return m.d.subnets[m.shown[i]].id, true
}

// wideSubnets is the screen width from which the subnets view shows CIDRs and a longer bar.
const wideSubnets = 110

// view renders the headings and the visible subnets.
func (m subnetsModel) view(th theme) string {
	wide := m.width >= wideSubnets
	barCells := stripBar
	if wide {
		barCells = subnetBar
	}
	cidr := func(s string) string {
		if wide {
			return fmt.Sprintf("%-18s  ", s)
		}
		return ""
	}
	// The classes column shows when it has room for a few characters beside the counts; a
	// node count is never followed by a cut name.
	classes := m.width-subnetFixed(wide, barCells) >= len(gap)+minClasses
	tail := func(c string) string {
		if classes {
			return "  " + c
		}
		return ""
	}
	var b strings.Builder
	head := fmt.Sprintf("    %-24s  %-10s  %s%-*s  %-16s  %5s%s", "SUBNET", "ZONE", cidr("CIDR"),
		barCells+2, "USED", "FREE", "NODES", tail("NODECLASSES"))
	b.WriteString(th.Label.Render(fit(head, m.width, false)))
	if len(m.shown) == 0 {
		b.WriteString("\n" + th.Dim.Render("  no subnets match"))
	}
	from, to := m.list.visible()
	for i := from; i < to; i++ {
		s := m.d.subnets[m.shown[i]]
		names := strings.Join(s.classes, ",")
		if names == "" {
			names = none
		}
		line := fmt.Sprintf("%s %-24s  %-10s  %s%s  %-16s  %5d%s", th.Level(s.level).Mark(), s.id,
			orDash(s.zone), cidr(orDash(s.cidr)), bar(th, s, barCells), freeText(s), s.nodes, tail(names))
		b.WriteString("\n" + cursorLine(th, line, i == m.list.cursor, m.width))
	}
	return b.String()
}

// minClasses is the fewest columns the subnets view gives its classes column.
const minClasses = 8

// subnetFixed is the width of a subnets view line up to its node count: the cursor and glyph,
// the subnet, zone, CIDR when wide, the bar, free addresses and the count.
func subnetFixed(wide bool, barCells int) int {
	w := 4 + 24 + 2 + 10 + 2 + barCells + 2 + 2 + 16 + 2 + 5
	if wide {
		w += 18 + 2
	}
	return w
}
