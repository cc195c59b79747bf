package tui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// sheetFigure reads the pod-IP figure of a node sheet's capacity section: "Pod IPs: 16" on a
// Cilium node, "IP capacity: 29" (or "about 42 (estimate)" on Auto Mode) elsewhere.
var sheetFigure = regexp.MustCompile(`(?m)^\s+(?:Pod IPs|IP capacity):\s+(?:about )?(\d+)`)

// TestPodsColumnIsTheSheetsFigure: on both demo clusters, every node's PODS/IPS cell shows the
// pod-IP figure its sheet's capacity section shows: 16 on a Cilium node whose finding says 16
// pod IPs, not the 19 pods those IPs and its host-network pods make.
func TestPodsColumnIsTheSheetsFigure(t *testing.T) {
	for _, ctx := range demo.Contexts() {
		t.Run(ctx, func(t *testing.T) {
			s, err := demo.SnapshotOf(ctx)
			if err != nil {
				t.Fatal(err)
			}
			r := diagnose.Analyze(s, diagnose.Options{})
			checked := 0
			for _, n := range r.Nodes {
				if n.Capacity == nil && n.Cilium == nil {
					continue
				}
				m := sheetFigure.FindStringSubmatch(printer.NodeSheet(n, nil, 200, nil))
				if m == nil {
					continue // no figure on the sheet: unknown
				}
				cell := newRow(0, n).cells[colPods]
				_, ips, _ := strings.Cut(cell, "/")
				if strings.Trim(ips, "~w") != m[1] {
					t.Errorf("%s: PODS/IPS %q, want the sheet's %s", n.Identity.Node, cell, m[1])
				}
				checked++
			}
			if checked == 0 {
				t.Fatal("no node with a capacity figure")
			}
		})
	}
	s, _ := demo.SnapshotOf(demo.CiliumContext)
	r := diagnose.Analyze(s, diagnose.Options{})
	cells := map[string]string{}
	for _, n := range r.Nodes {
		cells[n.Identity.Node] = newRow(0, n).cells[colPods]
	}
	for _, f := range r.Findings {
		if f.ID != "cilium-max-pods-exceeds-ip-capacity" {
			continue
		}
		_, ips, _ := strings.Cut(cells[f.Node], "/")
		if !strings.Contains(f.Message, "at most "+ips+" pod IPs") {
			t.Errorf("%s: PODS/IPS %q disagrees with the finding: %s", f.Node, cells[f.Node], f.Message)
		}
	}
}
