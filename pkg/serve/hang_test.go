package serve

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// waitRunning waits until a collection of s is under way.
func waitRunning(t *testing.T, s *Server) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.mu.RLock()
		running := !s.st.running.IsZero()
		s.mu.RUnlock()
		if running {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no collection started within 10s")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestAHungCollectionTurnsStale: a collection that neither returns nor heeds its deadline
// keeps the data fresh for one interval plus the margin, then karpnet_data_stale is 1 and
// /readyz 503 while it has not returned, long before --max-age.
func TestAHungCollectionTurnsStale(t *testing.T) {
	clk := &clock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	release := make(chan struct{})
	calls := 0
	s := New(Options{Interval: time.Minute, Now: clk.Now, Collect: func(context.Context) (Collection, error) {
		calls++
		if calls > 1 {
			<-release // the node list hangs, whatever the context says
		}
		return Collection{Report: takenAt(demoReport(t), clk.Now())}, nil
	}})
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.CollectOnce(t.Context()) }()
	waitRunning(t, s)

	clk.advance(time.Minute)
	wantValue(t, s, "karpnet_data_stale", nil, 0)
	if rec := get(t, s, "/readyz"); rec.Code != http.StatusOK {
		t.Errorf("/readyz one interval into a collection: %d %q, want 200", rec.Code, rec.Body)
	}
	clk.advance(overdueMargin + time.Second)
	wantValue(t, s, "karpnet_data_stale", nil, 1)
	rec := get(t, s, "/readyz")
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "without returning") {
		t.Errorf("/readyz with a collection hung for %s: %d %q, want 503 saying it has not returned", s.Overdue()+time.Second, rec.Code, rec.Body)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	wantValue(t, s, "karpnet_data_stale", nil, 0)
	if rec := get(t, s, "/readyz"); rec.Code != http.StatusOK {
		t.Errorf("/readyz once the hung collection returned its data: %d %q, want 200", rec.Code, rec.Body)
	}
}

// TestTheDeadlineCutsACollectionOff: a collection that heeds its context is cut off at its
// deadline and fails, naming it; the data is stale and /readyz 503 until one succeeds.
func TestTheDeadlineCutsACollectionOff(t *testing.T) {
	calls := 0
	s := New(Options{Interval: time.Minute, Timeout: 50 * time.Millisecond, MaxAge: time.Hour,
		Collect: func(ctx context.Context) (Collection, error) {
			calls++
			if calls == 2 {
				<-ctx.Done() // a node list that never answers
				return Collection{}, ctx.Err()
			}
			return Collection{Report: takenAt(demoReport(t), time.Now())}, nil
		}})
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := s.CollectOnce(t.Context())
	if err == nil || !strings.Contains(err.Error(), "deadline of 50ms") {
		t.Fatalf("a hanging collection: %v, want cut off naming its deadline", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("a hanging collection returned after %s, want about 50ms", took)
	}
	wantValue(t, s, "karpnet_data_stale", nil, 1)
	wantValue(t, s, "karpnet_collections_total", map[string]string{"result": "failure"}, 1)
	if rec := get(t, s, "/readyz"); rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "--collection-timeout") {
		t.Errorf("/readyz after a collection cut off: %d %q, want 503 naming --collection-timeout", rec.Code, rec.Body)
	}
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	if rec := get(t, s, "/readyz"); rec.Code != http.StatusOK {
		t.Errorf("/readyz after a good collection: %d %q, want 200", rec.Code, rec.Body)
	}
}
