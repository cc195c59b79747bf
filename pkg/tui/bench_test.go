package tui

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/test/scale/results"
)

var tuiResults = flag.String("tui.results", "", "put BenchmarkFilterKeystroke's and BenchmarkView's figures at each size into this results file (test/scale/results.json renders docs/scale.md)")

// measured are the figures of the benchmarks' last runs at each size, for -tui.results.
var measured struct {
	sync.Mutex
	rows map[int]results.Row
}

// record keeps what one op of b took at n nodes into the row set sets, for -tui.results.
func record(b *testing.B, n int, set func(r *results.Row, ms float64)) {
	if *tuiResults == "" {
		return
	}
	measured.Lock()
	defer measured.Unlock()
	if measured.rows == nil {
		measured.rows = map[int]results.Row{}
	}
	r := measured.rows[n]
	r.Benchmark, r.Nodes = results.TUI, n
	set(&r, float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6)
	measured.rows[n] = r
}

func TestMain(m *testing.M) {
	code := m.Run()
	if *tuiResults != "" && code == 0 {
		var rows []results.Row
		for _, n := range slices.Sorted(maps.Keys(measured.rows)) {
			if r := measured.rows[n]; r.KeystrokeMs > 0 && r.FrameMs > 0 {
				rows = append(rows, results.Stamp(r, time.Now()))
			}
		}
		if len(rows) == 0 {
			fmt.Fprintln(os.Stderr, "-tui.results: run BenchmarkFilterKeystroke and BenchmarkView (-bench 'FilterKeystroke|View$')")
			code = 1
		} else if err := results.Update(*tuiResults, rows...); err != nil {
			fmt.Fprintln(os.Stderr, "-tui.results:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// syntheticReport builds a report of n nodes across pools, zones and subnets, one in ten
// with a finding, for benchmarks at cluster scale.
func syntheticReport(n int) diagnose.Report {
	r := diagnose.Report{Taken: time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC), Context: "bench", Region: "us-west-2"}
	pools := []string{"general", "batch", "training", "gpu", "spot"}
	zones := []string{"us-west-2a", "us-west-2b", "us-west-2c"}
	for i := range n {
		ip := fmt.Sprintf("10.%d.%d.%d", i/65536, i/256%256, i%256)
		avail := int32(200 - i%200)
		nr := diagnose.NodeReport{
			Identity: diagnose.Identity{
				Node: fmt.Sprintf("ip-10-%d-%d.us-west-2.compute.internal", i/250, i%250), InstanceType: "m6i.xlarge",
				Zone: zones[i%len(zones)], NodePool: pools[i%len(pools)], NodeClass: "default",
			},
			Addresses: []diagnose.AddressReport{{Address: ip}},
			Subnet: &diagnose.SubnetReport{ID: fmt.Sprintf("subnet-%017d", i%40), CIDR: "10.0.0.0/22",
				Zone: zones[i%len(zones)], AvailableIPs: &avail},
			Capacity: &diagnose.CapacityReport{Pods: 58, IPCapacity: 58, DefaultCardENIs: 4, ENIsAttached: 2},
			Status:   "ok",
		}
		if i%10 == 0 {
			f := diagnose.Finding{ID: "max-pods-exceeds-ip-capacity", Severity: diagnose.Critical, Node: nr.Identity.Node,
				Message: "capacity.pods is above what the ENIs can give"}
			nr.Findings, nr.Status = []diagnose.Finding{f}, "critical"
			r.Findings = append(r.Findings, f)
		}
		r.Nodes = append(r.Nodes, nr)
	}
	return r
}

// benchSizes are the cluster sizes every TUI benchmark runs at: a large cluster and the
// ultra-scale one. A frame is 16 ms; a keystroke and a redraw must stay well under it at both.
var benchSizes = []int{5000, 100000}

// bySize runs fn as one sub-benchmark per size in benchSizes, named nodes=N.
func bySize(b *testing.B, fn func(b *testing.B, n int)) {
	for _, n := range benchSizes {
		b.Run("nodes="+strconv.Itoa(n), func(b *testing.B) { fn(b, n) })
	}
}

// BenchmarkFilterKeystroke measures one more filter character over the nodes, and the frame after it.
func BenchmarkFilterKeystroke(b *testing.B) {
	bySize(b, func(b *testing.B, n int) {
		m := press(b, ready(b, syntheticReport(n), 200, 60), "/", "i", "p", "-", "1", "0", "-", "1")
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			next := update(b, m, keyMsg("2"))
			if !strings.Contains(next.View(), "ip-10-12") {
				b.Fatal("the frame after the keystroke shows no node the filter matches")
			}
		}
		record(b, n, func(r *results.Row, ms float64) { r.KeystrokeMs, r.Runs = ms, b.N })
	})
}

// BenchmarkFilterBackspace measures deleting the last filter character over the nodes (the
// matches grow back), and the frame after it.
func BenchmarkFilterBackspace(b *testing.B) {
	bySize(b, func(b *testing.B, n int) {
		m := press(b, ready(b, syntheticReport(n), 200, 60), "/", "i", "p", "-", "1", "0", "-", "1", "2")
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			next := update(b, m, keyMsg("backspace"))
			_ = next.View()
		}
	})
}

// BenchmarkView measures rendering the nodes view at 200x60.
func BenchmarkView(b *testing.B) {
	bySize(b, func(b *testing.B, n int) {
		m := ready(b, syntheticReport(n), 200, 60)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			_ = m.View()
		}
		record(b, n, func(r *results.Row, ms float64) { r.FrameMs = ms })
	})
}

// BenchmarkLoadReport measures deriving the rows of a report when it arrives.
func BenchmarkLoadReport(b *testing.B) {
	bySize(b, func(b *testing.B, n int) {
		r := syntheticReport(n)
		m := ready(b, r, 200, 60)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			_ = update(b, m, reportMsg{report: r})
		}
	})
}

// BenchmarkOpenFindingSheet measures Enter on a finding (one node in ten has one, all in one
// group): its sheet with references and catalogue entry, and the frame after it.
func BenchmarkOpenFindingSheet(b *testing.B) {
	bySize(b, func(b *testing.B, n int) {
		m := press(b, ready(b, syntheticReport(n), 200, 60), "f", "enter")
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			next := update(b, m, keyMsg("enter"))
			if !next.onFinding() {
				b.Fatalf("enter on a finding: view %d, want the finding sheet", next.view)
			}
			_ = next.View()
		}
	})
}

// BenchmarkWatchRefresh measures a watch reload of a report whose findings changed (one in
// ten of the first report's gone, as many new): deriving the rows, comparing with the
// previous collection, marking what is new and drawing the findings view.
func BenchmarkWatchRefresh(b *testing.B) {
	bySize(b, func(b *testing.B, n int) {
		first := syntheticReport(n)
		second := first
		second.Findings = nil
		for i, f := range first.Findings {
			if i%10 == 0 {
				f.Resource = "subnet-" + strconv.Itoa(i)
			}
			second.Findings = append(second.Findings, f)
		}
		m := press(b, ready(b, first, 200, 60), "f")
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			next := update(b, m, reportMsg{report: second})
			if len(next.data.changes.added) == 0 {
				b.Fatal("the reload marks no finding new")
			}
			_ = next.View()
		}
	})
}
