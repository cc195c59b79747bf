package cmd

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeReportIsOffByDefault: demo serve answers /report 404 without --report, 200 with it,
// and /metrics either way; the start line says which.
func TestServeReportIsOffByDefault(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		code int
		log  string
	}{
		{"default", nil, http.StatusNotFound, "/report off"},
		{"--report", []string{"--report"}, http.StatusOK, "/report open (--report)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := serveSnapshot(t, time.Now(), append([]string{"--max-age", "1h"}, c.args...)...)
			s.waitCollections(t, 1)
			if code, body := s.get(t, "/report"); code != c.code {
				t.Errorf("/report: %d %.80q, want %d", code, body, c.code)
			}
			if code, _ := s.get(t, "/metrics"); code != http.StatusOK {
				t.Errorf("/metrics: %d, want 200", code)
			}
			if !strings.Contains(s.log.String(), c.log) {
				t.Errorf("log %q, want it to say %q", s.log.String(), c.log)
			}
		})
	}
}

// TestServeReportTokenFile: with --report-token-file, /report answers the token's bearer and
// 401 to anyone else; surrounding whitespace in the file is not part of the token.
func TestServeReportTokenFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("  tok-123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := serveSnapshot(t, time.Now(), "--max-age", "1h", "--report-token-file", file)
	s.waitCollections(t, 1)
	for _, c := range []struct {
		auth string
		want int
	}{{"", http.StatusUnauthorized}, {"Bearer tok-12", http.StatusUnauthorized}, {"Bearer tok-123", http.StatusOK}} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.url+"/report", nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("/report with Authorization %q: %d, want %d", c.auth, resp.StatusCode, c.want)
		}
	}
}

// TestServeListensOnLoopbackByDefault: without --listen, serve binds 127.0.0.1 only.
func TestServeListensOnLoopbackByDefault(t *testing.T) {
	o, _, _ := newTestOptions()
	cmd := newCmdServe(&commonOptions{IOStreams: o.IOStreams})
	if got := cmd.Flags().Lookup("listen").DefValue; got != "127.0.0.1:9464" {
		t.Errorf("--listen defaults to %q, want 127.0.0.1:9464", got)
	}
}
