package cmd

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
)

// serveSnapshot starts serve over a copy of the demo snapshot taken at taken, every 20 ms.
func serveSnapshot(t *testing.T, taken time.Time, args ...string) (*runningServe, string) {
	t.Helper()
	snap, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	snap.Taken = taken
	file := filepath.Join(t.TempDir(), "cluster.json")
	writeSnapshot(t, file, snap, false)
	o, _, _ := newTestOptions()
	o.serveFloor = 20 * time.Millisecond
	return startServe(t, o, append([]string{"--snapshot", file, "--interval", "20ms"}, args...)...), file
}

// TestServeReadsASnapshotOnceAndFreshnessIsItsTaken: a snapshot saved 14 days ago is read
// once; its taken time is karpnet_snapshot_timestamp_seconds and /readyz fails, 3 intervals
// being the default --max-age; the file going bad later changes nothing.
func TestServeReadsASnapshotOnceAndFreshnessIsItsTaken(t *testing.T) {
	taken := time.Now().Add(-14 * 24 * time.Hour).Truncate(time.Second)
	s, file := serveSnapshot(t, taken)
	s.waitCollections(t, 1)
	if err := os.WriteFile(file, []byte("not a snapshot"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.waitCollections(t, 4)
	m := s.metrics(t)
	if got := m["karpnet_snapshot_timestamp_seconds"]; got != float64(taken.Unix()) {
		t.Errorf("karpnet_snapshot_timestamp_seconds = %v, want the snapshot's taken %d", got, taken.Unix())
	}
	if got := m["karpnet_last_success_timestamp_seconds"]; got < float64(time.Now().Add(-time.Minute).Unix()) {
		t.Errorf("karpnet_last_success_timestamp_seconds = %v, want the collection's own time, now", got)
	}
	if got := m[`karpnet_collections_total{result="failure"}`]; got != 0 {
		t.Errorf("karpnet_collections_total{result=\"failure\"} = %v: the snapshot was read again after it went bad", got)
	}
	if got := m["karpnet_max_age_seconds"]; got != 0.06 {
		t.Errorf("karpnet_max_age_seconds = %v, want 3 x 20ms", got)
	}
	code, body := s.get(t, "/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, taken.UTC().Format(time.RFC3339)) || !strings.Contains(body, "--max-age") {
		t.Errorf("/readyz on a 14-day-old snapshot: %d %q, want 503 naming its taken time and --max-age", code, body)
	}
	if code := s.stop(t); code != ExitOK {
		t.Errorf("exit %d, want 0", code)
	}
}

// TestServeReloadsASnapshotWithReload: --reload reads the file every interval, so a file
// gone bad fails the next collections; --max-age keeps old data ready.
func TestServeReloadsASnapshotWithReload(t *testing.T) {
	s, file := serveSnapshot(t, time.Now().Add(-time.Hour), "--reload", "--max-age", "2h")
	s.waitCollections(t, 1)
	if code, body := s.get(t, "/readyz"); code != http.StatusOK {
		t.Errorf("/readyz on an hour-old snapshot with --max-age 2h: %d %q, want 200", code, body)
	}
	if err := os.WriteFile(file, []byte("not a snapshot"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for s.metrics(t)[`karpnet_collections_total{result="failure"}`] == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no collection failed within 20s of the file going bad: --reload does not re-read it\n%s", s.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeNodeMetricsFlag: no per-node series by default; --node-metrics adds them, and the
// old --per-node-metrics still does, with a deprecation note.
func TestServeNodeMetricsFlag(t *testing.T) {
	for _, c := range []struct {
		args    []string
		perNode bool
	}{{nil, false}, {[]string{"--node-metrics"}, true}, {[]string{"--per-node-metrics"}, true}} {
		o, _, _ := newTestOptions()
		o.demo = true
		s := startServe(t, o, c.args...)
		s.waitCollections(t, 1)
		n := 0
		for series := range s.metrics(t) {
			if strings.HasPrefix(series, "karpnet_node_info{") || strings.HasPrefix(series, "karpnet_node_max_pods{") {
				n++
			}
		}
		if (n > 0) != c.perNode {
			t.Errorf("serve %q: %d karpnet_node_info and _max_pods series, want them only with --node-metrics", c.args, n)
		}
		if code, body := s.get(t, "/readyz"); code != http.StatusOK {
			t.Errorf("demo serve %q: /readyz %d %q, want 200 (the demo's fixture has no max age)", c.args, code, body)
		}
		if len(c.args) > 0 && c.args[0] == "--per-node-metrics" && !strings.Contains(s.log.String(), "deprecated") {
			t.Errorf("--per-node-metrics: log %q, want a deprecation note", s.log.String())
		}
		s.stop(t)
	}
}

// TestServeExportsFreePrefixBlocks: demo serve exports the free /28 blocks of the subnets
// prefixes are carved from, as describe subnet counts them: none in the fragmented pod subnet.
func TestServeExportsFreePrefixBlocks(t *testing.T) {
	o, _, _ := newTestOptions()
	o.demo = true
	s := startServe(t, o)
	s.waitCollections(t, 1)
	m := s.metrics(t)
	fragmented := `karpnet_subnet_free_prefix_blocks{subnet_id="subnet-0ffd6a39ba6f48905",zone="us-west-2c"}`
	if got, ok := m[fragmented]; !ok || got != 0 {
		t.Errorf("%s = %v (present %v), want 0: every block of the demo's fragmented pod subnet holds an address", fragmented, got, ok)
	}
	roomy := 0
	for series, v := range m {
		if strings.HasPrefix(series, "karpnet_subnet_free_prefix_blocks{") && v > 0 {
			roomy++
		}
	}
	if roomy == 0 {
		t.Errorf("no subnet with free /28 blocks in %v", m)
	}
}
