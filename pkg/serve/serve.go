package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/karpnet/kubectl-karpnet/internal/budget"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// shutdownGrace bounds how long a stopping server waits for scrapes under way.
const shutdownGrace = 5 * time.Second

// CollectFunc reads the cluster and analyses it: one collection.
type CollectFunc func(ctx context.Context) (Collection, error)

// Collection is what one collection leaves: the report, and the NodePools and NodeClasses
// (EC2NodeClasses and Auto Mode NodeClasses) it read. Only those name the series of
// karpnet_nodepool_findings and karpnet_nodeclass_findings: a finding whose NodePool or class
// is not among them (a NodeClaim's label naming one that does not exist) is counted under one
// bucket, so that labels the cluster's objects carry cannot grow the series without bound.
type Collection struct {
	Report      diagnose.Report
	NodePools   []string
	NodeClasses []string
}

// NewCollection returns the collection of report, analysed from snap.
func NewCollection(snap *snapshot.Snapshot, report diagnose.Report) Collection {
	c := Collection{Report: report}
	for i := range snap.NodePools {
		c.NodePools = append(c.NodePools, snap.NodePools[i].Name)
	}
	for i := range snap.NodeClasses {
		c.NodeClasses = append(c.NodeClasses, snap.NodeClasses[i].Name)
	}
	return c
}

// Options configure a Server.
type Options struct {
	// Collect runs one collection.
	Collect CollectFunc
	// Interval is the time between the end of one collection and the start of the next.
	Interval time.Duration
	// MaxAge is how old the data served may be, measured from the snapshot's Taken, before
	// /readyz fails; zero means three intervals, negative no limit (the demo's fixture).
	MaxAge time.Duration
	// Timeout is the whole-collection deadline: a collection still running after it is cut
	// off and fails; zero means Interval, at least budget.Floor. One that has not returned Overdue after its start
	// (Timeout plus a margin) makes the data stale and /readyz fail while it runs.
	Timeout time.Duration
	// Requests, when set, is where the collections' requests are counted; its counts are
	// exported as karpnet_ec2_requests_total and karpnet_kubernetes_requests_total.
	Requests *Requests
	// NodeMetrics adds the per-node series: karpnet_node_info, karpnet_node_max_pods,
	// karpnet_node_pod_ip_capacity and karpnet_node_findings.
	NodeMetrics bool
	// Log gets one line per collection; nil discards them.
	Log io.Writer
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Version is the build's version, for karpnet_build_info.
	Version string
	// Report says who may read /report; the zero value turns it off.
	Report ReportAccess
	// MaxReportRequests bounds the /report requests answered at once; more get 429. Zero
	// means DefaultMaxReportRequests.
	MaxReportRequests int
	// MaxMetricsRequests bounds the /metrics requests answered at once; more get 429. Zero
	// means DefaultMaxMetricsRequests.
	MaxMetricsRequests int
	// HTTP bounds the server's connections; zero fields take the defaults.
	HTTP HTTPLimits
	// Release, when set, is called after each successful collection, once its view has
	// replaced the last one and before the collection is counted in karpnet_collections_total:
	// the serve command gives the collection's memory back to the system there.
	Release func()
}

// Server runs collections and serves their latest result. Its methods are safe for
// concurrent use.
type Server struct {
	opts     Options
	registry *prometheus.Registry
	duration prometheus.Histogram

	// reportSlots and metricsSlots hold one token per /report and /metrics request being
	// answered.
	reportSlots, metricsSlots chan struct{}
	// metricsEntered, when set, is called by each /metrics request that holds a slot (tests).
	metricsEntered func()

	mu sync.RWMutex
	st state
}

// DefaultMaxReportRequests is how many /report requests are answered at once by default.
const DefaultMaxReportRequests = 8

// DefaultMaxMetricsRequests is how many /metrics requests are answered at once by default: a
// Prometheus pair scrapes once each per interval.
const DefaultMaxMetricsRequests = 8

// state is what the collections so far have left: the latest good view and how the last
// attempt went. Nothing older is kept.
type state struct {
	view        *view // nil until a collection succeeds
	lastSuccess time.Time
	lastFailed  bool
	lastError   string
	// lastTimedOut is set when the last collection was cut off by its deadline.
	lastTimedOut bool
	// running is when the collection under way started; zero between collections.
	running   time.Time
	successes int
	failures  int
}

// New returns a server over opts; nothing runs until Run or CollectOnce.
func New(opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Release == nil {
		opts.Release = func() {}
	}
	if opts.Interval <= 0 {
		opts.Interval = budget.Floor
	}
	if opts.Timeout <= 0 {
		opts.Timeout = max(opts.Interval, budget.Floor)
	}
	if opts.MaxAge == 0 {
		opts.MaxAge = DefaultMaxAge(opts.Interval)
	}
	opts.HTTP = opts.HTTP.withDefaults()
	if opts.MaxReportRequests <= 0 {
		opts.MaxReportRequests = DefaultMaxReportRequests
	}
	if opts.MaxMetricsRequests <= 0 {
		opts.MaxMetricsRequests = DefaultMaxMetricsRequests
	}
	s := &Server{opts: opts, reportSlots: make(chan struct{}, opts.MaxReportRequests),
		metricsSlots: make(chan struct{}, opts.MaxMetricsRequests)}
	s.registry, s.duration = newRegistry(s)
	return s
}

// DefaultMaxAge is the age of the data past which /readyz fails when no --max-age is given:
// three intervals, so that two collections may fail or run late before the pod is unready.
func DefaultMaxAge(interval time.Duration) time.Duration { return 3 * interval }

// Registry returns the registry of the metrics that change between collections; /metrics
// serves it followed by the latest good collection's figures, rendered once.
func (s *Server) Registry() *prometheus.Registry { return s.registry }

// Ready reports whether a collection has succeeded.
func (s *Server) Ready() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.st.view != nil
}

// taken is when the data served was read: the snapshot's Taken, else (a report without it)
// when the collection started.
func (st *state) taken() time.Time {
	if st.view == nil {
		return time.Time{}
	}
	if t := st.view.taken; !t.IsZero() {
		return t
	}
	return st.lastSuccess
}

// overdueMargin is how long past its deadline a collection may take to return before it counts
// as hung: its requests' own cancellation takes a moment.
const overdueMargin = 5 * time.Second

// Overdue is how long a collection may run before the data is stale and /readyz fails while it
// has not returned: the whole-collection deadline plus a margin.
func (s *Server) Overdue() time.Duration { return s.opts.Timeout + overdueMargin }

// hung returns how long the collection under way has run when that is past Overdue, else 0.
func (s *Server) hung(st *state, now time.Time) time.Duration {
	if st.running.IsZero() {
		return 0
	}
	if d := now.Sub(st.running); d > s.Overdue() {
		return d
	}
	return 0
}

// Stale reports whether the data served is not the last attempt's: no collection has
// succeeded yet, the last one failed, or the one under way has run past Overdue.
func (s *Server) Stale() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.stale(&s.st, s.opts.Now())
}

func (s *Server) stale(st *state, now time.Time) bool {
	return st.view == nil || st.lastFailed || s.hung(st, now) > 0
}

// CollectOnce runs one collection and keeps its report, or, when it fails, keeps the previous
// one and marks the data stale. It logs one line. A collection cut short because ctx ended
// changes nothing and returns ctx's error; one cut off by the whole-collection deadline
// (Timeout) fails.
func (s *Server) CollectOnce(ctx context.Context) error {
	start := s.opts.Now()
	s.mu.Lock()
	s.st.running = start
	s.mu.Unlock()
	ec2Before, kubeBefore := s.requestTotals()
	cctx, cancel := context.WithTimeoutCause(ctx, s.opts.Timeout, errDeadline)
	c, err := s.opts.Collect(cctx)
	timedOut := errors.Is(context.Cause(cctx), errDeadline)
	cancel()
	took := s.opts.Now().Sub(start)
	if ctx.Err() != nil {
		s.mu.Lock()
		s.st.running = time.Time{}
		s.mu.Unlock()
		return ctx.Err()
	}
	timedOut = timedOut && err != nil // a collection that returned its data anyway is kept
	if timedOut {
		err = fmt.Errorf("cut off after its deadline of %s (--collection-timeout): %w", s.opts.Timeout, err)
	}
	s.duration.Observe(took.Seconds())
	ec2After, kubeAfter := s.requestTotals()
	requests := fmt.Sprintf("%d EC2 and %d Kubernetes requests", ec2After-ec2Before, kubeAfter-kubeBefore)

	s.mu.Lock()
	s.st.running = time.Time{}
	s.st.lastTimedOut = timedOut
	if err != nil {
		s.st.failures++
		s.st.lastFailed, s.st.lastError = true, err.Error()
		n, since := s.st.successes+s.st.failures, s.st.lastSuccess
		s.mu.Unlock()
		kept := "no data yet: /readyz stays 503"
		if !since.IsZero() {
			kept = "serving the data of " + since.UTC().Format(time.RFC3339) + " (karpnet_data_stale 1)"
		}
		fmt.Fprintf(s.opts.Log, "%s collection %d failed after %s (%s): %s; %s\n", stamp(start), n, seconds(took),
			requests, oneLine(err.Error()), kept)
		return err
	}
	v := newView(c, s.opts.NodeMetrics, s.opts.Report.enabled())
	s.st.view, s.st.lastSuccess = v, start
	s.st.lastFailed, s.st.lastError = false, ""
	s.mu.Unlock()
	// Nothing of the collection but its view is held now, nor anything of the view it
	// replaced: the memory they took goes back before the collection is counted, so that a
	// scrape that sees the count sees the process as it stays until the next collection.
	s.opts.Release()
	s.mu.Lock()
	s.st.successes++
	n := s.st.successes + s.st.failures
	s.mu.Unlock()
	fmt.Fprintf(s.opts.Log, "%s collection %d: %s in %s, %s\n", stamp(start), n, v.summary(), seconds(took), requests)
	return nil
}

func (s *Server) requestTotals() (int, int) {
	if s.opts.Requests == nil {
		return 0, 0
	}
	return s.opts.Requests.totals()
}

// Run serves ln and collects every Interval until ctx ends, then stops the server, letting
// scrapes under way finish. It returns nil when stopped by ctx, or the error that stopped the
// HTTP server.
func (s *Server) Run(ctx context.Context, ln net.Listener) error {
	srv := s.httpServer()
	limited := newConnLimit(ln, s.opts.HTTP.MaxConnections)
	srv.ConnState = limited.connState
	ln = limited
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	loopCtx, stopLoop := context.WithCancel(ctx)
	looped := make(chan struct{})
	go func() {
		defer close(looped)
		s.loop(loopCtx)
	}()

	var err error
	select {
	case <-ctx.Done():
	case err = <-served:
		err = fmt.Errorf("serving %s: %w", ln.Addr(), err)
	}
	stopLoop()
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if serr := srv.Shutdown(shutdownCtx); serr != nil && err == nil && !errors.Is(serr, context.DeadlineExceeded) {
		err = fmt.Errorf("stopping the HTTP server: %w", serr)
	}
	<-looped
	return err
}

// errDeadline is the cause of a collection cut off by its deadline.
var errDeadline = errors.New("the collection did not finish in time")

// loop collects at once, then Interval after each collection ends, until ctx ends.
func (s *Server) loop(ctx context.Context) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		_ = s.CollectOnce(ctx) // logged; a failure keeps the last good data
		timer.Reset(s.opts.Interval)
	}
}
