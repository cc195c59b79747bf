package cmd

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/diff"
)

func TestDiffGolden(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		golden string
		code   int
	}{
		{name: "text", args: []string{"diff", diffOld, diffNew}, golden: "diff.table.golden", code: ExitFindings},
		{name: "json", args: []string{"diff", diffOld, diffNew, "-o", "json"}, golden: "diff.json.golden", code: ExitFindings},
		{name: "yaml", args: []string{"diff", diffOld, diffNew, "-o", "yaml"}, golden: "diff.yaml.golden", code: ExitFindings},
		{name: "reversed", args: []string{"diff", diffNew, diffOld}, golden: "diff-reversed.table.golden", code: ExitFindings},
		{name: "fixed", args: []string{"diff", diffOld, diffFixed}, golden: "diff-fixed.table.golden", code: ExitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := filepath.Abs("testdata")
			if err != nil {
				t.Fatal(err)
			}
			writeDiffSnapshots(t)
			r := run(t, tt.args...)
			wantCode(t, r, tt.code)
			if r.stderr != "" {
				t.Errorf("stderr: got %q, want nothing", r.stderr)
			}
			testutil.Assert(t, filepath.Join(root, tt.golden), r.stdout)
		})
	}
}

// TestDiffFindingsAndNodes checks the diff of the fixtures as data: the planted fault new, the
// fixed one and the gone node's resolved, and the facts of the changed node.
func TestDiffFindingsAndNodes(t *testing.T) {
	writeDiffSnapshots(t)
	r := run(t, "diff", diffOld, diffNew, "-o", "json")
	wantCode(t, r, ExitFindings)
	var d diff.Diff
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("decoding the diff: %v\n%s", err, r.stdout)
	}
	if d.Kind != "Diff" || d.Old.Source != diffOld || d.New.Source != diffNew || !d.New.Taken.After(d.Old.Taken) {
		t.Errorf("head: got kind %q, old %+v, new %+v", d.Kind, d.Old, d.New)
	}
	keys := func(fs []diagnose.Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.ID+" "+f.Node)
		}
		return out
	}
	for _, want := range []string{"instance-not-running " + demoNode} {
		if !slices.Contains(keys(d.Findings.Added), want) {
			t.Errorf("added findings: got %v, want %q among them", keys(d.Findings.Added), want)
		}
	}
	for _, want := range []string{"instance-type-mismatch " + demoWarnNode, "instance-not-found " + demoGoneNode} {
		if !slices.Contains(keys(d.Findings.Resolved), want) {
			t.Errorf("resolved findings: got %v, want %q among them", keys(d.Findings.Resolved), want)
		}
	}
	if !slices.Equal(d.Nodes.Removed, []string{demoGoneNode}) || len(d.Nodes.Added) != 0 {
		t.Errorf("nodes: got added %v, removed %v, want removed [%s] only", d.Nodes.Added, d.Nodes.Removed, demoGoneNode)
	}
	var facts []diff.FieldChange
	for _, c := range d.Nodes.Changed {
		if c.Node == demoNode {
			facts = c.Fields
		}
	}
	if !slices.Contains(facts, diff.FieldChange{Field: "instanceState", Old: "running", New: "terminated"}) {
		t.Errorf("facts of %s: got %+v, want instanceState running -> terminated", demoNode, facts)
	}
}

func TestDiffExitCodes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{name: "a new critical", args: []string{"diff", diffOld, diffNew}, code: ExitFindings},
		{name: "never", args: []string{"diff", diffOld, diffNew, "--fail-on", "never"}, code: ExitOK},
		{name: "the same snapshot", args: []string{"diff", diffOld, diffOld, "--fail-on", "info"}, code: ExitOK},
		{name: "only a fix, failing on info", args: []string{"diff", diffOld, diffFixed, "--fail-on", "info"}, code: ExitOK},
		{name: "a warning back, failing on critical", args: []string{"diff", diffFixed, diffOld}, code: ExitOK},
		{name: "a warning back, failing on warning", args: []string{"diff", diffFixed, diffOld, "--fail-on", "warning"}, code: ExitFindings},
		{name: "a warning back, failing on WARNING", args: []string{"diff", diffFixed, diffOld, "--fail-on", "WARNING"}, code: ExitFindings},
		{name: "a severity raised to critical", args: []string{"diff", diffNew, diffOld}, code: ExitFindings},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writeDiffSnapshots(t)
			wantCode(t, run(t, tt.args...), tt.code)
		})
	}
}

func TestDiffSameSnapshot(t *testing.T) {
	writeDiffSnapshots(t)
	r := run(t, "diff", diffNew, diffNew)
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stdout, "no change: the same findings, nodes and node facts") {
		t.Errorf("stdout: got\n%s\nwant it to say nothing changed", r.stdout)
	}
}
