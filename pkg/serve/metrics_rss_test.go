package serve

import (
	"cmp"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestMetricsPeakRSS measures the process's peak RSS while KARPNET_SERVE_METRICS_RSS concurrent
// clients scrape /metrics of a 4,000-node report with NodeMetrics under the Deployment's
// GOMEMLIMIT of 512 MiB (run it alone: go test ./pkg/serve -run TestMetricsPeakRSS -count=1
// with KARPNET_SERVE_METRICS_RSS=128; KARPNET_SERVE_METRICS_RSS_CAP=N answers N at once instead
// of DefaultMaxMetricsRequests; KARPNET_SERVE_METRICS_NODES=N grows the report to N nodes). It is
// skipped otherwise; docs/serve.md has its figures.
func TestMetricsPeakRSS(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("KARPNET_SERVE_METRICS_RSS"))
	if n <= 0 {
		t.Skip("KARPNET_SERVE_METRICS_RSS=N measures N concurrent /metrics scrapes")
	}
	limit, _ := strconv.Atoi(os.Getenv("KARPNET_SERVE_METRICS_RSS_CAP"))
	debug.SetMemoryLimit(512 << 20)
	nodes, _ := strconv.Atoi(os.Getenv("KARPNET_SERVE_METRICS_NODES"))
	r := syntheticReport(t, cmp.Or(nodes, 4000))
	s := New(Options{Collect: (&script{steps: []step{{report: r}}}).collect, Interval: time.Hour, MaxAge: time.Hour,
		NodeMetrics: true, MaxMetricsRequests: limit, HTTP: HTTPLimits{MaxConnections: 1000}})
	addr := startServer(t, s)
	runtime.GC()
	base := maxRSS(t)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	allocBefore := ms.TotalAlloc
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
			req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/metrics", nil)
			req.Header.Set("Accept-Encoding", "gzip")
			resp, err := client.Do(req)
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
	runtime.ReadMemStats(&ms)
	t.Logf("%d concurrent /metrics of %d nodes with NodeMetrics (%d karpnet_ series, %.0f KB gzip-compressed each): answers %v, peak RSS %d MiB (%d MiB before the scrapes), %d MiB allocated",
		n, len(r.Nodes), seriesCount(t, s), float64(size)/1e3, codes, maxRSS(t)>>20, base>>20, (ms.TotalAlloc-allocBefore)>>20)
}
