package tui

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/shellwords"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// longCommands are remedy commands wider than an 80-column screen: a JSON patch, a command
// of many flags, and one whose argument carries quotes, a command substitution and a newline.
var longCommands = []diagnose.Command{
	{Argv: []string{"kubectl", "patch", "nodepool", "batch", "--type", "json", "-p",
		`[{"op":"add","path":"/spec/template/spec/startupTaints","value":[{"key":"node.cilium.io/agent-not-ready","effect":"NoExecute"}]}]`}},
	{Argv: []string{"aws", "ec2", "create-vpc-endpoint", "--vpc-id", "vpc-0123456789abcdef0", "--vpc-endpoint-type", "Interface",
		"--service-name", "com.amazonaws.us-west-2.ec2", "--subnet-ids", "subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb",
		"--security-group-ids", "sg-0cccccccccccccccc"}},
	{Argv: []string{"kubectl", "taint", "nodes", "--all", "x\"}}]' ; $(touch /tmp/PWNED)\n; echo '" + strings.Repeat("k", 60) + ":NoSchedule-"}},
}

// withCommands returns the demo report with cmds as every finding's commands.
func withCommands(t *testing.T, cmds []diagnose.Command) diagnose.Report {
	r := demoReport(t)
	r.Findings = slices.Clone(r.Findings)
	for i := range r.Findings {
		r.Findings[i].Commands = cmds
		r.Findings[i].Remedy = "Do what the commands say; " + r.Findings[i].Remedy
	}
	r.Nodes = slices.Clone(r.Nodes)
	for i := range r.Nodes {
		r.Nodes[i].Findings = slices.Clone(r.Nodes[i].Findings)
		for j := range r.Nodes[i].Findings {
			r.Nodes[i].Findings[j].Commands = cmds
		}
	}
	return r
}

// TestCopyRemedyKeys presses y and Y on a finding in the findings view and on its sheet: y
// copies the finding's commands, one per line, exactly as Command.String quotes them (the raw
// values, not the screen's escapes); Y the remedy's prose; a finding without a command says
// so; and the status line says what was copied.
func TestCopyRemedyKeys(t *testing.T) {
	r := withCommands(t, longCommands)
	var lines []string
	for _, c := range longCommands {
		lines = append(lines, c.String())
	}
	commands := strings.Join(lines, "\n")
	for _, tc := range []struct {
		name     string
		report   diagnose.Report
		keys     []string
		key      string
		want     func(m Model) string
		wantNote string
	}{
		{"findings view: y copies the commands", r, []string{"f", "enter"}, "y", func(Model) string { return commands }, "copied 3 commands"},
		{"finding sheet: y copies the commands", r, []string{"f", "enter", "enter"}, "y", func(Model) string { return commands }, "copied 3 commands"},
		{"findings view: Y copies the prose", r, []string{"f", "enter"}, "Y", func(m Model) string {
			f, _ := m.findings.selectedFinding()
			return f.Remedy
		}, "copied the remedy's prose"},
		{"finding sheet: Y copies the prose", r, []string{"f", "enter", "enter"}, "Y", func(m Model) string { return m.shownFinding().Remedy }, "copied the remedy's prose"},
		{"one command", withCommands(t, longCommands[:1]), []string{"f", "enter", "enter"}, "y", func(Model) string { return lines[0] }, "copied 1 command"},
		{"no command", withCommands(t, nil), []string{"f", "enter", "enter"}, "y", nil, "no command to copy"},
		{"no command in the findings view", withCommands(t, nil), []string{"f", "enter"}, "y", nil, "no command to copy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := press(t, ready(t, tc.report, 120, 40), tc.keys...)
			var term bytes.Buffer
			m.clip = &term
			m, cmd := pressCmd(t, m, tc.key)
			if tc.want == nil {
				if cmd != nil {
					t.Errorf("%s returned a command", tc.key)
				}
			} else {
				if cmd == nil {
					t.Fatalf("%s returned no command", tc.key)
				}
				m = update(t, m, cmd())
				if got, want := decodeClip(t, term.String()), tc.want(m); got != want {
					t.Errorf("copied %q, want %q", got, want)
				}
			}
			if got := m.statusView(); !strings.Contains(got, tc.wantNote) {
				t.Errorf("status line %q, want it to say %q", got, tc.wantNote)
			}
		})
	}
}

// TestFooterNamesTheCopyKeys shows the findings view's opened group and a finding's sheet at
// 80 and 160 columns: the footer says y copies the commands and Y the prose.
func TestFooterNamesTheCopyKeys(t *testing.T) {
	for _, w := range []int{80, 160} {
		for name, keys := range map[string][]string{"group": {"f", "enter"}, "finding sheet": {"f", "enter", "enter"}} {
			m := press(t, ready(t, demoReport(t), w, 40), keys...)
			footer := m.helpView()
			for _, want := range []string{"y copy commands", "Y copy prose"} {
				if !strings.Contains(footer, want) {
					t.Errorf("%s at %d columns: footer %q lacks %q", name, w, footer, want)
				}
			}
		}
	}
}

// TestRemedyCommandsAreNeverCut shows a finding's sheet and a node's sheet at 80 and 160
// columns, on a screen tall enough for all of them: no line is wider than the screen, and
// every command shows whole, wrapped with a trailing backslash that a POSIX shell reads as
// a line continuation, so that the lines read back as the command's arguments (as the screen
// escapes them: control characters, and a newline as \n).
func TestRemedyCommandsAreNeverCut(t *testing.T) {
	r := withCommands(t, longCommands)
	for _, w := range []int{80, 160} {
		for name, keys := range map[string][]string{"finding sheet": {"f", "enter", "enter"}, "node sheet": {"enter"}} {
			t.Run(fmt.Sprintf("%s/%d", name, w), func(t *testing.T) {
				m := press(t, ready(t, r, w, 400), keys...)
				screen := m.View()
				lines := strings.Split(screen, "\n")
				for i, l := range lines {
					lines[i] = strings.TrimRight(l, " ")
					if width(l) > w {
						t.Errorf("line %d is %d columns: %q", i+1, width(l), l)
					}
				}
				for _, c := range style.PrintableCopy(longCommands) {
					// The screen shows an argument's newline as \n, as every view does.
					argv := slices.Clone(c.Argv)
					for i, a := range argv {
						argv[i] = strings.ReplaceAll(a, "\n", `\n`)
					}
					if !readsBack(lines, argv) {
						t.Errorf("no run of lines reads back as %s:\n%s", c, screen)
					}
				}
			})
		}
	}
}

// readsBack reports whether some run of lines, from a line that starts with argv's program to
// the first line after it without a continuation mark, reads back as argv.
func readsBack(lines []string, argv []string) bool {
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimLeft(l, " "), argv[0]+" ") {
			continue
		}
		j := i
		for j < len(lines)-1 && strings.HasSuffix(lines[j], `\`) {
			j++
		}
		if slices.Equal(shellwords.Split(strings.Join(lines[i:j+1], "\n")), argv) {
			return true
		}
	}
	return false
}
