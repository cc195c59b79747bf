package serve

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// demoReport analyses the embedded demo snapshot afresh, as one collection would.
func demoReport(t testing.TB) diagnose.Report {
	t.Helper()
	snap, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return diagnose.Analyze(snap, diagnose.Options{})
}

// takenAt returns r as if its snapshot had been read at t.
func takenAt(r diagnose.Report, t time.Time) diagnose.Report {
	r.Taken = t
	return r
}

// script is a CollectFunc that answers its steps in turn, repeating the last.
type script struct {
	mu    sync.Mutex
	steps []step
	calls int
}

type step struct {
	report diagnose.Report
	err    error
	// pools and classes are the NodePools and classes the collection read; when both are nil,
	// every one the report names.
	pools, classes []string
}

func (s *script) collect(context.Context) (Collection, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.steps[min(s.calls, len(s.steps)-1)]
	s.calls++
	pools, classes := st.pools, st.classes
	if pools == nil && classes == nil {
		pools, classes = subjectsOf(st.report)
	}
	return Collection{Report: st.report, NodePools: pools, NodeClasses: classes}, st.err
}

// subjectsOf returns the NodePools and classes a report's nodes and findings name, as the
// collection of a cluster that has every one of them would.
func subjectsOf(r diagnose.Report) (pools, classes []string) {
	for _, n := range r.Nodes {
		pools, classes = append(pools, n.Identity.NodePool), append(classes, n.Identity.NodeClass)
	}
	for _, f := range r.Findings {
		for _, ref := range append(append([]string{f.Resource}, f.Subjects...), f.Subject()) {
			switch kind, name, _ := strings.Cut(ref, "/"); kind {
			case "nodepool":
				pools = append(pools, name)
			case "ec2nodeclass", "nodeclass":
				classes = append(classes, name)
			}
		}
	}
	return pools, classes
}

// count returns how many collections ran.
func (s *script) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

var errAPIServerDown = errors.New("cannot list nodes: dial tcp 127.0.0.1:6443: connect: connection refused")

// clock is a fixed clock that tests move by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// get answers one request to the server's handler.
func get(t *testing.T, s *Server, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodGet, path, nil))
	return rec
}

// series returns the metrics of one family, and false when the family is absent.
func series(t *testing.T, s *Server, name string) ([]*dto.Metric, bool) {
	t.Helper()
	rec := get(t, s, "/metrics")
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric(), true
		}
	}
	return nil, false
}

// value returns the value of the one series of name with labels (a subset match), and false
// when there is none; more than one fails the test.
func value(t *testing.T, s *Server, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	ms, _ := series(t, s, name)
	var found []*dto.Metric
	for _, m := range ms {
		if hasLabels(m, labels) {
			found = append(found, m)
		}
	}
	switch len(found) {
	case 0:
		return 0, false
	case 1:
	default:
		t.Fatalf("%s%v: %d series match, want one", name, labels, len(found))
	}
	m := found[0]
	switch {
	case m.Gauge != nil:
		return m.Gauge.GetValue(), true
	case m.Counter != nil:
		return m.Counter.GetValue(), true
	}
	t.Fatalf("%s%v is neither a gauge nor a counter", name, labels)
	return 0, false
}

// wantValue fails the test unless the series of name with labels has value want.
func wantValue(t *testing.T, s *Server, name string, labels map[string]string, want float64) {
	t.Helper()
	got, ok := value(t, s, name, labels)
	if !ok {
		t.Errorf("%s%v: absent, want %v", name, labels, want)
		return
	}
	if got != want {
		t.Errorf("%s%v = %v, want %v", name, labels, got, want)
	}
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	got := map[string]string{}
	for _, l := range m.GetLabel() {
		got[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// sum adds up every series of a gauge family.
func sum(t *testing.T, s *Server, name string) float64 {
	t.Helper()
	ms, _ := series(t, s, name)
	total := 0.0
	for _, m := range ms {
		total += m.GetGauge().GetValue()
	}
	return total
}
