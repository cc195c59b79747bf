package scale

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/charmbracelet/lipgloss"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// heapPerNode is what `check --snapshot` holds, in bytes per node of the synthetic cluster:
// live once the snapshot is read, live once analysed (the report: check lets the snapshot go),
// and the highest heap seen from reading to printing, garbage included.
type heapPerNode struct {
	read, report, peak float64
	findings           int
}

// measureHeap reads text (a written scale snapshot of n nodes), analyses it and prints the
// JSON report, as check does, and returns the heap per node each step holds.
func measureHeap(tb testing.TB, text []byte, n int) heapPerNode {
	tb.Helper()
	base := LiveHeap()
	h := StartHeapSampler()
	s, err := snapshot.Read(bytes.NewReader(text))
	if err != nil {
		tb.Fatal(err)
	}
	read := LiveHeap()
	r := diagnose.Analyze(s, diagnose.Options{})
	s = nil
	report := LiveHeap()
	if err := printer.PrintCheck(io.Discard, r, printer.JSON, style.New(lipgloss.NewRenderer(io.Discard)), printer.CI{}); err != nil {
		tb.Fatal(err)
	}
	peak := h.Stop()
	runtime.KeepAlive(r)
	runtime.KeepAlive(text) // held throughout, as in base
	per := func(b uint64) float64 { return (float64(b) - float64(base)) / float64(n) }
	return heapPerNode{read: per(read), report: per(report), peak: per(peak), findings: len(r.Findings)}
}

// The heap a node may take, per step: about a sixth above what 2,000 nodes took when these were
// set (4,890 B read, 1,950 B report, go1.26.8), so that a change that holds a field more per
// node fails here, not in a cluster. The peak of so small a cluster is mostly the collector's
// room (it lets the heap grow to twice what is live: 24,700 B a node here, about 9,000 at
// 10,000 nodes): its bound catches a step that holds a copy of the snapshot.
const (
	maxReadBytesPerNode   = 5700
	maxReportBytesPerNode = 2300
	maxPeakBytesPerNode   = 30000
)

// TestHeapPerNode guards the heap `check --snapshot` takes per node of a 2,000-node cluster.
func TestHeapPerNode(t *testing.T) {
	const n = 2000
	text := written(t, n)
	got := measureHeap(t, text, n)
	t.Logf("per node: %.0f B read, %.0f B report, %.0f B at the peak", got.read, got.report, got.peak)
	if got.findings == 0 {
		t.Fatal("no findings: the planted faults were not found")
	}
	if got.read > maxReadBytesPerNode {
		t.Errorf("a read snapshot holds %.0f B a node, more than %d", got.read, maxReadBytesPerNode)
	}
	if got.report > maxReportBytesPerNode {
		t.Errorf("the report holds %.0f B a node, more than %d", got.report, maxReportBytesPerNode)
	}
	if got.peak > maxPeakBytesPerNode {
		t.Errorf("reading, analysing and printing peaked at %.0f B a node, more than %d", got.peak, maxPeakBytesPerNode)
	}
}

// BenchmarkCheckHeap reads, analyses and prints a 10,000-node snapshot as `check --snapshot
// -o json` does, and reports the heap per node: live after reading, the report, and the peak.
func BenchmarkCheckHeap(b *testing.B) {
	const n = 10_000
	text := written(b, n)
	var got heapPerNode
	for b.Loop() {
		got = measureHeap(b, text, n)
	}
	b.ReportMetric(got.read, "read-B/node")
	b.ReportMetric(got.report, "report-B/node")
	b.ReportMetric(got.peak, "peak-heap-B/node")
}
