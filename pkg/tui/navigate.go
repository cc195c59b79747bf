package tui

import tea "github.com/charmbracelet/bubbletea"

// do carries out what the active view asked for after a key.
func (m Model) do(act action) Model {
	switch act.kind {
	case actBack:
		return m.goBack()
	case actShow:
		return m.switchTo(act.to)
	case actOpenNode:
		return m.openNode(act.arg, m.view)
	case actNodesIn:
		if len(m.trail) > 0 {
			m.trail = append(m.trail, step{from: m.view, query: m.sel.query})
		}
		m.input.SetValue(act.arg)
		m.sel = m.sel.withQuery(act.arg)
		return m.switchTo(viewNodes)
	case actSubnet:
		m.trail = append(m.trail, step{from: m.view, query: m.sel.query})
		m.input.SetValue(act.arg)
		m.sel = m.sel.withQuery(act.arg)
		return m.switchTo(viewSubnets)
	case actOpenFinding:
		return m.openFinding()
	case actExplain:
		return m.openExplain(act.arg)
	case actOpenClaim:
		return m.openClaim(act.arg, m.view)
	case actOpenSubject:
		return m.openSubject(act.arg, m.view)
	}
	return m
}

// openNode shows node name's sheet; Esc returns to back.
func (m Model) openNode(name string, back view) Model {
	n, ok := m.data.node(name)
	if !ok {
		return m
	}
	m.view = viewNode
	m.node = newNodeModel(n, back, m.th, m.width, m.bodyHeight())
	return m.resize(m.width, m.height)
}

// openFinding shows the sheet of the finding under the findings view's cursor; Esc returns to
// the findings.
func (m Model) openFinding() Model {
	f, ok := m.findings.selectedFinding()
	if !ok {
		return m
	}
	m.view = viewFinding
	m.finding = newFindingModel(m.data, f, viewFindings, m.th, m.width, m.bodyHeight())
	return m.resize(m.width, m.height)
}

// openClaim shows the sheet of NodeClaim name (nodeclaim/NAME); Esc returns to back.
func (m Model) openClaim(name string, back view) Model {
	c, ok := m.data.claim(name)
	if !ok {
		return m
	}
	m.view = viewClaim
	m.claim = newClaimModel(c, m.data.report.Taken, back, m.th, m.width, m.bodyHeight())
	return m.resize(m.width, m.height)
}

// openExplain shows check id's catalogue sheet; Esc or q returns to the active view.
func (m Model) openExplain(id string) Model {
	back := m.view
	m.view = viewExplain
	m.explain = newExplainModel(id, back, m.th, m.width, m.bodyHeight())
	return m.resize(m.width, m.height)
}

// step is a view left by following a reference, and the filter it had.
type step struct {
	from  view
	query string
}

// goBack returns along the trail when the view was reached by following a reference, else
// clears the filter, else shows the nodes: what Esc does once a list view has nothing of its
// own left to close.
func (m Model) goBack() Model {
	switch {
	case len(m.trail) > 0:
		last := m.trail[len(m.trail)-1]
		m.trail = m.trail[:len(m.trail)-1]
		m.input.SetValue(last.query)
		m.sel = m.sel.withQuery(last.query)
		return m.switchTo(last.from)
	case m.sel.query != "":
		m.input.SetValue("")
		m.sel = m.sel.withQuery("")
		return m.applySel()
	case m.view != viewNodes:
		return m.switchTo(viewNodes)
	}
	return m
}

// mouse scrolls the active view with the wheel.
func (m Model) mouse(msg tea.MouseMsg) Model {
	if m.state != stateReady || msg.Action != tea.MouseActionPress {
		return m
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		m.put(m.active().wheel(-wheelLines))
	case tea.MouseButtonWheelDown:
		m.put(m.active().wheel(wheelLines))
	}
	return m
}
