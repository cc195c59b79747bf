package tui

import (
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	tea "github.com/charmbracelet/bubbletea"
)

func TestGroupByCycles(t *testing.T) {
	m := press(t, ready(t, demoReport(t), 80, 24), "down")
	wantGroups := []struct {
		group    groupBy
		headings []string
	}{
		{groupPool, []string{"batch", "web", "general", "training", "(none)"}},
		{groupClass, []string{"batch", "nodeclass/web", "default", "efa", "(none)"}},
		{groupZone, []string{"us-west-2c", "us-west-2a", "us-west-2b", "(none)"}},
		{groupSubnet, nil},
		{groupNone, nil},
	}
	for _, w := range wantGroups {
		m = press(t, m, "g")
		if m.nodes.group != w.group {
			t.Fatalf("group = %v, want %v", m.nodes.group, w.group)
		}
		var got []string
		for _, l := range m.nodes.lines {
			if l.row < 0 {
				got = append(got, l.key)
			}
		}
		if w.headings != nil {
			if diff := cmp.Diff(w.headings, got); diff != "" {
				t.Errorf("headings by %v (-want +got):\n%s", w.group, diff)
			}
		}
		if w.group == groupNone && len(got) != 0 {
			t.Errorf("headings without grouping = %v, want none", got)
		}
		if name, _ := m.nodes.selectedName(); name != secondNode {
			t.Errorf("by %v the cursor is on %q, want it kept on %q", w.group, name, secondNode)
		}
	}
}

func TestEnterOpensNodeAndEscKeepsCursor(t *testing.T) {
	m := press(t, ready(t, demoReport(t), 80, 24), "down", "down", "enter")
	if m.view != viewNode || m.node.name() != thirdNode {
		t.Fatalf("after enter: view %d node %q, want the node view of %q", m.view, m.node.name(), thirdNode)
	}
	screen := m.View()
	for _, want := range []string{"[Overview]", "node/" + thirdNode, "Identity"} {
		if !strings.Contains(screen, want) {
			t.Errorf("node view lacks %q:\n%s", want, screen)
		}
	}
	m = press(t, m, "}", "}")
	if got := m.node.sections[m.node.tab].tab.label; got != "Security groups" {
		t.Errorf("two sections on, the active section is %q, want Security groups", got)
	}
	if m.node.vp.YOffset != m.node.sections[m.node.tab].line {
		t.Errorf("viewport at line %d, want the section's line %d", m.node.vp.YOffset, m.node.sections[m.node.tab].line)
	}
	m = press(t, m, "esc")
	if name, _ := m.nodes.selectedName(); m.view != viewNodes || name != thirdNode {
		t.Errorf("after esc: view %d cursor %q, want the nodes view on %q", m.view, name, thirdNode)
	}
}

func TestFindingsDrillDown(t *testing.T) {
	m := press(t, ready(t, demoReport(t), 80, 24), "f")
	if m.view != viewFindings || len(m.findings.groups) != 19 {
		t.Fatalf("findings view: view %d with %d groups, want 19 groups", m.view, len(m.findings.groups))
	}
	first := m.data.groups[m.findings.groups[0]]
	if first.id != "subnet-ip-exhaustion" || len(first.findings) != 2 {
		t.Errorf("first group = %s with %d, want subnet-ip-exhaustion with 2", first.id, len(first.findings))
	}
	m = press(t, m, "down", "enter")
	if got := m.data.groups[m.findings.open].id; got != "instance-not-found" || len(m.findings.items) != 1 {
		t.Fatalf("opened group %q with %d findings, want instance-not-found with 1", got, len(m.findings.items))
	}
	m = press(t, m, "enter")
	if !m.onFinding() || m.shownFinding().Node != missingNode {
		t.Fatalf("enter on the finding: view %d finding on node %q, want the finding sheet of %q", m.view, m.shownFinding().Node, missingNode)
	}
	m = press(t, m, "enter")
	if m.view != viewNode || m.node.name() != missingNode {
		t.Fatalf("enter on the finding sheet: view %d node %q, want the node view of %q", m.view, m.node.name(), missingNode)
	}
	m = press(t, m, "esc")
	if !m.onFinding() {
		t.Fatalf("esc from the node: view %d, want the finding sheet", m.view)
	}
	m = press(t, m, "esc")
	if m.view != viewFindings || m.findings.open < 0 {
		t.Fatalf("esc from the finding sheet: view %d open %d, want the opened group", m.view, m.findings.open)
	}
	m = press(t, m, "esc")
	if m.findings.open >= 0 || m.findings.list.cursor != 1 {
		t.Errorf("esc from the group: open %d cursor %d, want the groups with the cursor on 1", m.findings.open, m.findings.list.cursor)
	}
	if m = press(t, m, "esc"); m.view != viewNodes {
		t.Errorf("esc from the groups: view %d, want the nodes view", m.view)
	}
}

func TestSubnetsView(t *testing.T) {
	m := press(t, ready(t, demoReport(t), 200, 60), "s")
	got := map[string]subnetRow{}
	for _, i := range m.subnets.shown {
		s := m.data.subnets[i]
		got[s.id] = s
	}
	busy := got["subnet-02720e173c311fcb4"]
	if busy.level != "warning" || busy.free != 4 || busy.total != 251 || busy.nodes != 2 {
		t.Errorf("subnet-02720e173c311fcb4 = %+v, want a warning, 4 of 251 free, 2 nodes", busy)
	}
	if diff := cmp.Diff([]string{"batch"}, busy.classes); diff != "" {
		t.Errorf("NodeClasses selecting it (-want +got):\n%s", diff)
	}
	if first := m.data.subnets[m.subnets.shown[0]]; first.id != "subnet-0c8ae009df552f60f" || first.level != "critical" {
		t.Errorf("first subnet = %s (%s), want the critical subnet-0c8ae009df552f60f", first.id, first.level)
	}
	if screen := m.View(); !strings.Contains(screen, "10.0.48.0/24") || !strings.Contains(screen, "4/251 free") {
		t.Errorf("subnets view lacks the CIDR or the free IPs:\n%s", screen)
	}
	if second := m.data.subnets[m.subnets.shown[1]]; second.id != "subnet-0ffd6a39ba6f48905" || second.level != "critical" {
		t.Errorf("second subnet = %s (%s), want the critical subnet-0ffd6a39ba6f48905 (no free /28 block)", second.id, second.level)
	}
	if third := m.data.subnets[m.subnets.shown[2]]; third.id != "subnet-0714a16d895e97a48" || third.level != "critical" {
		t.Errorf("third subnet = %s (%s), want the critical subnet-0714a16d895e97a48 (no way out)", third.id, third.level)
	}
	m = press(t, m, "down", "down", "down", "enter")
	if m.view != viewNodes || m.sel.query != "subnet-02720e173c311fcb4" || m.nodes.shown() != 2 {
		t.Errorf("enter on a subnet: view %d query %q shown %d, want its 2 nodes", m.view, m.sel.query, m.nodes.shown())
	}
}

func TestRefreshKeepsReport(t *testing.T) {
	r := demoReport(t)
	m := ready(t, r, 80, 24)
	next, cmd := m.Update(keyMsg("r"))
	m = next.(Model)
	if cmd == nil || !m.busy {
		t.Fatal("r did not start a refresh")
	}
	if got := m.View(); !strings.Contains(got, "refreshing") || !strings.Contains(got, "ip-10-0-50-20") {
		t.Errorf("while refreshing the screen should keep the nodes and say so:\n%s", got)
	}
	m = update(t, m, errMsg{errors.New("token expired")})
	got := m.View()
	if !strings.Contains(got, "refresh failed: token expired") || !strings.Contains(got, "ip-10-0-50-20") {
		t.Errorf("after a failed refresh the old report and the error should show:\n%s", got)
	}
	if m.state != stateReady || m.busy {
		t.Errorf("after a failed refresh: state %d busy %v, want ready and idle", m.state, m.busy)
	}
	r.Nodes = r.Nodes[1:]
	m = update(t, m, reportMsg{report: r})
	if got := m.View(); strings.Contains(got, "refresh failed") || m.nodes.shown() != len(r.Nodes) {
		t.Errorf("a good refresh should clear the error and show %d nodes:\n%s", len(r.Nodes), got)
	}
}

func TestResizeFitsScreen(t *testing.T) {
	views := map[string][]string{
		"nodes": nil, "node": {"enter"}, "findings": {"f"}, "group": {"f", "enter"}, "subnets": {"s"}, "help": {"?"},
		"grouped": {"g"},
	}
	sizes := [][2]int{{80, 24}, {200, 60}, {120, 40}, {60, 15}}
	for name, keys := range views {
		m := press(t, ready(t, demoReport(t), 80, 24), keys...)
		for _, sz := range sizes {
			m = update(t, m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			lines := strings.Split(m.View(), "\n")
			if len(lines) != sz[1] {
				t.Errorf("%s at %dx%d: %d lines, want %d", name, sz[0], sz[1], len(lines), sz[1])
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > sz[0] {
					t.Errorf("%s at %dx%d: line %d is %d columns: %q", name, sz[0], sz[1], i, w, l)
				}
			}
		}
	}
}
