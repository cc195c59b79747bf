package cmd

import (
	"strings"
	"testing"
)

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{name: "bad -o", args: []string{"demo", "check", "-o", "xml"}, want: []string{"-o/--output", `"xml"`, "table, wide, json, yaml, junit, sarif"}},
		{name: "bad --fail-on", args: []string{"demo", "check", "--fail-on", "sometimes"}, want: []string{"--fail-on", `"sometimes"`, "critical, warning, info or never"}},
		{name: "--only with --skip", args: []string{"demo", "check", "--only", "subnet-not-selected", "--skip", "security-group-drift"}, want: []string{"--only and --skip"}},
		{name: "unknown flag", args: []string{"demo", "check", "--quiet"}, want: []string{"unknown flag: --quiet", "kubectl karpnet demo check --help"}},
		{name: "unknown shorthand flag", args: []string{"check", "-z"}, want: []string{"unknown shorthand flag: 'z'", "kubectl karpnet check --help"}},
		{name: "flag without its value", args: []string{"demo", "check", "--fail-on"}, want: []string{"flag needs an argument", "--fail-on"}},
		{name: "unknown subcommand", args: []string{"inspect"}, want: []string{`unknown command "inspect"`, "kubectl karpnet --help"}},
		{name: "unknown demo subcommand", args: []string{"demo", "inspect"}, want: []string{`unknown command "inspect"`, "kubectl karpnet demo --help"}},
		{name: "describe node with no name", args: []string{"demo", "describe", "node"}, want: []string{"name at least one node", "-l SELECTOR"}},
		{name: "describe node with names and -l", args: []string{"demo", "describe", "node", demoNode, "-l", "a=b"}, want: []string{"not both"}},
		{name: "describe -o wide", args: []string{"demo", "describe", "node", demoNode, "-o", "wide"}, want: []string{"-o/--output", `"wide"`, "json or yaml"}},
		{name: "describe -o table", args: []string{"demo", "describe", "node", demoNode, "-o", "table"}, want: []string{`"table"`}},
		{name: "describe node matching nothing", args: []string{"demo", "describe", "node", "-l", "team=nobody"}, want: []string{`no node matches "team=nobody"`}},
		{name: "bad -l selector", args: []string{"demo", "check", "-l", "karpenter.sh/nodepool in (general"}, want: []string{"-l/--selector", "karpenter.sh/nodepool in (general"}},
		{name: "bad --nodepool", args: []string{"demo", "check", "--nodepool", "not a name!"}, want: []string{"--nodepool", `"not a name!"`, "not a valid name"}},
		{name: "bad --color", args: []string{"demo", "check", "--color", "sometimes"}, want: []string{"--color", `"sometimes"`, "auto, always or never"}},
		{name: "bad --color on describe", args: []string{"demo", "describe", "node", demoNode, "--color", "yes"}, want: []string{"--color"}},
		{name: "named node that does not exist", args: []string{"demo", "check", "ip-192-0-2-1.ec2.internal"}, want: []string{`node "ip-192-0-2-1.ec2.internal" not found`, "list the demo's nodes with kubectl karpnet demo check -o json"}},
		{name: "described node that does not exist", args: []string{"demo", "describe", "node", "nope"}, want: []string{`node "nope" not found`}},
		{name: "argument to demo", args: []string{"demo", demoNode}, want: []string{demoNode}},
		{name: "argument to version", args: []string{"version", "now"}, want: []string{`"now"`}},
		// did you mean, for flags, flag values and NodeClaims as for nodes and commands
		{name: "misspelt flag", args: []string{"demo", "check", "--onyl", "x"}, want: []string{"unknown flag: --onyl", "did you mean --only?", "kubectl karpnet demo check --help"}},
		{name: "misspelt flag with its value", args: []string{"demo", "check", "--fial-on=warning"}, want: []string{"unknown flag: --fial-on", "did you mean --fail-on?"}},
		{name: "misspelt inherited flag", args: []string{"demo", "check", "--contxt", "demo"}, want: []string{"did you mean --context or --contexts?"}},
		{name: "unknown flag far from any", args: []string{"demo", "check", "--quietly-please"}, want: []string{"unknown flag: --quietly-please: see 'kubectl karpnet demo check --help'"}},
		{name: "short --fail-on value", args: []string{"demo", "check", "--fail-on", "warn"}, want: []string{`--fail-on "warn": did you mean warning?`, "critical, warning, info or never"}},
		{name: "misspelt NodeClaim", args: []string{"demo", "describe", "nodeclaim", "batch-m7v4"}, want: []string{`nodeclaim "batch-m7v4" not found: did you mean batch-m7v4w?`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.args...)
			wantCode(t, r, ExitUsage)
			wantOneErrorLine(t, r, tt.want...)
			if r.stdout != "" {
				t.Errorf("stdout: got %q, want nothing on a usage error", firstLines(r.stdout, 3))
			}
		})
	}
}

func TestHelp(t *testing.T) {
	tests := []struct {
		args      []string
		wantUsage string
	}{
		{args: []string{"--help"}, wantUsage: "kubectl karpnet [command]"},
		{args: []string{"check", "--help"}, wantUsage: "kubectl karpnet check [NODE...] [flags]"},
		{args: []string{"describe", "node", "-h"}, wantUsage: "kubectl karpnet describe node NAME... | -l SELECTOR [flags]"},
		{args: []string{"demo", "--help"}, wantUsage: "kubectl karpnet demo [flags]"},
		{args: []string{"version", "--help"}, wantUsage: "kubectl karpnet version [flags]"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := run(t, tt.args...)
			wantCode(t, r, ExitOK)
			usage := section(r.stdout, "Usage:")
			if !strings.Contains(usage, tt.wantUsage) {
				t.Errorf("Usage section: got\n%s\nwant it to contain %q", usage, tt.wantUsage)
			}
			for _, line := range strings.Split(usage, "\n") {
				if f := strings.Fields(line); len(f) > 0 && f[0] == "karpnet" {
					t.Errorf("Usage line %q names karpnet alone, want kubectl karpnet", line)
				}
			}
			if strings.Contains(r.stdout, "\n  karpnet ") || strings.Contains(r.stdout, "Use \"karpnet ") {
				t.Errorf("help names karpnet without kubectl:\n%s", r.stdout)
			}
			if r.stderr != "" {
				t.Errorf("stderr: got %q, want nothing", r.stderr)
			}
		})
	}
}

// TestTUINeedsATerminal checks that karpnet alone, tui and demo never start the terminal UI on
// a pipe: they say which text command to run instead, and exit 2.
func TestTUINeedsATerminal(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "for text output run kubectl karpnet check"},
		{[]string{"tui"}, "for text output run kubectl karpnet check"},
		{[]string{"demo"}, "for text output run kubectl karpnet demo check"},
		{[]string{"demo", "tui"}, "for text output run kubectl karpnet demo check"},
	} {
		t.Run(strings.Join(append([]string{"karpnet"}, tt.args...), " "), func(t *testing.T) {
			r := run(t, tt.args...)
			wantCode(t, r, ExitUsage)
			if r.stdout != "" || !strings.Contains(r.stderr, tt.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("got stdout %q, stderr %q; want no stdout and one line saying %q", r.stdout, r.stderr, tt.want)
			}
		})
	}
}

// section returns the lines of a help text from the line heading through the next blank line.
func section(help, heading string) string {
	i := strings.Index(help, heading)
	if i < 0 {
		return ""
	}
	rest := help[i:]
	if j := strings.Index(rest, "\n\n"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}
