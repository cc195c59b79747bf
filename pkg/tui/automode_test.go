package tui

import (
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

func TestPoolCellAndClassKey(t *testing.T) {
	tests := []struct {
		name      string
		id        diagnose.Identity
		wantPool  string
		wantClass string
	}{
		{"Karpenter node", diagnose.Identity{NodePool: "general", NodeClass: "default"}, "general", "default"},
		{
			"Auto Mode node",
			diagnose.Identity{NodePool: "web", NodeClass: "web", NodeClassKind: "NodeClass", AutoMode: true},
			"web (auto)", "nodeclass/web",
		},
		{"Auto Mode node without NodeClaim", diagnose.Identity{AutoMode: true}, "(auto)", ""},
		{"managed node group", diagnose.Identity{}, none, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := poolCell(tt.id); got != tt.wantPool {
				t.Errorf("poolCell: got %q, want %q", got, tt.wantPool)
			}
			if got := classKey(tt.id); got != tt.wantClass {
				t.Errorf("classKey: got %q, want %q", got, tt.wantClass)
			}
		})
	}
}

// TestAutoModeNodeShowsKind checks that the demo's EKS Auto Mode nodes are told apart from
// Karpenter nodes at 80 columns: "(auto)" next to their NodePool, their NodeClass grouped as
// nodeclass/NAME, "auto" as a filter, and the node view's Auto Mode line.
func TestAutoModeNodeShowsKind(t *testing.T) {
	m := ready(t, demoReport(t), 80, 24)
	var line string
	for l := range strings.SplitSeq(m.View(), "\n") {
		if strings.Contains(l, secondNode) {
			line = l
		}
	}
	if !strings.Contains(line, "web (auto)") || !strings.Contains(line, "c6a.xlarge") {
		t.Errorf("nodes view line of %s: got %q, want its NodePool marked web (auto) and its type", secondNode, line)
	}

	grouped := press(t, m, "g", "g")
	var heading string
	for _, l := range grouped.nodes.lines {
		if l.row < 0 && strings.HasPrefix(l.key, "nodeclass/") {
			heading = l.key
			if l.count != 2 {
				t.Errorf("group %s: got %d nodes, want the 2 Auto Mode nodes", l.key, l.count)
			}
		}
	}
	if heading != "nodeclass/web" {
		t.Errorf("NodeClass groups: got Auto Mode heading %q, want nodeclass/web", heading)
	}

	filtered := press(t, m, "/", "a", "u", "t", "o")
	if got := filtered.nodes.shown(); got != 2 {
		t.Errorf("filter auto: got %d nodes, want the 2 Auto Mode nodes", got)
	}

	opened := press(t, m, "down", "enter")
	if opened.view != viewNode || opened.node.name() != secondNode {
		t.Fatalf("enter: view %d node %q, want the node view of %s", opened.view, opened.node.name(), secondNode)
	}
	// The sheet opens on its Problems block: a taller screen shows the Identity section below it.
	if screen := opened.resize(80, 40).View(); !strings.Contains(screen, "EKS Auto Mode: yes") {
		t.Errorf("node view of %s lacks the EKS Auto Mode line:\n%s", secondNode, screen)
	}
}
