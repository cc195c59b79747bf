package printer

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/shellwords"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// wrapArgvs are commands whose arguments test wrapping: a JSON patch, a long ARN, quotes to
// escape, a word with no place to break but inside it.
var wrapArgvs = [][]string{
	{"kubectl", "patch", "nodepool", "batch", "--type", "json", "-p",
		`[{"op":"add","path":"/spec/template/spec/startupTaints","value":[{"key":"node.cilium.io/agent-not-ready","effect":"NoExecute"}]}]`},
	{"aws", "ec2", "create-vpc-endpoint", "--vpc-id", "vpc-0123456789abcdef0", "--vpc-endpoint-type", "Interface",
		"--service-name", "com.amazonaws.us-west-2.ec2", "--subnet-ids", "subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"},
	{"aws", "iam", "attach-role-policy", "--role-name", "KarpenterNodeRole-" + strings.Repeat("x", 90),
		"--policy-arn", "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy"},
	{"kubectl", "taint", "nodes", "--all", `it's "a" $(touch /tmp/PWNED); ` + "`x`" + strings.Repeat("'q", 40) + ":NoSchedule-"},
	{strings.Repeat("y", 200)},
	{"echo", "short"},
}

func TestWrapCommandFitsAndParsesBack(t *testing.T) {
	for _, limit := range []int{40, 80, 100, 160} {
		for _, indent := range []int{0, 8, 14} {
			for _, argv := range wrapArgvs {
				t.Run(fmt.Sprintf("%d/%d/%s", limit, indent, argv[0]), func(t *testing.T) {
					lines := wrapCommand(quoted(argv), indent, limit)
					for i, l := range lines {
						if width(l) > limit {
							t.Errorf("line %d is %d columns, want at most %d: %q", i+1, width(l), limit, l)
						}
						if i < len(lines)-1 && !strings.HasSuffix(l, `\`) {
							t.Errorf("line %d lacks the continuation mark: %q", i+1, l)
						}
					}
					text := strings.Join(lines, "\n")
					if got := shellwords.Split(text); !slices.Equal(got, argv) {
						t.Errorf("the wrapped command reads back as %q, want %q:\n%s", got, argv, text)
					}
					if one := diagnose.ShellJoin(argv); indent+width(one) <= limit && len(lines) != 1 {
						t.Errorf("a command that fits was wrapped:\n%s", text)
					}
				})
			}
		}
	}
}

// TestScreenSheetsWrapCommands renders a finding's sheet and a node's sheet, as the TUI shows
// them, at 80 and 160 columns: no line is wider than the screen, every line of a wrapped
// command but the last ends with the continuation mark, and the lines read back as the
// command's arguments.
func TestScreenSheetsWrapCommands(t *testing.T) {
	var cmds []diagnose.Command
	for _, a := range wrapArgvs {
		cmds = append(cmds, diagnose.Command{Argv: a})
	}
	f := diagnose.Finding{ID: "nodepool-startup-taint-missing", Severity: diagnose.Warning, Resource: "nodepool/batch",
		Node: "ip-10-0-1-2.us-west-2.compute.internal", Message: strings.Repeat("the message says why ", 12),
		Remedy: strings.Repeat("the prose says what to do ", 12), Commands: cmds}
	n := diagnose.NodeReport{Findings: []diagnose.Finding{f}}
	n.Identity.Node = f.Node
	for _, cols := range []int{80, 160} {
		views := map[string]string{
			"finding sheet": FindingSheet(f, cols, plainStyles()),
			"node sheet":    NodeSheet(n, nil, cols, plainStyles()),
		}
		for name, out := range views {
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			for i, l := range lines {
				if width(l) > cols {
					t.Errorf("%s at %d: line %d is %d columns: %q", name, cols, i+1, width(l), l)
				}
			}
			for _, c := range cmds {
				if !readsBack(lines, c.Argv) {
					t.Errorf("%s at %d: no run of lines reads back as %s:\n%s", name, cols, c, out)
				}
			}
		}
	}
}

// readsBack reports whether some run of lines, from a line that starts argv's first
// word to the first line after it without a continuation mark, reads back as argv.
func readsBack(lines []string, argv []string) bool {
	head := diagnose.ShellQuote(argv[0])
	head = head[:min(len(head), 10)]
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimLeft(l, " "), head) {
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
