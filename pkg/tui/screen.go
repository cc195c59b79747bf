package tui

import tea "github.com/charmbracelet/bubbletea"

// screen is one view of the report. The root model keeps the typed views and asks the active
// one, through this interface, for its data, size, keys, key handling and rendering.
type screen interface {
	// setData shows a new report with sel applied; when what the view shows is gone, the
	// action (of kind actShow) names the view to go back to.
	setData(d *data, sel selection) (screen, action)
	// setSize lays the view out for a w by h area.
	setSize(th theme, w, h int) screen
	// narrow applies sel to what the view lists.
	narrow(sel selection) screen
	// keys returns the bindings the help footer shows for the view.
	keys(k keyMap) helpKeys
	// update handles a key; an action of kind actPass leaves it to the root model.
	update(k keyMap, msg tea.KeyMsg, sel selection) (screen, action)
	// wheel scrolls by delta lines, up when negative.
	wheel(delta int) screen
	// view renders the view's body.
	view(th theme) string
	// where names what the view shows, for the status line.
	where() string
}

// actionKind is what a view asks of the root model after a key.
type actionKind int

// The actions.
const (
	// The zero action: the view handled the key.
	_ actionKind = iota
	// actPass: the view has no use for the key; the root model's keys apply.
	actPass
	// actBack: Esc with nothing left to close in the view: clear the filter, else show the nodes.
	actBack
	// actShow: show view to.
	actShow
	// actOpenNode: open node arg, returning to the active view.
	actOpenNode
	// actNodesIn: list the nodes that match arg, a subnet ID.
	actNodesIn
	// actExplain: show the catalogue sheet of check arg.
	actExplain
	// actOpenClaim: open the sheet of NodeClaim arg (nodeclaim/NAME), returning to the active view.
	actOpenClaim
	// actOpenFinding: open the sheet of the finding under the findings view's cursor.
	actOpenFinding
	// actSubnet: show the subnets view filtered to subnet arg; Esc comes back.
	actSubnet
	// actOpenSubject: open the sheet of subject arg (subnet/ID, nodepool/NAME...), returning to the active view.
	actOpenSubject
)

// action is a view's request to the root model.
type action struct {
	kind actionKind
	to   view
	arg  string
}

// active returns the active view.
func (m Model) active() screen {
	switch m.view {
	case viewNode:
		return m.node
	case viewFindings:
		return m.findings
	case viewSubnets:
		return m.subnets
	case viewExplain:
		return m.explain
	case viewSheet:
		return m.sheet
	}
	return m.nodes
}

// viewScreen is a view and which one it is.
type viewScreen struct {
	id view
	screen
}

// screens returns every view.
func (m Model) screens() []viewScreen {
	return []viewScreen{{viewNodes, m.nodes}, {viewNode, m.node}, {viewFindings, m.findings}, {viewSubnets, m.subnets},
		{viewExplain, m.explain}, {viewSheet, m.sheet}}
}

// put stores s as the view of its type.
func (m *Model) put(s screen) {
	switch s := s.(type) {
	case nodesModel:
		m.nodes = s
	case nodeModel:
		m.node = s
	case findingsModel:
		m.findings = s
	case subnetsModel:
		m.subnets = s
	case explainModel:
		m.explain = s
	case sheetModel:
		m.sheet = s
	}
}
