package serve

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/common/expfmt"
)

// index is what / answers: the endpoints.
const index = `karpnet serve
/metrics  Prometheus metrics of the latest good collection
/report   the latest good report, as kubectl karpnet check -o json prints it (off unless
          serve runs with --report or --report-token-file)
/healthz  200 while the process runs
/readyz   200 while the data served is younger than --max-age, 503 before the first
          collection succeeds, once the data is older, after a collection cut off by
          --collection-timeout and while one runs past it
`

// Handler returns the HTTP handler of /metrics, /report, /healthz, /readyz and /.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", s.serveMetrics)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { text(w, http.StatusOK, "ok\n") })
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.HandleFunc("GET /report", s.opts.Report.guard(s.report))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) { text(w, http.StatusOK, index) })
	return mux
}

// metricsContentType is the Prometheus text format, which every Prometheus accepts.
var metricsContentType = string(expfmt.NewFormat(expfmt.TypeTextPlain))

// gzipWriters keeps the compressors of /metrics answers between scrapes.
var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed) // a valid level never fails
	return w
}}

// serveMetrics writes the Prometheus exposition: what changes between collections, gathered per
// request (process, Go runtime, staleness, counts), then the latest good collection's figures
// as they were rendered when it ended. Past MaxMetricsRequests at once, 429 with Retry-After.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	select {
	case s.metricsSlots <- struct{}{}:
		defer func() { <-s.metricsSlots }()
	default:
		w.Header().Set("Retry-After", "1")
		text(w, http.StatusTooManyRequests, fmt.Sprintf("too many /metrics requests at once (at most %d): retry in 1 s\n", cap(s.metricsSlots)))
		return
	}
	if s.metricsEntered != nil {
		s.metricsEntered()
	}
	families, _ := s.registry.Gather() // what was gathered is served, as promhttp's ContinueOnError does
	s.mu.RLock()
	v := s.st.view
	s.mu.RUnlock()
	h := w.Header()
	h.Set("Content-Type", metricsContentType)
	h.Set("Vary", "Accept-Encoding")
	var out io.Writer = w
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		zw := gzipWriters.Get().(*gzip.Writer)
		zw.Reset(w)
		defer func() {
			_ = zw.Close() // a client gone mid-answer is not ours to report
			zw.Reset(nil)
			gzipWriters.Put(zw)
		}()
		out = zw
	}
	bw := bufio.NewWriterSize(out, 32<<10)
	for _, mf := range families {
		if _, err := expfmt.MetricFamilyToText(bw, mf); err != nil {
			return // the client is gone
		}
	}
	if v != nil {
		_, _ = bw.Write(v.exposition)
	}
	_ = bw.Flush()
}

// readyz answers 200 while the data served is younger than MaxAge, measured from the
// snapshot's Taken (also while later collections fail: the last good data is still served,
// and karpnet_data_stale says so), 503 before the first collection succeeds, once the data
// is older, after a collection cut off by its deadline and while one runs past Overdue.
func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	s.mu.RLock()
	ready, taken, failed, lastErr, timedOut := s.st.view != nil, s.st.taken(), s.st.lastFailed, s.st.lastError, s.st.lastTimedOut
	now := s.opts.Now()
	hung := s.hung(&s.st, now)
	s.mu.RUnlock()
	data := "serving data taken at " + taken.UTC().Format(time.RFC3339)
	switch {
	case hung > 0:
		text(w, http.StatusServiceUnavailable, fmt.Sprintf("not ready: the collection under way has run %s without returning, past its deadline of %s (--collection-timeout)\n",
			hung.Round(time.Second), s.opts.Timeout))
	case timedOut:
		text(w, http.StatusServiceUnavailable, "not ready: the last collection was "+oneLine(lastErr)+"\n")
	case !ready && lastErr != "":
		text(w, http.StatusServiceUnavailable, "not ready: no collection has succeeded yet; the last one failed: "+oneLine(lastErr)+"\n")
	case !ready:
		text(w, http.StatusServiceUnavailable, "not ready: the first collection is under way\n")
	case s.opts.MaxAge > 0 && now.Sub(taken) > s.opts.MaxAge:
		msg := fmt.Sprintf("not ready: %s, %s old, older than --max-age %s", data, now.Sub(taken).Round(time.Second), s.opts.MaxAge)
		if failed {
			msg += "; the last collection failed: " + oneLine(lastErr)
		} else {
			msg += " (a --snapshot file is as old as when it was saved: serve a newer one, or raise --max-age)"
		}
		text(w, http.StatusServiceUnavailable, msg+"\n")
	case failed:
		text(w, http.StatusOK, fmt.Sprintf("ok: %s; the last one failed: %s\n", data, oneLine(lastErr)))
	default:
		text(w, http.StatusOK, "ok: "+data+"\n")
	}
}

// report writes the latest good report as check -o json does, gzip-compressed when the client
// accepts it; 503 before the first. Every request shares one rendering per collection; past
// MaxReportRequests at once, 429 with Retry-After.
func (s *Server) report(w http.ResponseWriter, r *http.Request) {
	select {
	case s.reportSlots <- struct{}{}:
		defer func() { <-s.reportSlots }()
	default:
		w.Header().Set("Retry-After", "1")
		text(w, http.StatusTooManyRequests, fmt.Sprintf("too many /report requests at once (at most %d): retry in 1 s\n", cap(s.reportSlots)))
		return
	}
	s.mu.RLock()
	v, stale := s.st.view, s.stale(&s.st, s.opts.Now())
	s.mu.RUnlock()
	if v == nil {
		text(w, http.StatusServiceUnavailable, "no report yet: the first collection has not succeeded (see /readyz)\n")
		return
	}
	if v.body == nil || v.body.err != nil {
		msg := "the report was not rendered"
		if v.body != nil {
			msg = oneLine(v.body.err.Error())
		}
		text(w, http.StatusInternalServerError, "rendering the report: "+msg+"\n")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Vary", "Accept-Encoding")
	if stale {
		h.Set("Warning", `110 karpnet "the last collection failed: this is the last good report"`)
	}
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Length", strconv.Itoa(len(v.body.gz)))
		_, _ = w.Write(v.body.gz) // a client gone mid-answer is not ours to report
		return
	}
	// The JSON is only kept compressed: it is inflated as it is written.
	zr, err := gzip.NewReader(bytes.NewReader(v.body.gz))
	if err != nil {
		text(w, http.StatusInternalServerError, "reading the rendered report: "+oneLine(err.Error())+"\n")
		return
	}
	_, _ = io.Copy(w, zr) // a client gone mid-answer is not ours to report
}

// acceptsGzip reports whether an Accept-Encoding header admits gzip (by name or *, not with q=0).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if name = strings.ToLower(strings.TrimSpace(name)); name != "gzip" && name != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.ToLower(params), " ", "")
		if q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000" {
			return true
		}
	}
	return false
}

func text(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(body))
}
