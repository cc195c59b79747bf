package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// open opens what is under the cursor: a node, a findings group, or a subnet's nodes.
func (m Model) open() Model {
	switch m.view {
	case viewNodes:
		if name, ok := m.nodes.selectedName(); ok {
			return m.openNode(name, viewNodes)
		}
	case viewFindings:
		if m.findings.open < 0 {
			m.findings = m.findings.enter(m.sel)
			return m
		}
		if f, ok := m.findings.selectedFinding(); ok && f.Node != "" {
			return m.openNode(f.Node, viewFindings)
		}
	case viewSubnets:
		if id, ok := m.subnets.selectedID(); ok {
			m.input.SetValue(id)
			m.sel = m.sel.withQuery(id)
			return m.switchTo(viewNodes)
		}
	}
	return m
}

// openNode shows node name's sheet; Esc returns to back.
func (m Model) openNode(name string, back view) Model {
	n, ok := m.nodeReport(name)
	if !ok {
		return m
	}
	m.view, m.back = viewNode, back
	m.node = newNodeModel(n, m.th, m.width, m.bodyHeight())
	return m.resize(m.width, m.height)
}

// goBack leaves the node view or an opened group, else clears the filter, else shows the nodes.
func (m Model) goBack() Model {
	switch {
	case m.view == viewNode:
		m.view = m.back
		return m.applySel().resize(m.width, m.height)
	case m.view == viewFindings && m.findings.open >= 0:
		m.findings.open = -1
		m.findings = m.findings.apply(m.sel)
		return m
	case m.sel.query != "":
		m.input.SetValue("")
		m.sel = m.sel.withQuery("")
		return m.applySel()
	case m.view != viewNodes:
		return m.switchTo(viewNodes)
	}
	return m
}

// activeList returns the cursor of the active list view, or nil in the node view.
func (m *Model) activeList() *cursorList {
	switch m.view {
	case viewNodes:
		return &m.nodes.list
	case viewFindings:
		return m.findings.active()
	case viewSubnets:
		return &m.subnets.list
	}
	return nil
}

// move handles the cursor and scrolling keys.
func (m Model) move(msg tea.KeyMsg) Model {
	k := m.keys
	if m.view == viewExplain {
		scroll(&m.explain.vp, k, msg)
		return m
	}
	if m.view == viewNode {
		vp := &m.node.vp
		switch {
		case key.Matches(msg, k.Up):
			vp.ScrollUp(1)
		case key.Matches(msg, k.Down):
			vp.ScrollDown(1)
		case key.Matches(msg, k.PageUp):
			vp.PageUp()
		case key.Matches(msg, k.PageDown):
			vp.PageDown()
		case key.Matches(msg, k.Home):
			vp.GotoTop()
		case key.Matches(msg, k.End):
			vp.GotoBottom()
		case key.Matches(msg, k.NextTab):
			m.node = m.node.jump(1)
			return m
		case key.Matches(msg, k.PrevTab):
			m.node = m.node.jump(-1)
			return m
		}
		m.node = m.node.scrolled()
		return m
	}
	l := m.activeList()
	switch {
	case key.Matches(msg, k.Up):
		l.move(-1)
	case key.Matches(msg, k.Down):
		l.move(1)
	case key.Matches(msg, k.PageUp):
		l.page(-1)
	case key.Matches(msg, k.PageDown):
		l.page(1)
	case key.Matches(msg, k.Home):
		l.top()
	case key.Matches(msg, k.End):
		l.bottom()
	}
	return m
}

// mouse scrolls the active view with the wheel.
func (m Model) mouse(msg tea.MouseMsg) Model {
	if m.state != stateReady || msg.Action != tea.MouseActionPress {
		return m
	}
	delta := 0
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		delta = -wheelLines
	case tea.MouseButtonWheelDown:
		delta = wheelLines
	default:
		return m
	}
	if m.view == viewExplain {
		wheel(&m.explain.vp, delta)
		return m
	}
	if m.view == viewNode {
		if delta < 0 {
			m.node.vp.ScrollUp(-delta)
		} else {
			m.node.vp.ScrollDown(delta)
		}
		m.node = m.node.scrolled()
		return m
	}
	m.activeList().wheel(delta)
	return m
}
