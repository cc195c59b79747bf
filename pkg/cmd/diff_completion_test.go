package cmd

import (
	"slices"
	"testing"

	"github.com/spf13/cobra"
)

// TestDiffCompletion checks that diff completes snapshot files for OLD and NEW, nothing after
// them, and its flag values, without reading a cluster.
func TestDiffCompletion(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		values    []string
		directive cobra.ShellCompDirective
	}{
		{name: "OLD", args: []string{"diff", ""}, values: []string{"json", "gz"}, directive: cobra.ShellCompDirectiveFilterFileExt},
		{name: "NEW", args: []string{"diff", "a.json", ""}, values: []string{"json", "gz"}, directive: cobra.ShellCompDirectiveFilterFileExt},
		{name: "after NEW", args: []string{"diff", "a.json", "b.json", ""}, directive: noFile},
		{name: "-o", args: []string{"diff", "a.json", "-o", ""}, values: []string{"json", "yaml"}, directive: noFile},
		{name: "--fail-on", args: []string{"diff", "a.json", "--fail-on", ""}, values: []string{"critical", "warning", "info", "never"}, directive: noFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, _, _ := newTestOptions()
			got := complete(t, o, tt.args...)
			if !slices.Equal(got.values, tt.values) || got.directive != tt.directive {
				t.Errorf("got %v with directive %d, want %v with %d", got.values, got.directive, tt.values, tt.directive)
			}
		})
	}
}
