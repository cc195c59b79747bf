package tui

import (
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// TestSubnetStatusIsItsWorstFinding: a subnet's status in the subnets view is the worst finding
// whose subjects name it, inherited ones (a leaked interface, an orphaned instance in it) too,
// as its sheet says; and a subnet an Auto Mode class selects only for pods is listed with it.
func TestSubnetStatusIsItsWorstFinding(t *testing.T) {
	rows := map[string]subnetRow{}
	for _, s := range deriveSubnets(demoReport(t)) {
		rows[s.id] = s
	}
	for id, want := range map[string]string{
		"subnet-020782d4fbf6deef9": "warning", // eni-leaked on two interfaces in it
		"subnet-04c63d5f80eec286c": "warning", // instance-orphaned in it
		"subnet-0714a16d895e97a48": "critical",
		"subnet-024e9b39f305ba72a": "ok", // NodeClass web's pod subnet in a zone without its nodes
	} {
		if got, ok := rows[id]; !ok || got.level != want {
			t.Errorf("subnet %s: listed %v, status %q, want %q", id, ok, got.level, want)
		}
	}
	if got := rows["subnet-08681319da30a7758"].classes; len(got) != 1 || got[0] != "nodeclass/web" {
		t.Errorf("subnet-08681319da30a7758 classes %q, want nodeclass/web, which selects it for pods", got)
	}
}

// TestNodeRowShowsInheritedCritical: a node whose own findings are none but whose subnet has
// no way out shows critical in the node list, marked as coming from its subnet; its order and
// the severity toggles keep its own status.
func TestNodeRowShowsInheritedCritical(t *testing.T) {
	var n diagnose.NodeReport
	for _, nr := range demoReport(t).Nodes {
		if nr.Identity.Node == "ip-10-0-50-4.us-west-2.compute.internal" {
			n = nr
		}
	}
	r := newRow(0, n)
	if r.cells[colLevel] != "critical (subnet)" || r.look != "critical" || r.level != "ok" {
		t.Errorf("row of %s: level cell %q look %q level %q, want \"critical (subnet)\" looking critical, level ok",
			n.Identity.Node, r.cells[colLevel], r.look, r.level)
	}
	if r.order != orderOf("ok") {
		t.Errorf("row of %s: ordered as %+v, want its own status's order", n.Identity.Node, r.order)
	}
}
