package serve

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// TestConcurrentReportsShareOneBody: 50 concurrent /report requests get the same bytes, the body
// rendered when the collection ended; the next collection renders its own.
func TestConcurrentReportsShareOneBody(t *testing.T) {
	r := takenAt(demoReport(t), time.Now())
	s := New(Options{Collect: (&script{steps: []step{{report: r}}}).collect, MaxAge: time.Hour,
		Report: ReportAccess{Open: true}, MaxReportRequests: 100})
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	bodies := make([][]byte, 50)
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := get(t, s, "/report")
			if rec.Code != http.StatusOK {
				t.Errorf("/report: %d", rec.Code)
			}
			bodies[i] = rec.Body.Bytes()
		}()
	}
	wg.Wait()
	for i, b := range bodies {
		if !bytes.Equal(b, bodies[0]) || len(b) == 0 {
			t.Fatalf("answer %d differs from answer 0 (%d and %d bytes)", i, len(b), len(bodies[0]))
		}
	}
	first := s.st.view.body
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	_ = get(t, s, "/report")
	if s.st.view.body == first || s.st.view.body == nil {
		t.Error("the next collection's /report is not rendered afresh")
	}
}

// TestReportGzip: a client accepting gzip gets the compressed body, which is the plain one.
func TestReportGzip(t *testing.T) {
	s := New(Options{Collect: (&script{steps: []step{{report: takenAt(demoReport(t), time.Now())}}}).collect,
		MaxAge: time.Hour, Report: ReportAccess{Open: true}})
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	plain := get(t, s, "/report")
	for _, c := range []struct {
		accept string
		gzip   bool
	}{{"", false}, {"gzip", true}, {"br, gzip;q=0.5", true}, {"*", true}, {"gzip;q=0", false}, {"identity", false}} {
		req := httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/report", nil)
		if c.accept != "" {
			req.Header.Set("Accept-Encoding", c.accept)
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		body := rec.Body.Bytes()
		if got := rec.Header().Get("Content-Encoding") == "gzip"; got != c.gzip {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q, want gzip %v", c.accept, rec.Header().Get("Content-Encoding"), c.gzip)
			continue
		}
		if c.gzip {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
			if rec.Body.Len()*3 > len(body) {
				t.Errorf("gzip body of %d bytes for %d plain, want it at least 3 times smaller", rec.Body.Len(), len(body))
			}
		}
		if !bytes.Equal(body, plain.Body.Bytes()) {
			t.Errorf("Accept-Encoding %q: the body differs from the plain report", c.accept)
		}
	}
}

// blockingWriter is a ResponseWriter whose Write waits until release closes: a slow client.
// Its first Write says so on writing.
type blockingWriter struct {
	*httptest.ResponseRecorder
	once    sync.Once
	writing chan struct{}
	release chan struct{}
}

func (w *blockingWriter) Write(b []byte) (int, error) {
	w.once.Do(func() { w.writing <- struct{}{} })
	<-w.release
	return w.ResponseRecorder.Write(b)
}

// TestReportRequestsBeyondTheCapGet429: while MaxReportRequests slow clients are being answered,
// another /report gets 429 with Retry-After; /metrics answers; once they finish, /report does.
func TestReportRequestsBeyondTheCapGet429(t *testing.T) {
	const limit = 3
	s := New(Options{Collect: (&script{steps: []step{{report: takenAt(demoReport(t), time.Now())}}}).collect,
		MaxAge: time.Hour, Report: ReportAccess{Open: true}, MaxReportRequests: limit})
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range limit {
		w := &blockingWriter{ResponseRecorder: httptest.NewRecorder(), writing: make(chan struct{}), release: release}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Handler().ServeHTTP(w, httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/report", nil))
		}()
		<-w.writing
	}
	rec := get(t, s, "/report")
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Errorf("/report beyond %d at once: %d, Retry-After %q; want 429 with Retry-After", limit, rec.Code, rec.Header().Get("Retry-After"))
	}
	if code := get(t, s, "/metrics").Code; code != http.StatusOK {
		t.Errorf("/metrics while /report is at its cap: %d, want 200", code)
	}
	close(release)
	wg.Wait()
	if rec := get(t, s, "/report"); rec.Code != http.StatusOK {
		t.Errorf("/report once the others finished: %d, want 200", rec.Code)
	}
}
