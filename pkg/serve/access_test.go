package serve

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestReportIsOffOrGuarded: /report is off by default and, with a token, answers only a
// request bearing it; /metrics, /healthz and /readyz stay open either way.
func TestReportIsOffOrGuarded(t *testing.T) {
	const token = "s3cret-token"
	cases := []struct {
		name   string
		access ReportAccess
		auth   string
		want   int
	}{
		{"off by default", ReportAccess{}, "", http.StatusNotFound},
		{"off, a token given anyway", ReportAccess{}, "Bearer " + token, http.StatusNotFound},
		{"open", ReportAccess{Open: true}, "", http.StatusOK},
		{"token, none given", ReportAccess{Token: token}, "", http.StatusUnauthorized},
		{"token, a wrong one", ReportAccess{Token: token}, "Bearer s3cret-tokeN", http.StatusUnauthorized},
		{"token, a prefix of it", ReportAccess{Token: token}, "Bearer s3cret", http.StatusUnauthorized},
		{"token, not a bearer", ReportAccess{Token: token}, "Basic " + token, http.StatusUnauthorized},
		{"token, the right one", ReportAccess{Token: token}, "Bearer " + token, http.StatusOK},
		{"token and open: the token decides", ReportAccess{Open: true, Token: token}, "", http.StatusUnauthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Options{Collect: (&script{steps: []step{{report: takenAt(demoReport(t), time.Now())}}}).collect,
				MaxAge: time.Hour, Report: tc.access})
			if err := s.CollectOnce(t.Context()); err != nil {
				t.Fatal(err)
			}
			req := httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/report", nil)
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Errorf("/report: %d %q, want %d", rec.Code, rec.Body, tc.want)
			}
			if rec.Code != http.StatusOK && strings.Contains(rec.Body.String(), "findings") {
				t.Errorf("/report refused but its body holds the report: %q", rec.Body)
			}
			if rec.Code == http.StatusUnauthorized && rec.Header().Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
			for _, path := range []string{"/metrics", "/healthz", "/readyz"} {
				if code := get(t, s, path).Code; code != http.StatusOK {
					t.Errorf("%s: %d, want 200 whatever guards /report", path, code)
				}
			}
		})
	}
}
