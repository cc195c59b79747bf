package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

func TestClaimRowsFollowTheNodes(t *testing.T) {
	r := claimsReport(t)
	m := ready(t, r, 200, 60)
	if got := m.nodes.where(); got != "nodes 36/36  nodeclaims 2/2" {
		t.Errorf("where = %q, want both counts", got)
	}
	lines := m.nodes.lines
	if len(lines) != len(r.Nodes)+2 {
		t.Fatalf("got %d lines, want %d nodes and 2 NodeClaims", len(lines), len(r.Nodes))
	}
	for i, want := range r.NodeClaims {
		rw := m.data.rows[lines[len(r.Nodes)+i].row]
		if rw.name != claimPrefix+want.Name || rw.cells[colLevel] != want.Status {
			t.Errorf("row %d: name %q status %q, want %s%s, %q", len(r.Nodes)+i, rw.name, rw.cells[colLevel], claimPrefix, want.Name, want.Status)
		}
	}
	view := ansi.Strip(m.View())
	for _, want := range []string{"✖ launch failed", "nodeclaim/" + tuiFailedClaim, "nodeclaim/" + tuiUnregClaim, "not registered"} {
		if !strings.Contains(view, want) {
			t.Errorf("nodes view lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "38 nodes") {
		t.Errorf("the header counts the NodeClaims as nodes:\n%s", view)
	}
}

func TestClaimRowOpensItsSheet(t *testing.T) {
	r := claimsReport(t)
	m := ready(t, r, 120, 40)
	m = press(t, m, "G") // the last row: the NodeClaims follow the nodes
	m = press(t, m, "enter")
	if !m.onClaim() {
		t.Fatalf("enter on the last row: view %d, want the NodeClaim sheet", m.view)
	}
	name := r.NodeClaims[len(r.NodeClaims)-1].Name
	view := ansi.Strip(m.View())
	for _, want := range []string{"nodeclaim/" + name, "Conditions", "Findings"} {
		if !strings.Contains(view, want) {
			t.Errorf("NodeClaim sheet lacks %q:\n%s", want, view)
		}
	}
	m = press(t, m, "esc")
	if m.view != viewNodes {
		t.Errorf("esc on the NodeClaim sheet: view %d, want the nodes", m.view)
	}
}

func TestClaimSheetScrollsAndFollowsReloads(t *testing.T) {
	r := claimsReport(t)
	m := ready(t, r, 80, 16)
	m = m.openSheet(claimSheet(claimPrefix+tuiUnregClaim), viewNodes)
	top := m.sheet.vp.YOffset
	m = press(t, m, "down", "down", "down")
	if m.sheet.vp.YOffset <= top {
		t.Errorf("down did not scroll the sheet: offset %d", m.sheet.vp.YOffset)
	}
	// A reload in which the NodeClaim got its Node goes back to the nodes.
	joined := r
	joined.NodeClaims = []diagnose.NodeClaimReport{r.NodeClaims[0]}
	if joined.NodeClaims[0].Name == tuiUnregClaim {
		joined.NodeClaims[0] = r.NodeClaims[1]
	}
	m = update(t, m, reportMsg{report: joined})
	if m.view != viewNodes {
		t.Errorf("after the NodeClaim left the report: view %d, want the nodes", m.view)
	}
}

func TestFindingOnAClaimOpensItsSheet(t *testing.T) {
	m := ready(t, claimsReport(t), 120, 40)
	m = press(t, m, "f", "/")
	for _, k := range "nodeclaim-launch" {
		m = press(t, m, string(k))
	}
	m = press(t, m, "enter", "enter", "enter")
	if !m.onFinding() || m.shownFinding().Resource != claimPrefix+tuiFailedClaim {
		t.Fatalf("enter on the nodeclaim-launch-failed finding: view %d finding on %q, want its finding sheet", m.view, m.shownFinding().Resource)
	}
	m = press(t, m, "enter")
	if !m.onClaim() || strings.TrimPrefix(m.sheet.where(), claimPrefix) != tuiFailedClaim {
		t.Errorf("enter on the finding sheet's subject: view %d claim %q, want %s's sheet", m.view, strings.TrimPrefix(m.sheet.where(), claimPrefix), tuiFailedClaim)
	}
	if m = press(t, m, "esc"); !m.onFinding() {
		t.Errorf("esc from the NodeClaim sheet: view %d, want the finding sheet", m.view)
	}
}
