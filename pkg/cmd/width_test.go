package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// TestTextOutputFitsTheWidth runs check -o wide and describe over the demo at the widths text
// output takes (COLUMNS, the terminal's, 100 into a pipe, and 100 again for COLUMNS that are
// not a positive integer): every line of prose fits, bar a word wider than its line, and every
// remedy command is one line of its own, whole, even when wider than the width.
func TestTextOutputFitsTheWidth(t *testing.T) {
	cases := []struct {
		name     string
		columns  string
		terminal int // the terminal's width; 0 is not a terminal
		want     int
	}{
		{name: "COLUMNS=40", columns: "40", want: 40},
		{name: "COLUMNS=80", columns: "80", want: 80},
		{name: "COLUMNS=100", columns: "100", want: 100},
		{name: "COLUMNS=160", columns: "160", want: 160},
		{name: "a pipe", want: 100},
		{name: "a terminal", terminal: 120, want: 120},
		{name: "COLUMNS over the terminal", columns: "60", terminal: 120, want: 60},
		{name: "COLUMNS not a number", columns: "wide", want: 100},
		{name: "COLUMNS zero", columns: "0", terminal: 90, want: 90},
		{name: "COLUMNS negative", columns: "-80", want: 100},
	}
	var commands []string
	for _, ctx := range []string{"demo", "demo-cilium"} {
		r := run(t, "demo", "check", "-o", "json", "--context", ctx)
		var report diagnose.Report
		if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
			t.Fatalf("decoding the %s report: %v", ctx, err)
		}
		for _, f := range report.Findings {
			for _, c := range f.Commands {
				commands = append(commands, c.String())
			}
		}
	}
	if len(commands) == 0 {
		t.Fatal("the demo's findings have no commands to look for")
	}
	runs := [][]string{
		{"demo", "check", "-o", "wide"},
		{"demo", "check", "-o", "wide", "--context", "demo-cilium"},
		{"demo", "describe", "node", demoWarnNode},
		{"demo", "describe", "nodepool", "prefix", "--context", "demo-cilium"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, args := range runs {
				o, _, _ := newTestOptions()
				o.getenv = env{"COLUMNS": c.columns}.get
				o.isTerminal = func(any) bool { return c.terminal > 0 }
				o.termWidth = func(any) int { return c.terminal }
				r := runWith(t, o, args...)
				if r.code != 0 && r.code != ExitFindings {
					t.Fatalf("%s: exit code %d: %s", strings.Join(args, " "), r.code, r.stderr)
				}
				// check -o wide has paragraphs long enough to fill any of the widths.
				fill := args[len(args)-1] == "wide"
				checkWidth(t, strings.Join(args, " "), r.stdout, c.want, commands, fill)
			}
		})
	}
}

// checkWidth fails the test when a line of out is wider than limit and is neither a command
// nor made wide by one word; and, when fill says out has paragraphs long enough, when the
// widest of the other lines is well short of limit, since out then did not use the width.
func checkWidth(t *testing.T, what, out string, limit int, commands []string, fill bool) {
	t.Helper()
	isCommand := map[string]bool{}
	for _, c := range commands {
		isCommand[c] = true
	}
	widest := 0
	for i, l := range strings.Split(out, "\n") {
		w := lipgloss.Width(l)
		trimmed := strings.TrimSpace(l)
		if isCommand[trimmed] || strings.HasPrefix(trimmed, "aws ") || strings.HasPrefix(trimmed, "kubectl ") {
			// A command, from the finding's commands or written in its remedy's prose.
			continue
		}
		widest = max(widest, w)
		if w <= limit {
			continue
		}
		fields := strings.Fields(l)
		if long := fields[len(fields)-1]; len(fields) <= 2 || lipgloss.Width(long) > limit/2 {
			continue // a word wider than its line
		}
		t.Errorf("%s at %d columns: line %d is %d columns: %q", what, limit, i+1, w, l)
	}
	if fill && widest < limit-20 {
		t.Errorf("%s at %d columns: the widest line is %d columns, so the width was not used:\n%s", what, limit, widest, out)
	}
}
