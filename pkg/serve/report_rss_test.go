package serve

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// syntheticReport is the demo's report grown to n nodes: its nodes and their findings
// repeated under new names.
func syntheticReport(t testing.TB, n int) diagnose.Report {
	t.Helper()
	demo := takenAt(demoReport(t), time.Now())
	r := demo
	r.Nodes, r.Findings = nil, nil
	for i := 0; len(r.Nodes) < n; i++ {
		for _, node := range demo.Nodes {
			if len(r.Nodes) == n {
				break
			}
			old := node.Identity.Node
			node.Identity.Node = fmt.Sprintf("%s-%d", old, i)
			r.Nodes = append(r.Nodes, node)
			for _, f := range demo.Findings {
				if f.Node == old {
					f.Node = node.Identity.Node
					r.Findings = append(r.Findings, f)
				}
			}
		}
	}
	return r
}

// TestReportPeakRSS measures the process's peak RSS while KARPNET_SERVE_RSS concurrent clients
// read /report of a 4,000-node report under the Deployment's GOMEMLIMIT of 512 MiB (run it
// alone: go test ./pkg/serve -run TestReportPeakRSS -count=1 with KARPNET_SERVE_RSS=100;
// KARPNET_SERVE_RSS_CAP=N answers N at once instead of DefaultMaxReportRequests).
// It is skipped otherwise; docs/serve.md has its figures.
func TestReportPeakRSS(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("KARPNET_SERVE_RSS"))
	if n <= 0 {
		t.Skip("KARPNET_SERVE_RSS=N measures N concurrent /report requests")
	}
	limit, _ := strconv.Atoi(os.Getenv("KARPNET_SERVE_RSS_CAP"))
	debug.SetMemoryLimit(512 << 20)
	r := syntheticReport(t, 4000)
	s := New(Options{Collect: (&script{steps: []step{{report: r}}}).collect, Interval: time.Hour, MaxAge: time.Hour,
		Report: ReportAccess{Open: true}, MaxReportRequests: limit, HTTP: HTTPLimits{MaxConnections: 1000}})
	addr := startServer(t, s)
	runtime.GC()
	base := maxRSS(t)
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: n}}
	start := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	size := int64(0)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			resp, err := client.Get("http://" + addr + "/report")
			if err != nil {
				t.Error(err)
				return
			}
			got, _ := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			mu.Lock()
			codes[resp.StatusCode]++
			if resp.StatusCode == http.StatusOK {
				size = got
			}
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	t.Logf("%d concurrent /report of %d nodes (%.1f MB each): answers %v, peak RSS %d MiB (%d MiB before the requests)",
		n, len(r.Nodes), float64(size)/1e6, codes, maxRSS(t)>>20, base>>20)
}

// maxRSS returns the process's peak resident set size in bytes.
func maxRSS(t *testing.T) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Maxrss << 10
}
