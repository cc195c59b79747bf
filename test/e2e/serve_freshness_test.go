package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// TestServeASavedSnapshotIsAsOldAsItsTaken saves the healthy cluster as a snapshot taken 14
// days ago and serves it through the real binary, scraped by a real Prometheus with
// deploy/'s rules: karpnet_snapshot_timestamp_seconds is the snapshot's taken time (the
// collection's own time is now), /readyz answers 503 past --max-age, KarpnetDataStale goes
// pending, and the file is read once: making it unreadable fails no collection.
func TestServeASavedSnapshotIsAsOldAsItsTaken(t *testing.T) {
	newHealthyCluster(t)
	file := filepath.Join(t.TempDir(), "cluster.json")
	if r := karpnet(t, runOpts{}, "check", "-o", "json", "--save-snapshot", file); r.code != 0 {
		wantCode(t, r, 0)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var snap map[string]any
	if err := json.Unmarshal(raw, &snap); err != nil {
		t.Fatal(err)
	}
	taken := time.Now().Add(-14 * 24 * time.Hour).UTC().Truncate(time.Second)
	snap["taken"] = taken.Format(time.RFC3339)
	if raw, err = json.Marshal(snap); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		t.Fatal(err)
	}

	s := startServeProc(t, env.kube.AdminKubeconfig, "--snapshot", file, "--interval", serveInterval.String())
	waitFor(t, 30*time.Second, "serve's first collection", func() error {
		code, body, err := s.get("/readyz")
		if err == nil && !strings.Contains(body, "older than --max-age") {
			err = fmt.Errorf("%d %s", code, body)
		}
		return err
	})
	if code, body, _ := s.get("/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, taken.Format(time.RFC3339)) {
		t.Errorf("/readyz on a 14-day-old snapshot: %d %q, want 503 naming its taken time", code, body)
	}
	if err := os.WriteFile(file, []byte("gone bad"), 0o644); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	prom, err := harness.StartPrometheus(t.Context(), filepath.Join(dir, "prometheus"), fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - %s
scrape_configs:
  - job_name: karpnet
    static_configs:
      - targets: ["%s"]
`, rulesFile(t, dir), strings.TrimPrefix(s.url, "http://")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := prom.Close(); err != nil {
			t.Errorf("stopping prometheus: %v", err)
		}
	})
	query := func(q string) []harness.Sample {
		t.Helper()
		got, err := prom.Query(t.Context(), q)
		if err != nil {
			t.Fatalf("%v\nprometheus log:\n%s", err, prom.LogTail(20))
		}
		return got
	}
	waitFor(t, 30*time.Second, "KarpnetDataStale to go pending", func() error {
		if got := query(`ALERTS{alertname="KarpnetDataStale", alertstate="pending"}`); len(got) != 1 {
			return fmt.Errorf("ALERTS: %v", got)
		}
		return nil
	})
	if got := query(`karpnet_snapshot_timestamp_seconds`); len(got) != 1 || got[0].Number() != fmt.Sprint(taken.Unix()) {
		t.Errorf("karpnet_snapshot_timestamp_seconds: %v, want the snapshot's taken %d", got, taken.Unix())
	}
	if got := query(`time() - karpnet_last_success_timestamp_seconds < 60`); len(got) != 1 {
		t.Errorf("karpnet_last_success_timestamp_seconds: not within a minute of now: %v", got)
	}
	// Collections go on every 2s over the snapshot read once: none fails though the file is bad.
	waitFor(t, 30*time.Second, "three more collections", func() error {
		if got := query(`karpnet_collections_total{result="success"} >= 4`); len(got) != 1 {
			return fmt.Errorf("karpnet_collections_total: %v", query(`karpnet_collections_total`))
		}
		return nil
	})
	if got := query(`karpnet_collections_total{result="failure"}`); len(got) != 1 || got[0].Number() != "0" {
		t.Errorf("karpnet_collections_total{result=\"failure\"}: %v, want 0: the snapshot was read again", got)
	}
	if code := s.stop(t); code != 0 {
		t.Errorf("serve after SIGTERM: exit %d, want 0\n%s", code, s.log.String())
	}
}

// TestServeIntervalBelowTheMinimumIsAUsageError runs the real binary with --interval 5s.
func TestServeIntervalBelowTheMinimumIsAUsageError(t *testing.T) {
	r := karpnet(t, runOpts{}, "serve", "--interval", "5s", "--listen", "127.0.0.1:0")
	wantCode(t, r, 2)
	if !strings.Contains(r.stderr, "--interval 5s is below the minimum of 15s") {
		t.Errorf("stderr: %q, want it to name the minimum", r.stderr)
	}
}
