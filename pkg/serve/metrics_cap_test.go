package serve

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// discard is a ResponseWriter that keeps the status and counts the bytes.
type discard struct {
	header http.Header
	code   int
	n      int
}

func (d *discard) Header() http.Header { return d.header }
func (d *discard) WriteHeader(code int) {
	if d.code == 0 {
		d.code = code
	}
}

func (d *discard) Write(b []byte) (int, error) {
	d.WriteHeader(http.StatusOK)
	d.n += len(b)
	return len(b), nil
}

// TestMetricsScrapesAreCapped: of 40 scrapes at once, MaxMetricsRequests are answered and
// never more at the same time; the others get 429 with Retry-After at once.
func TestMetricsScrapesAreCapped(t *testing.T) {
	const limit, scrapes = 4, 40
	s := New(Options{Collect: (&script{steps: []step{{report: syntheticReport(t, 400)}}}).collect,
		NodeMetrics: true, MaxMetricsRequests: limit})
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	var inside, most atomic.Int64
	release := make(chan struct{})
	entered := make(chan struct{}, scrapes)
	s.metricsEntered = func() {
		n := inside.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		entered <- struct{}{}
		<-release
		inside.Add(-1)
	}
	h := s.Handler()
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	refused := make(chan struct{}, scrapes)
	for range scrapes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
			mu.Lock()
			defer mu.Unlock()
			codes[rec.Code]++
			if rec.Code == http.StatusTooManyRequests {
				if rec.Header().Get("Retry-After") == "" {
					t.Error("429 without Retry-After")
				}
				refused <- struct{}{}
			}
		}()
	}
	// The refused scrapes are answered while the others are still being served.
	timeout := time.After(10 * time.Second)
	for range scrapes - limit {
		select {
		case <-refused:
		case <-timeout:
			t.Fatalf("%d scrapes at once with a cap of %d: %d entered, want the rest refused at once", scrapes, limit, inside.Load())
		}
	}
	close(release)
	wg.Wait()
	if most.Load() > limit || codes[http.StatusOK] != limit || codes[http.StatusTooManyRequests] != scrapes-limit {
		t.Errorf("%d scrapes at once with a cap of %d: at most %d answered at once, answers %v; want %d 200 and %d 429",
			scrapes, limit, most.Load(), codes, limit, scrapes-limit)
	}
}

// TestMetricsRenderedOncePerCollection: the collection's figures are rendered once per
// collection however many scrapes read them, and a scrape of a 4,000-node report with
// NodeMetrics (over 12,000 series) allocates a small part of what it sends, gzip or not.
func TestMetricsRenderedOncePerCollection(t *testing.T) {
	r := syntheticReport(t, 4000)
	s := New(Options{Collect: (&script{steps: []step{{report: r}}}).collect, NodeMetrics: true})
	h := s.Handler()
	before := renderings.Load()
	const collections, scrapes = 3, 16
	size := 0
	for range collections {
		if err := s.CollectOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range scrapes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := &discard{header: http.Header{}}
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
			}()
		}
		wg.Wait()
	}
	if got := renderings.Load() - before; got != collections {
		t.Errorf("%d collections, %d scrapes each: %d renderings of the figures, want one per collection", collections, scrapes, got)
	}
	for _, gz := range []bool{false, true} {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if gz {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		w := &discard{header: http.Header{}}
		h.ServeHTTP(w, req) // warms the compressors' pool
		size = w.n
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		allocated := ms.TotalAlloc
		const n = 8
		for range n {
			h.ServeHTTP(&discard{header: http.Header{}}, req)
		}
		runtime.ReadMemStats(&ms)
		perScrape := (ms.TotalAlloc - allocated) / n
		t.Logf("gzip %v: %d bytes a scrape, %d bytes allocated a scrape", gz, size, perScrape)
		if perScrape > 1<<20 {
			t.Errorf("gzip %v: a scrape of %d nodes allocates %d KiB, want at most 1 MiB", gz, len(r.Nodes), perScrape>>10)
		}
	}
	// The answer is the whole exposition, compressed when asked.
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	h.ServeHTTP(rec, req)
	zr, err := gzip.NewReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	for _, family := range []string{"go_goroutines", "karpnet_data_stale", "karpnet_node_max_pods", "karpnet_findings"} {
		if !strings.Contains(string(body), "\n"+family+"{") && !strings.Contains(string(body), "\n"+family+" ") {
			t.Errorf("gzip-compressed /metrics lacks %s", family)
		}
	}
}
