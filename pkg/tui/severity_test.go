package tui

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

func TestLevelOrderSortsWorstFirst(t *testing.T) {
	want := []string{style.LevelCritical, style.LevelWarning, style.LevelInfo, style.LevelOK, style.LevelSkipped}
	got := []string{style.LevelSkipped, style.LevelInfo, style.LevelOK, style.LevelCritical, style.LevelWarning}
	slices.SortStableFunc(got, func(a, b string) int { return orderOf(b).compare(orderOf(a)) })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("levels worst first (-want +got):\n%s", diff)
	}
	for _, healthy := range []string{style.LevelOK, style.LevelInitialising, style.LevelTerminating} {
		if c := orderOf(healthy).compare(orderOf(style.LevelOK)); c != 0 {
			t.Errorf("%s compares %d with ok, want 0", healthy, c)
		}
	}
}

func TestSelectionMatchesBySeverity(t *testing.T) {
	var sel selection
	sel.only[diagnose.Warning] = true
	tests := []struct {
		sev  diagnose.Severity
		want bool
	}{
		{diagnose.Warning, true}, {diagnose.Critical, false}, {diagnose.Info, false}, {noSeverity, false},
		{diagnose.Severity(-1), false}, {diagnose.Severity(9), false},
	}
	for _, tt := range tests {
		if got := sel.match(tt.sev, "node"); got != tt.want {
			t.Errorf("match(%v) with only warning = %v, want %v", tt.sev, got, tt.want)
		}
	}
	if got := sel.describe(); got != "only warning" {
		t.Errorf("describe = %q, want %q", got, "only warning")
	}
	if !(selection{}).match(diagnose.Severity(9), "node") {
		t.Error("with no toggle on, an unknown severity is hidden, want it shown")
	}
}
