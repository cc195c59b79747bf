package serve

import (
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// index is what / answers: the endpoints.
const index = `karpnet serve
/metrics  Prometheus metrics of the latest good collection
/report   the latest good report, as kubectl karpnet check -o json prints it
/healthz  200 while the process runs
/readyz   200 once a collection has succeeded, 503 before
`

// Handler returns the HTTP handler of /metrics, /report, /healthz, /readyz and /.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{
		Registry: s.registry, ErrorHandling: promhttp.ContinueOnError,
	}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { text(w, http.StatusOK, "ok\n") })
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.HandleFunc("GET /report", s.report)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) { text(w, http.StatusOK, index) })
	return mux
}

// readyz answers 200 once a collection has succeeded (also while later ones fail: the last
// good data is still served, and karpnet_data_stale says it is old), 503 before.
func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	s.mu.RLock()
	ready, since, failed, lastErr := s.st.view != nil, s.st.lastSuccess, s.st.lastFailed, s.st.lastError
	s.mu.RUnlock()
	switch {
	case !ready && lastErr != "":
		text(w, http.StatusServiceUnavailable, "not ready: no collection has succeeded yet; the last one failed: "+oneLine(lastErr)+"\n")
	case !ready:
		text(w, http.StatusServiceUnavailable, "not ready: the first collection is under way\n")
	case failed:
		text(w, http.StatusOK, fmt.Sprintf("ok: serving the collection of %s; the last one failed: %s\n",
			since.UTC().Format(time.RFC3339), oneLine(lastErr)))
	default:
		text(w, http.StatusOK, fmt.Sprintf("ok: serving the collection of %s\n", since.UTC().Format(time.RFC3339)))
	}
}

// report writes the latest good report as check -o json does; 503 before the first.
func (s *Server) report(w http.ResponseWriter, _ *http.Request) {
	r, ok := s.Report()
	if !ok {
		text(w, http.StatusServiceUnavailable, "no report yet: the first collection has not succeeded (see /readyz)\n")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if s.Stale() {
		w.Header().Set("Warning", `110 karpnet "the last collection failed: this is the last good report"`)
	}
	_ = printer.PrintReport(w, r, printer.JSON, nil) // a client gone mid-answer is not ours to report
}

func text(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(body))
}
