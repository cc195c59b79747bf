package tui

import (
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// twoClusterReport is the demo cluster read twice, as contexts alpha and bravo: every node
// name is in both.
func twoClusterReport(tb testing.TB) diagnose.Report {
	tb.Helper()
	var members []snapshot.Snapshot
	for _, ctx := range []string{"alpha", "bravo"} {
		s, err := demo.Snapshot()
		if err != nil {
			tb.Fatal(err)
		}
		s.Context = ctx
		members = append(members, *s)
	}
	return diagnose.AnalyzeAll(snapshot.NewMulti(members), diagnose.Options{})
}

func TestClusterColumnOnlyWithSeveralClusters(t *testing.T) {
	one := ready(t, demoReport(t), 160, 40).View()
	if strings.Contains(one, "CLUSTER") {
		t.Errorf("one cluster: the table has a CLUSTER column:\n%s", one)
	}
	two := ready(t, twoClusterReport(t), 160, 40)
	view := two.View()
	if !strings.Contains(view, "CLUSTER") || !strings.Contains(view, "alpha") || !strings.Contains(view, "bravo") {
		t.Errorf("two clusters: want a CLUSTER column with alpha and bravo:\n%s", view)
	}
	d := two.data
	if got, want := len(d.byName), len(d.rows); got != want {
		t.Errorf("rows by key: got %d, want one per row (%d): a name in both clusters must not hide one", got, want)
	}
	n, ok := d.node(rowKey("bravo", "ip-10-0-50-20.us-west-2.compute.internal"))
	if !ok || n.Context != "bravo" {
		t.Errorf("node of bravo: got %v (context %q), want bravo's", ok, n.Context)
	}
}

func TestFilterMatchesTheCluster(t *testing.T) {
	m := press(t, ready(t, twoClusterReport(t), 160, 40), "/", "b", "r", "a", "v", "o", "enter")
	nodes, claims := m.nodes.shownKinds()
	if nodes == 0 {
		t.Fatal("filter bravo: no row shown")
	}
	for _, l := range m.nodes.lines {
		if l.row < 0 {
			continue
		}
		r := m.data.rows[l.row]
		if r.cells[colCluster] != "bravo" {
			t.Errorf("filter bravo shows %s of cluster %s", r.cells[colName], r.cells[colCluster])
		}
	}
	total := 0
	for _, r := range m.data.rows {
		if r.cells[colCluster] == "bravo" {
			total++
		}
	}
	if nodes+claims != total {
		t.Errorf("filter bravo: shows %d rows, want all %d of bravo", nodes+claims, total)
	}
}
