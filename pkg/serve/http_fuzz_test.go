package serve

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// FuzzHandler sends a fuzzed request line and headers to the handler, with /report behind a
// token: it never panics, answers one of the statuses it documents, and never gives /report's
// body without the token.
func FuzzHandler(f *testing.F) {
	for _, seed := range []string{
		"GET /report HTTP/1.1\r\nHost: k\r\nAuthorization: Bearer tok\r\nAccept-Encoding: gzip\r\n\r\n",
		"GET /report HTTP/1.1\r\nHost: k\r\nAuthorization: Bearer  tok \r\n\r\n",
		"GET /metrics HTTP/1.1\r\nHost: k\r\nAccept-Encoding: gzip;q=0, *\r\n\r\n",
		"GET /readyz?x=%00 HTTP/1.0\r\n\r\n",
		"POST /report HTTP/1.1\r\nHost: k\r\nContent-Length: 3\r\n\r\nabc",
		"GET /%2e%2e/report HTTP/1.1\r\nHost: k\r\n\r\n",
	} {
		f.Add(seed)
	}
	s := New(Options{Collect: (&script{steps: []step{{report: takenAt(demoReport(f), time.Now())}}}).collect,
		MaxAge: time.Hour, Report: ReportAccess{Token: "tok"}})
	if err := s.CollectOnce(f.Context()); err != nil {
		f.Fatal(err)
	}
	h := s.Handler()
	known := map[int]bool{200: true, 301: true, 307: true, 308: true, 400: true, 401: true, 404: true, 405: true, 429: true, 503: true}
	f.Fuzz(func(t *testing.T, raw string) {
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
		if err != nil {
			return // net/http's server refuses it before any handler
		}
		req.RequestURI = ""
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if !known[rec.Code] {
			t.Errorf("%q: status %d", raw, rec.Code)
		}
		if rec.Code == http.StatusOK && req.URL.Path == "/report" && !ReportAccess.allowed(ReportAccess{Token: "tok"}, req) {
			t.Errorf("%q: /report answered without the token", raw)
		}
	})
}
