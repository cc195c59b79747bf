package serve

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestFreshnessIsTheSnapshotsTaken serves a snapshot saved 14 days ago: the data's time is
// the snapshot's taken time, not the time it was loaded, and /readyz fails once the data is
// older than MaxAge, whether it was read old or has aged since.
func TestFreshnessIsTheSnapshotsTaken(t *testing.T) {
	clk := &clock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	old := takenAt(demoReport(t), clk.Now().Add(-14*24*time.Hour))
	fresh := takenAt(demoReport(t), clk.Now().Add(-10*time.Second))
	sc := &script{steps: []step{{report: old}, {report: fresh}, {err: errAPIServerDown}}}
	s := New(Options{Collect: sc.collect, Interval: time.Minute, Now: clk.Now})
	wantValue(t, s, "karpnet_max_age_seconds", nil, 180) // three intervals by default

	// The 14-day-old snapshot: loaded now, taken then, not ready.
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	wantValue(t, s, "karpnet_snapshot_timestamp_seconds", nil, float64(old.Taken.Unix()))
	wantValue(t, s, "karpnet_last_success_timestamp_seconds", nil, float64(clk.Now().Unix()))
	rec := get(t, s, "/readyz")
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "older than --max-age 3m0s") ||
		!strings.Contains(rec.Body.String(), "2026-11-17T12:00:00Z") {
		t.Errorf("/readyz on a 14-day-old snapshot: %d %q, want 503 naming the taken time and --max-age", rec.Code, rec.Body)
	}

	// Fresh data: ready.
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	wantValue(t, s, "karpnet_snapshot_timestamp_seconds", nil, float64(fresh.Taken.Unix()))
	if rec := get(t, s, "/readyz"); rec.Code != http.StatusOK {
		t.Errorf("/readyz on data 10s old: %d %q, want 200", rec.Code, rec.Body)
	}

	// Collections fail from then on: ready until the data is older than three intervals.
	clk.advance(2 * time.Minute)
	_ = s.CollectOnce(t.Context())
	if rec := get(t, s, "/readyz"); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "the last one failed") {
		t.Errorf("/readyz on data 2m10s old after a failure: %d %q, want 200 saying the last one failed", rec.Code, rec.Body)
	}
	clk.advance(time.Minute)
	_ = s.CollectOnce(t.Context())
	rec = get(t, s, "/readyz")
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "3m10s old") ||
		!strings.Contains(rec.Body.String(), "connection refused") {
		t.Errorf("/readyz on data 3m10s old, collections failing: %d %q, want 503 with the age and the error", rec.Code, rec.Body)
	}
}

// TestNoMaxAgeKeepsAFixtureReady: a negative MaxAge (the demo's fixture) has no limit.
func TestNoMaxAgeKeepsAFixtureReady(t *testing.T) {
	r := takenAt(demoReport(t), time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	s := New(Options{Collect: (&script{steps: []step{{report: r}}}).collect, MaxAge: -1})
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	if rec := get(t, s, "/readyz"); rec.Code != http.StatusOK {
		t.Errorf("/readyz without a max age: %d %q, want 200", rec.Code, rec.Body)
	}
	if _, ok := series(t, s, "karpnet_max_age_seconds"); ok {
		t.Error("karpnet_max_age_seconds: present without a limit, want absent")
	}
}
