package printer

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/cischema"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostiletext"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/diff"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// FuzzPipeline feeds snapshot bytes through what `check --snapshot FILE` does: snapshot.Read,
// diagnose.Analyze over every node (the options of an empty selection, as the TUI's loader
// passes them), then every printer (table, wide, JSON, YAML, the describe sheets, each node's sheet at 20, 40 and
// the default width, and the diff of the report with an empty one, both ways), with colour on and off. Nothing may panic; text output holds no control
// character but newlines and, with colour, karpnet's own SGR styling, and fits its width; JSON
// and YAML decode to the same report. The seeds in testdata/fuzz/FuzzPipeline are the demo
// cluster, the snapshot package's fixtures, and hostile snapshots: control characters in every
// string, 64 KiB strings, no nodes.
func FuzzPipeline(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		snap, err := snapshot.Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		checkPipeline(t, diagnose.Analyze(snap, diagnose.Options{}))
	})
}

// checkPipeline prints r every way karpnet does and fails t on what FuzzPipeline forbids.
func checkPipeline(t *testing.T, r diagnose.Report) {
	t.Helper()
	for _, colour := range []bool{false, true} {
		st := style.New(style.Renderer(io.Discard, colour))
		for _, f := range []Format{Table, Wide} {
			var check, nodes bytes.Buffer
			if err := PrintReport(&check, r, f, st); err != nil {
				t.Fatalf("check -o %s: %v", f, err)
			}
			if err := PrintNodes(&nodes, r, f, st); err != nil {
				t.Fatalf("describe node -o %s: %v", f, err)
			}
			checkText(t, fmt.Sprintf("check -o %s (colour %v)", f, colour), check.String(), Width, colour)
			checkText(t, fmt.Sprintf("describe -o %s (colour %v)", f, colour), nodes.String(), Width, colour)
		}
		for _, n := range r.Nodes {
			for _, w := range []int{20, 40, 0} {
				limit := max(w, 40)
				if w == 0 {
					limit = Width
				}
				checkText(t, fmt.Sprintf("sheet of %q at %d (colour %v)", n.Identity.Node, w, colour),
					NodeSheet(n, nil, w, st), limit, colour)
			}
		}
	}
	checkDiffs(t, r)
	checkCIFormats(t, r)
	var j, y bytes.Buffer
	if err := PrintReport(&j, r, JSON, nil); err != nil {
		t.Fatalf("check -o json: %v", err)
	}
	if err := PrintReport(&y, r, YAML, nil); err != nil {
		t.Fatalf("check -o yaml: %v", err)
	}
	var fromJSON, fromYAML diagnose.Report
	if err := json.Unmarshal(j.Bytes(), &fromJSON); err != nil {
		t.Fatalf("check -o json does not decode: %v", err)
	}
	if err := yaml.Unmarshal(y.Bytes(), &fromYAML); err != nil {
		t.Fatalf("check -o yaml does not decode: %v", err)
	}
	if diff := cmp.Diff(fromJSON, fromYAML); diff != "" {
		t.Errorf("JSON and YAML carry different reports (-json +yaml):\n%s", diff)
	}
}

// checkCIFormats prints r as JUnit and SARIF and fails t when the JUnit is not well-formed
// XML or the SARIF log does not validate against the SARIF 2.1.0 schema.
func checkCIFormats(t *testing.T, r diagnose.Report) {
	t.Helper()
	ci := CI{FailOn: diagnose.Warning, Version: "fuzz"}
	var junit, sarif bytes.Buffer
	if err := PrintCheck(&junit, r, JUnit, nil, ci); err != nil {
		t.Fatalf("check -o junit: %v", err)
	}
	dec := xml.NewDecoder(&junit)
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("check -o junit is not well-formed XML: %v", err)
		}
	}
	if err := PrintCheck(&sarif, r, SARIF, nil, ci); err != nil {
		t.Fatalf("check -o sarif: %v", err)
	}
	if err := cischema.SARIFError(sarif.Bytes()); err != nil {
		t.Fatalf("check -o sarif does not validate: %v", err)
	}
}

// checkText fails t when out holds a raw control character or a line wider than limit.
func checkText(t *testing.T, what, out string, limit int, colour bool) {
	t.Helper()
	if bad := hostiletext.RawControls(out, colour); len(bad) > 0 {
		t.Fatalf("%s: %d raw control characters, e.g. %q", what, len(bad), bad[0])
	}
	for i, l := range strings.Split(out, "\n") {
		if w := width(l); w > limit && !isCommandLine(l) {
			t.Fatalf("%s: line %d is %d columns, want at most %d: %q", what, i+1, w, limit, l)
		}
	}
}

// checkDiffs prints the diffs of r with an empty report, both ways, as text with colour on and
// off and as JSON, and fails t on what FuzzPipeline forbids.
func checkDiffs(t *testing.T, r diagnose.Report) {
	t.Helper()
	for _, d := range []diff.Diff{
		diff.Compare(diagnose.Report{}, r, diff.Side{Source: "empty"}, diff.Side{Source: "fuzzed"}),
		diff.Compare(r, diagnose.Report{}, diff.Side{Source: "fuzzed"}, diff.Side{Source: "empty"}),
	} {
		for _, colour := range []bool{false, true} {
			var out bytes.Buffer
			if err := PrintDiff(&out, d, Table, style.New(style.Renderer(io.Discard, colour))); err != nil {
				t.Fatalf("diff: %v", err)
			}
			checkText(t, fmt.Sprintf("diff from %s (colour %v)", d.Old.Source, colour), out.String(), Width, colour)
		}
		var j bytes.Buffer
		if err := PrintDiff(&j, d, JSON, nil); err != nil {
			t.Fatalf("diff -o json: %v", err)
		}
		var back diff.Diff
		if err := json.Unmarshal(j.Bytes(), &back); err != nil {
			t.Fatalf("diff -o json does not decode: %v", err)
		}
	}
}
