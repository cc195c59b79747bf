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
		m, back := m.leaveSheet()
		return m.openNode(act.arg, back)
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
		m, back := m.leaveSheet()
		return m.openSheet(claimSheet(act.arg), back)
	case actOpenSubject:
		m, back := m.leaveSheet()
		return m.openSheet(subjectPage(act.arg), back)
	}
	return m
}

// maxSheets is how many sheets the sheet path keeps; following more forgets the oldest.
const maxSheets = 32

// isSheet reports whether v shows one subject (a node, NodeClaim, finding, subnet, NodePool,
// class or placement group) rather than a list.
func isSheet(v view) bool {
	return v == viewNode || v == viewSheet
}

// leaveSheet is where a sheet about to open goes back to: the active view, or, when that is a
// sheet, the sheet itself, kept on the sheet path.
func (m Model) leaveSheet() (Model, view) {
	if !isSheet(m.view) {
		return m, m.view
	}
	if len(m.sheets) == maxSheets {
		m.sheets = m.sheets[1:]
	}
	m.sheets = append(m.sheets[:len(m.sheets):len(m.sheets)], viewScreen{id: m.view, screen: m.active()})
	return m, viewPrev
}

// backToSheet shows the latest sheet of the sheet path again, brought up to the loaded report
// (it goes back further when its subject is gone), or the nodes when the path is empty.
func (m Model) backToSheet() Model {
	if len(m.sheets) == 0 {
		return m.switchTo(viewNodes)
	}
	last := m.sheets[len(m.sheets)-1]
	m.sheets = m.sheets[:len(m.sheets)-1]
	next, act := last.screen.setData(m.data, m.sel)
	m.put(next)
	if act.kind == actShow {
		return m.switchTo(act.to)
	}
	return m.switchTo(last.id)
}

// openNode shows node name's sheet; Esc returns to back.
func (m Model) openNode(name string, back view) Model {
	n, ok := m.data.node(name)
	if !ok {
		return m
	}
	m.view = viewNode
	m.node = newNodeModel(m.data, n, back, m.th, m.width, m.bodyHeight())
	return m.resize(m.width, m.height)
}

// openFinding shows the sheet of the finding under the findings view's cursor; Esc returns to
// the findings.
func (m Model) openFinding() Model {
	f, ok := m.findings.selectedFinding()
	if !ok {
		return m
	}
	return m.openSheet(findingSheet(f), viewFindings)
}

// openSheet shows the sheet find finds, when the report holds its subject; Esc returns to back.
func (m Model) openSheet(find pageFinder, back view) Model {
	s, ok := newSheetModel(m.data, find, back, m.th, m.width, m.bodyHeight())
	if !ok {
		return m
	}
	m.view, m.sheet = viewSheet, s
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
