package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// links returns the references of the active sheet.
func (m Model) links() refList {
	switch m.view {
	case viewNode:
		return m.node.links
	case viewSheet:
		return m.sheet.links
	}
	return refList{pick: -1}
}

// pickLink presses next the active sheet's next-link key until the selected reference is
// subject.
func pickLink(t *testing.T, m Model, next, subject string) Model {
	t.Helper()
	for range len(m.links().refs) + 1 {
		if l := m.links(); l.pick >= 0 && l.refs[l.pick].subject == subject {
			return m
		}
		m = press(t, m, next)
	}
	t.Fatalf("%s never selected %s among %+v", next, subject, m.links().refs)
	return m
}

// nodeWithPoolAndSubnet returns a demo node that has a subnet, a NodePool and a class.
func nodeWithPoolAndSubnet(t *testing.T, d *data) diagnose.NodeReport {
	t.Helper()
	for _, n := range d.report.Nodes {
		if n.Subnet != nil && n.Identity.NodePool != "" && n.Identity.NodeClass != "" && len(n.Findings) > 0 {
			return n
		}
	}
	t.Fatal("the demo has no node with findings, a subnet, a NodePool and a class")
	return diagnose.NodeReport{}
}

func TestNodeSheetReferencesLeadThroughSheetsAndBack(t *testing.T) {
	m := readyLoaded(t, demoLoaded(t), 120, 40)
	n := nodeWithPoolAndSubnet(t, m.data)
	m = m.do(action{kind: actOpenNode, arg: n.Identity.Node})
	if m.view != viewNode {
		t.Fatalf("view %d, want the node sheet", m.view)
	}
	if m.node.links.pick >= 0 || press(t, m, "enter").view != viewNode {
		t.Errorf("the node sheet opens with reference %d selected; enter must do nothing before ] selects one", m.node.links.pick)
	}
	var subjects []string
	for _, r := range m.node.links.refs {
		subjects = append(subjects, r.subject)
	}
	for _, want := range []string{"subnet/" + n.Subnet.ID, "nodepool/" + n.Identity.NodePool} {
		if !strings.Contains(strings.Join(subjects, " "), want) {
			t.Errorf("the node sheet's references %v lack %s", subjects, want)
		}
	}
	if strings.Contains(strings.Join(subjects, " "), "node/"+n.Identity.Node) {
		t.Errorf("the node sheet names itself: %v", subjects)
	}
	if view := m.View(); !strings.Contains(view, "References") {
		t.Errorf("the tab bar lacks the References section:\n%s", view)
	}

	// node -> subnet sheet -> another node in the subnet -> back, back, back.
	m = press(t, pickLink(t, m, "]", "subnet/"+n.Subnet.ID), "enter")
	if !m.onSubject() || m.sheet.where() != "subnet/"+n.Subnet.ID {
		t.Fatalf("enter on the subnet: view %d (%s), want its sheet", m.view, m.sheet.where())
	}
	if l := m.sheet.links; l.pick < 0 || l.refs[l.pick].subject != "subnets view" {
		t.Errorf("the subnet sheet does not select the subnets view: %+v", l)
	}
	var other string
	for _, r := range m.sheet.links.refs {
		if strings.HasPrefix(r.subject, "node/") && r.subject != "node/"+n.Identity.Node && r.openable() {
			other = r.subject
			break
		}
	}
	if other == "" {
		t.Fatalf("the subnet sheet lists no other node: %+v", m.sheet.links.refs)
	}
	m = press(t, pickLink(t, m, "tab", other), "enter")
	if m.view != viewNode || "node/"+m.node.name() != other {
		t.Fatalf("enter on %s: view %d node %s, want its sheet", other, m.view, m.node.name())
	}
	m = press(t, m, "esc")
	if !m.onSubject() || m.sheet.where() != "subnet/"+n.Subnet.ID {
		t.Fatalf("esc on %s: view %d (%s), want the subnet sheet", other, m.view, m.sheet.where())
	}
	m = press(t, m, "esc")
	if m.view != viewNode || m.node.name() != n.Identity.Node {
		t.Fatalf("esc on the subnet sheet: view %d node %s, want node %s", m.view, m.node.name(), n.Identity.Node)
	}
	m = press(t, m, "esc")
	if m.view != viewNodes || len(m.sheets) != 0 {
		t.Fatalf("esc on the first node: view %d with %d sheets kept, want the nodes and none", m.view, len(m.sheets))
	}
}

func TestNodePoolSheetReferencesItsClassAndNodes(t *testing.T) {
	m := readyLoaded(t, demoLoaded(t), 120, 40)
	n := nodeWithPoolAndSubnet(t, m.data)
	m = m.do(action{kind: actOpenNode, arg: n.Identity.Node})
	m = press(t, pickLink(t, m, "]", "nodepool/"+n.Identity.NodePool), "enter")
	if !m.onSubject() {
		t.Fatalf("view %d, want the NodePool sheet", m.view)
	}
	class := classSubject(n.Identity.NodeClassKind, n.Identity.NodeClass, n.Identity.AutoMode)
	m = press(t, pickLink(t, m, "tab", class), "enter")
	if !m.onSubject() || m.sheet.where() != class {
		t.Fatalf("enter on %s: view %d (%s), want its sheet", class, m.view, m.sheet.where())
	}
	found := false
	for _, r := range m.sheet.links.refs {
		found = found || r.subject == "nodepool/"+n.Identity.NodePool
	}
	if !found {
		t.Errorf("the class sheet does not name its NodePool: %+v", m.sheet.links.refs)
	}
	for range 2 {
		m = press(t, m, "esc")
	}
	if m.view != viewNode {
		t.Fatalf("two esc from the class: view %d, want the node sheet", m.view)
	}
}

func TestClaimSheetReferencesItsNodePool(t *testing.T) {
	l := demoLoaded(t)
	m := readyLoaded(t, l, 120, 40)
	if len(m.data.report.NodeClaims) == 0 {
		t.Fatal("the demo has no NodeClaim without a Node")
	}
	c := m.data.report.NodeClaims[0]
	m = m.do(action{kind: actOpenClaim, arg: claimPrefix + c.Name})
	if !m.onClaim() {
		t.Fatalf("view %d, want the NodeClaim sheet", m.view)
	}
	m = pickLink(t, m, "tab", "nodepool/"+c.NodePool)
	if !strings.Contains(m.View(), "▸ nodepool/"+c.NodePool) {
		t.Errorf("the selected reference does not show:\n%s", m.View())
	}
	m = press(t, m, "enter")
	if !m.onSubject() || m.sheet.where() != "nodepool/"+c.NodePool {
		t.Fatalf("enter on the NodePool: view %d (%s), want its sheet", m.view, m.sheet.where())
	}
	m = press(t, m, "esc")
	if !m.onClaim() || strings.TrimPrefix(m.sheet.where(), claimPrefix) != c.Name {
		t.Fatalf("esc: view %d, want the NodeClaim sheet of %s", m.view, c.Name)
	}
}

func TestMembersBeyondTheCapListTheNodes(t *testing.T) {
	a := newRefAdder(&data{}, "", "subnet/subnet-1")
	var ms []string
	for i := range maxMemberRefs + 5 {
		ms = append(ms, fmt.Sprintf("node/n%d", i))
	}
	a.members(ms, "subnet-1")
	if len(a.refs) != maxMemberRefs+1 {
		t.Fatalf("%d references, want %d and one for the rest", len(a.refs), maxMemberRefs)
	}
	last := a.refs[len(a.refs)-1]
	if last.subject != "+5 more" || last.open != (action{kind: actNodesIn, arg: "subnet-1"}) {
		t.Errorf("the last reference is %+v, want +5 more listing the nodes in subnet-1", last)
	}
}

// TestSheetPathSkipsWhatAReloadRemoved follows node -> subnet -> node, reloads a report
// without the first node, and goes back: the subnet sheet, then past the gone node to the
// nodes view.
func TestSheetPathSkipsWhatAReloadRemoved(t *testing.T) {
	l := demoLoaded(t)
	m := readyLoaded(t, l, 120, 40)
	n := nodeWithPoolAndSubnet(t, m.data)
	m = m.do(action{kind: actOpenNode, arg: n.Identity.Node})
	m = press(t, pickLink(t, m, "]", "subnet/"+n.Subnet.ID), "enter")
	if !m.onSubject() {
		t.Fatalf("view %d, want the subnet sheet", m.view)
	}
	r := l.Report
	var nodes []diagnose.NodeReport
	for _, x := range r.Nodes {
		if x.Identity.Node != n.Identity.Node {
			nodes = append(nodes, x)
		}
	}
	r.Nodes = nodes
	m = update(t, m, reportMsg{report: r, index: l.Index})
	if !m.onSubject() {
		t.Fatalf("after the reload: view %d, want the subnet sheet still", m.view)
	}
	m = press(t, m, "esc")
	if m.view != viewNodes {
		t.Fatalf("esc after the node went: view %d, want the nodes view", m.view)
	}
}

// TestSheetPathScreens draws the way finding -> subnet -> node -> back at 80x24 and 200x60:
// the subnet sheet opened from the finding, the node opened from the subnet's references, and
// the subnet sheet again after Esc. Run `go test ./pkg/tui -run TestSheetPathScreens -update`
// to rewrite them.
func TestSheetPathScreens(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := nodeFindingSheet(t)
			m = m.resize(size[0], size[1])
			n, _ := m.data.node(m.shownFinding().Node)
			m = press(t, pickRef(t, m, "subnet/"+n.Subnet.ID), "enter")
			var other string
			for _, r := range m.sheet.links.refs {
				if strings.HasPrefix(r.subject, "node/") && r.openable() {
					other = r.subject
					break
				}
			}
			subnet := m.View()
			m = press(t, pickLink(t, m, "tab", other), "enter")
			node := m.View()
			m = press(t, m, "esc")
			if !m.onSubject() {
				t.Fatalf("esc on %s: view %d, want the subnet sheet", other, m.view)
			}
			back := m.View()
			golden.RequireEqual(t, []byte(subnet+"\n--- enter on "+other+"\n"+node+"\n--- esc\n"+back))
		})
	}
}
