package printer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestJSONRoundTrip(t *testing.T) {
	tests := []struct {
		name   string
		print  printFunc
		report diagnose.Report
	}{
		{name: "check with findings", print: printReport, report: findingsReport()},
		{name: "clean check", print: printReport, report: cleanReport()},
		{name: "describe", print: printNodes, report: nodesReport(gpuNodeReport(), goneNodeReport(), skippedNodeReport())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tt.print(&buf, tt.report, JSON, nil); err != nil {
				t.Fatalf("printing JSON: %v", err)
			}
			var got diagnose.Report
			if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatalf("decoding the printed JSON: %v\n%s", err, buf.String())
			}
			want := publicReport(tt.report)
			want.Nodes = publicNodes(want.Nodes)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("JSON round trip changed the report (-want +got):\n%s", diff)
			}
			if !got.Taken.Equal(tt.report.Taken) {
				t.Errorf("taken = %v, want the instant %v", got.Taken, tt.report.Taken)
			}
			if !strings.Contains(buf.String(), "\n  \"kind\": \"Report\"") {
				t.Errorf("JSON is not indented by two spaces or lacks kind:\n%s", buf.String())
			}
		})
	}
}

func TestYAMLKeysEqualJSON(t *testing.T) {
	for _, r := range []diagnose.Report{findingsReport(), cleanReport(), nodesReport(goneNodeReport())} {
		t.Run(r.Context, func(t *testing.T) {
			var j, y bytes.Buffer
			if err := PrintReport(&j, r, JSON, nil); err != nil {
				t.Fatalf("printing JSON: %v", err)
			}
			if err := PrintReport(&y, r, YAML, nil); err != nil {
				t.Fatalf("printing YAML: %v", err)
			}
			var fromJSON, fromYAML any
			if err := json.Unmarshal(j.Bytes(), &fromJSON); err != nil {
				t.Fatalf("decoding JSON: %v", err)
			}
			if err := yaml.Unmarshal(y.Bytes(), &fromYAML); err != nil {
				t.Fatalf("decoding YAML: %v", err)
			}
			if diff := cmp.Diff(fromJSON, fromYAML); diff != "" {
				t.Errorf("YAML and JSON carry different data (-json +yaml):\n%s", diff)
			}
		})
	}
}

func TestPublicReportFillsDefaults(t *testing.T) {
	// The nodes are shaped one at a time as they are written (publicNode), not in publicReport.
	got := publicReport(diagnose.Report{Nodes: []diagnose.NodeReport{{Identity: diagnose.Identity{Node: "a"}}}})
	got.Nodes = publicNodes(got.Nodes)
	want := diagnose.Report{
		Kind:       diagnose.ReportKind,
		APIVersion: diagnose.ReportAPIVersion,
		Summary: diagnose.Summary{Findings: map[string]int{},
			Statuses: map[string]int{"ok": 0, "initialising": 0, "terminating": 0, "info": 0, "warning": 0, "critical": 0, "skipped": 0}},
		Nodes: []diagnose.NodeReport{{
			Identity:  diagnose.Identity{Node: "a"},
			Addresses: []diagnose.AddressReport{},
			ENIs:      []diagnose.ENIReport{},
			Findings:  []diagnose.Finding{},
		}},
		Subnets:  []diagnose.SubnetUse{},
		Findings: []diagnose.Finding{},
		Gaps:     []snapshot.Gap{},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("publicReport (-want +got):\n%s", diff)
	}
}

func TestStreamedJSONEqualsWholeEncoding(t *testing.T) {
	for _, tt := range []struct {
		name   string
		report diagnose.Report
	}{
		{"three nodes", nodesReport(gpuNodeReport(), goneNodeReport(), skippedNodeReport())},
		{"one node", nodesReport(gpuNodeReport())},
		{"no nodes", cleanReport()},
		{"findings", findingsReport()},
		{"batches", manyNodesReport(3*jsonBatch + 7)},
		{"one batch", manyNodesReport(jsonBatch)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := publicReport(tt.report)
			whole := r
			whole.Nodes = publicNodes(r.Nodes)
			var want, got bytes.Buffer
			if err := encodeJSON(&want, whole, "", "  "); err != nil {
				t.Fatal(err)
			}
			if err := streamJSON(&got, r); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.String(), got.String()); diff != "" {
				t.Errorf("streamed JSON differs from encoding the whole report (-want +got):\n%s", diff)
			}
		})
	}
}

// manyNodesReport is a report of n nodes of every fixture kind, some names with characters
// escapeControls rewrites: more than one batch of streamNodes.
func manyNodesReport(n int) diagnose.Report {
	kinds := []diagnose.NodeReport{gpuNodeReport(), goneNodeReport(), skippedNodeReport()}
	nodes := make([]diagnose.NodeReport, n)
	for i := range nodes {
		nodes[i] = kinds[i%len(kinds)]
		nodes[i].Identity.Node = fmt.Sprintf("node-%05d", i)
		if i%100 == 0 {
			nodes[i].Identity.Node += "\u009b\u007f\ufffe"
		}
	}
	return nodesReport(nodes...)
}

// writesThenFails takes n writes, then fails every one.
type writesThenFails struct{ n int }

func (w *writesThenFails) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errors.New("disk full")
	}
	w.n--
	return len(p), nil
}

// TestStreamedJSONStopsAtAFailedWrite fails the write of the first, the second and a later
// batch: the error is returned, and no encoding goroutine is left behind.
func TestStreamedJSONStopsAtAFailedWrite(t *testing.T) {
	r := publicReport(manyNodesReport(20 * jsonBatch))
	before := runtime.NumGoroutine()
	for _, n := range []int{0, 1, 2, 10} {
		err := streamJSON(&writesThenFails{n: n}, r)
		if err == nil || !strings.Contains(err.Error(), "writing the report: disk full") {
			t.Errorf("after %d writes: got %v, want the write error", n, err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := runtime.NumGoroutine(); got > before {
		t.Errorf("%d goroutines after the failed writes, %d before", got, before)
	}
}

// BenchmarkStreamJSON writes the JSON report of 10,000 nodes.
func BenchmarkStreamJSON(b *testing.B) {
	r := publicReport(manyNodesReport(10000))
	b.ReportAllocs()
	for b.Loop() {
		if err := streamJSON(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}
