package tui

import (
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// TestOneFindingIsSingular: the header and an opened group say "1 finding" and "1 node", not
// "1 findings".
func TestOneFindingIsSingular(t *testing.T) {
	r := demoReport(t)
	var one []diagnose.Finding
	for _, f := range r.Findings {
		if f.ID == "max-pods-exceeds-ip-capacity" {
			one = append(one, f)
		}
	}
	if len(one) != 1 {
		t.Fatalf("the demo has %d max-pods-exceeds-ip-capacity findings, want 1", len(one))
	}
	r.Findings = one
	m := ready(t, r, 160, 40)
	if got := m.View(); !strings.Contains(got, "1 finding") || strings.Contains(got, "1 findings") {
		t.Errorf("header should say 1 finding:\n%s", got)
	}
	m = press(t, m, "f", "enter")
	if got := m.View(); !strings.Contains(got, "1 finding, 1 node:") {
		t.Errorf("the opened group should say 1 finding, 1 node:\n%s", got)
	}
}
