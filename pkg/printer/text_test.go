package printer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// stressReport has values far longer than a line: names, IDs, messages and unbroken tokens.
func stressReport() diagnose.Report {
	long := strings.Repeat("very-long-node-name-", 12) + "end"
	token := strings.Repeat("x", 150)
	r := findingsReport()
	r.Context = strings.Repeat("context-", 16)
	r.Findings = append(r.Findings, diagnose.Finding{
		ID: "zone-mismatch", Severity: diagnose.Warning, Node: long, Resource: "nodepool/" + long,
		Message: "token " + token + " ends here\nand a second paragraph", Remedy: token + " " + token,
	})
	n := gpuNodeReport()
	n.Identity.Node = long
	n.Identity.NodeClaim = token
	n.SecurityGroups.Groups[0].ID = "sg-" + token
	n.ENIs[0].ID = "eni-" + token
	n.Placement.NodeClassSelects = "id=" + token
	n.WayOut = blockedWayOut()
	n.WayOut.RouteTable = "rtb-" + token
	n.WayOut.DefaultRoutes[0].Target = "nat-" + token
	n.Findings = r.Findings
	r.Nodes = []diagnose.NodeReport{n, goneNodeReport(), skippedNodeReport()}
	return r
}

func TestLinesFitWidth(t *testing.T) {
	type render struct {
		name   string
		print  printFunc
		report diagnose.Report
		format Format
	}
	var renders []render
	for _, tc := range goldenCases() {
		if tc.format.text() {
			renders = append(renders, render{tc.golden, tc.print, tc.report, tc.format})
		}
	}
	for _, f := range []Format{Table, Wide} {
		renders = append(renders,
			render{"stress check " + string(f), printReport, stressReport(), f},
			render{"stress describe " + string(f), printNodes, stressReport(), f})
	}
	for _, rd := range renders {
		for _, colour := range []bool{false, true} {
			st := plainStyles()
			if colour {
				st = colourStyles()
			}
			t.Run(rd.name, func(t *testing.T) {
				var buf bytes.Buffer
				if err := rd.print(&buf, rd.report, rd.format, st); err != nil {
					t.Fatalf("printing: %v", err)
				}
				lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
				if len(lines) < 3 {
					t.Fatalf("got %d lines, want a full rendering", len(lines))
				}
				for i, l := range lines {
					if w := width(l); w > Width && !isCommandLine(l) {
						t.Errorf("line %d is %d columns, want at most %d: %q", i+1, w, Width, l)
					}
					if strings.HasSuffix(ansi.Strip(l), " ") {
						t.Errorf("line %d has trailing spaces: %q", i+1, l)
					}
				}
			})
		}
	}
}

func TestColourForcedOn(t *testing.T) {
	tests := []struct {
		name   string
		print  printFunc
		report diagnose.Report
	}{
		{name: "check", print: printReport, report: findingsReport()},
		{name: "describe", print: printNodes, report: nodesReport(gpuNodeReport(), goneNodeReport())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var plain, coloured bytes.Buffer
			if err := tt.print(&plain, tt.report, Wide, plainStyles()); err != nil {
				t.Fatalf("printing without colour: %v", err)
			}
			if err := tt.print(&coloured, tt.report, Wide, colourStyles()); err != nil {
				t.Fatalf("printing with colour: %v", err)
			}
			if strings.Contains(plain.String(), "\x1b") {
				t.Errorf("output without colour carries escape sequences:\n%s", plain.String())
			}
			for _, code := range []string{"\x1b[1;31m", "\x1b[1;33m"} {
				if !strings.Contains(coloured.String(), code) {
					t.Errorf("coloured output lacks %q:\n%q", code, coloured.String())
				}
			}
			if got, want := ansi.Strip(coloured.String()), plain.String(); got != want {
				t.Errorf("coloured output without its escapes differs from plain output:\ngot:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestWrap(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		limit int
		want  []string
	}{
		{name: "empty", text: "", limit: 10, want: nil},
		{name: "blank", text: "   ", limit: 10, want: nil},
		{name: "fits keeps spacing", text: "a  b", limit: 10, want: []string{"a  b"}},
		{name: "breaks at spaces", text: "one two three four", limit: 9, want: []string{"one two", "three", "four"}},
		{name: "exact fit", text: "abcd efgh", limit: 4, want: []string{"abcd", "efgh"}},
		{name: "cuts a long word", text: "ab abcdefghij cd", limit: 4, want: []string{"ab", "abcd", "efgh", "ij", "cd"}},
		{name: "keeps paragraphs", text: "one two\nthree", limit: 20, want: []string{"one two", "three"}},
		{name: "wide runes", text: "✖✖✖✖✖", limit: 2, want: []string{"✖✖", "✖✖", "✖"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wrap(tt.text, tt.limit)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("wrap(%q, %d) = %q, want %q", tt.text, tt.limit, got, tt.want)
			}
		})
	}
}

func TestSummaryCounts(t *testing.T) {
	tests := []struct {
		name    string
		summary diagnose.Summary
		claims  []diagnose.NodeClaimReport
		listed  []diagnose.Finding
		want    string
	}{
		{
			// A critical finding on a subnet is on no node's status: the line still counts it.
			name:    "a critical finding on no node",
			summary: diagnose.Summary{Nodes: 2, Clean: 2, Findings: map[string]int{"critical": 1, "warning": 0, "info": 0}},
			listed:  []diagnose.Finding{{ID: "subnet-ip-exhaustion", Severity: diagnose.Critical, Resource: "subnet/subnet-1"}},
			want:    "2 nodes: 2 ok, 0 with warnings, 0 with criticals; findings: 1 critical",
		},
		{
			name:    "findings the list leaves out",
			summary: diagnose.Summary{Nodes: 1, WithCritical: 1, Findings: map[string]int{"critical": 1, "warning": 2, "info": 4}},
			listed:  []diagnose.Finding{{ID: "instance-not-found", Severity: diagnose.Critical, Node: "a"}},
			want:    "1 node: 0 ok, 0 with warnings, 1 with criticals;\nfindings: 1 critical, 2 warning, 4 info (2 warning, 4 info not listed)",
		},
		{
			name:    "one node",
			summary: diagnose.Summary{Nodes: 1, Clean: 1},
			want:    "1 node: 1 ok, 0 with warnings, 0 with criticals",
		},
		{
			name: "counts by status add up to the nodes listed",
			summary: diagnose.Summary{Listed: 12, Nodes: 10, Skipped: 2, SkippedBy: map[string]int{"fargate": 2},
				Statuses: map[string]int{"ok": 3, "initialising": 1, "terminating": 1, "info": 1, "warning": 2, "critical": 2, "skipped": 2}},
			want: "12 nodes: 3 ok, 2 with warnings, 2 with criticals, 1 with info, 1 initialising, 1 terminating,\n" +
				"2 skipped (2 Fargate)",
		},
		{
			name: "NodeClaims by status from the summary",
			summary: diagnose.Summary{Listed: 1, Nodes: 1, Statuses: map[string]int{"ok": 1}, NodeClaimsWithoutNode: 2, NodeClaimsNotJoined: 1,
				NodeClaimsByStatus: map[string]int{diagnose.ClaimNotRegistered: 1, diagnose.ClaimLaunching: 1}},
			want: "1 node: 1 ok, 0 with warnings, 0 with criticals, 1 NodeClaim not joined (1 not registered),\n" +
				"1 more without a Node (1 launching)",
		},
		{
			name:    "info and skipped",
			summary: diagnose.Summary{Nodes: 6, Clean: 2, WithWarnings: 1, WithCritical: 1, WithInfo: 2, Skipped: 1},
			want:    "7 nodes: 2 ok, 1 with warnings, 1 with criticals, 2 with info, 1 skipped (not EC2)",
		},
		{
			name:    "skipped without info",
			summary: diagnose.Summary{Nodes: 1, Clean: 1, Skipped: 1},
			want:    "2 nodes: 1 ok, 0 with warnings, 0 with criticals, 1 skipped (not EC2)",
		},
		{
			name:    "NodeClaims not joined and one launching",
			summary: diagnose.Summary{Nodes: 1, Clean: 1, NodeClaimsWithoutNode: 3, NodeClaimsNotJoined: 2},
			claims:  []diagnose.NodeClaimReport{failedClaimReport(), unregClaimReport(), launchingClaimReport()},
			want: "1 node: 1 ok, 0 with warnings, 0 with criticals,\n" +
				"2 NodeClaims not joined (1 launch failed, 1 not registered), 1 more without a Node (1 launching)",
		},
		{
			name:    "one NodeClaim not joined",
			summary: diagnose.Summary{Nodes: 1, Clean: 1, NodeClaimsWithoutNode: 1, NodeClaimsNotJoined: 1},
			claims:  []diagnose.NodeClaimReport{failedClaimReport()},
			want:    "1 node: 1 ok, 0 with warnings, 0 with criticals, 1 NodeClaim not joined (1 launch failed)",
		},
		{
			name:    "NodeClaims still launching only",
			summary: diagnose.Summary{NodeClaimsWithoutNode: 1},
			claims:  []diagnose.NodeClaimReport{launchingClaimReport()},
			want:    "0 nodes: 0 ok, 0 with warnings, 0 with criticals, 1 NodeClaim without a Node (1 launching)",
		},
		{
			name:    "counts without the claims",
			summary: diagnose.Summary{Nodes: 1, Clean: 1, NodeClaimsWithoutNode: 2, NodeClaimsNotJoined: 2},
			want:    "1 node: 1 ok, 0 with warnings, 0 with criticals, 2 NodeClaims not joined",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx := &text{st: plainStyles()}
			summary(tx, tt.summary, tt.claims, tt.listed)
			if got := strings.TrimSuffix(tx.b.String(), "\n"); got != tt.want {
				t.Errorf("summary = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestNotRunText: text output says which checks did not run for want of a source; wide names
// the sources of each; a report without findings does not claim every check passed.
func TestNotRunText(t *testing.T) {
	r := diagnose.Report{Summary: diagnose.Summary{Nodes: 1, Clean: 1}, NotRun: []diagnose.NotRun{
		{ID: "subnet-ip-exhaustion", Needs: []string{"ec2:DescribeSubnets"}},
		{ID: "instance-orphaned", Needs: []string{"ec2:DescribeInstances", "ec2:DescribeInstances (cluster tag)"}},
	}}
	var table, wide bytes.Buffer
	if err := PrintReport(&table, r, Table, plainStyles()); err != nil {
		t.Fatal(err)
	}
	if err := PrintReport(&wide, r, Wide, plainStyles()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"no findings: every check that ran passed",
		"not run: 2 checks, for want of a source each needs: subnet-ip-exhaustion, instance-orphaned (-o wide names the sources)"} {
		if !strings.Contains(strings.Join(strings.Fields(table.String()), " "), want) {
			t.Errorf("table output lacks %q:\n%s", want, table.String())
		}
	}
	for _, want := range []string{"not run: subnet-ip-exhaustion (needs ec2:DescribeSubnets)",
		"not run: instance-orphaned (needs ec2:DescribeInstances, ec2:DescribeInstances (cluster tag))"} {
		if !strings.Contains(strings.Join(strings.Fields(wide.String()), " "), want) {
			t.Errorf("wide output lacks %q:\n%s", want, wide.String())
		}
	}
	r.NotRun = nil
	table.Reset()
	if err := PrintReport(&table, r, Table, plainStyles()); err != nil {
		t.Fatal(err)
	}
	if s := table.String(); strings.Contains(s, "not run") || !strings.Contains(s, "every check passed") {
		t.Errorf("without notRun:\n%s", s)
	}
}
