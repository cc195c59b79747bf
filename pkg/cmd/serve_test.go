package cmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/collect"
)

// lockedBuffer is a bytes.Buffer safe to write from serve while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runningServe is `serve` running in the background of a test.
type runningServe struct {
	url    string
	log    *lockedBuffer
	cancel context.CancelFunc
	done   chan int
}

var servingRE = regexp.MustCompile(`serving (http://\S+) `)

// startServe runs karpnet serve args over o until the test stops it, and waits until it says
// where it listens.
func startServe(t *testing.T, o *commonOptions, args ...string) *runningServe {
	t.Helper()
	return startServeArgs(t, o, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...))
}

// startServeArgs runs karpnet args, a serve command line, over o until the test stops it, and
// waits until it says where it listens.
func startServeArgs(t *testing.T, o *commonOptions, args []string) *runningServe {
	t.Helper()
	log := &lockedBuffer{}
	o.ErrOut = log
	ctx, cancel := context.WithCancel(t.Context())
	s := &runningServe{log: log, cancel: cancel, done: make(chan int, 1)}
	go func() { s.done <- execute(ctx, o, args) }()
	t.Cleanup(func() { s.stop(t) })
	deadline := time.Now().Add(20 * time.Second)
	for {
		if m := servingRE.FindStringSubmatch(log.String()); m != nil {
			s.url = m[1]
			return s
		}
		select {
		case code := <-s.done:
			s.done <- code
			t.Fatalf("serve exited %d before listening:\n%s", code, log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not say where it listens within 20s:\n%s", log.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stop cancels serve as SIGTERM would, and returns its exit code.
func (s *runningServe) stop(t *testing.T) int {
	t.Helper()
	s.cancel()
	select {
	case code := <-s.done:
		s.done <- code
		return code
	case <-time.After(20 * time.Second):
		t.Fatalf("serve did not stop within 20s of its context ending:\n%s", s.log.String())
		return -1
	}
}

// get returns the status and body of a GET of path.
func (s *runningServe) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(s.url + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// waitCollections waits until n collections have succeeded.
func (s *runningServe) waitCollections(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(s.log.String(), " nodes, ") < n {
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d collections in 30s:\n%s", n, s.log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// metrics scrapes /metrics into sample values by series ("name{a=\"b\"}").
func (s *runningServe) metrics(t *testing.T) map[string]float64 {
	t.Helper()
	code, body := s.get(t, "/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", code, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	out := map[string]float64{}
	for name, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			key := name
			if len(labels) > 0 {
				key += "{" + strings.Join(labels, ",") + "}"
			}
			switch {
			case m.Gauge != nil:
				out[key] = m.Gauge.GetValue()
			case m.Counter != nil:
				out[key] = m.Counter.GetValue()
			}
		}
	}
	return out
}

// sumOf adds the values of every series of name.
func sumOf(m map[string]float64, name string) float64 {
	total := 0.0
	for k, v := range m {
		if k == name || strings.HasPrefix(k, name+"{") {
			total += v
		}
	}
	return total
}

// TestServeCollectsLikeCheck serves the live test cluster through the real kubeconfig path and
// the EC2 simulator: one collection makes the requests check makes, serve counts them as the
// servers saw them, and /report is check -o json.
func TestServeCollectsLikeCheck(t *testing.T) {
	h := newHostileCluster(t)
	check, _ := h.run(t, "check", "-o", "json")
	wantCode(t, check, ExitOK)
	checkEC2, checkKube := h.EC2.Total(), len(h.Kube.Requests())
	if checkEC2 == 0 || checkKube == 0 {
		t.Fatalf("check made %d EC2 and %d Kubernetes requests, want some of each", checkEC2, checkKube)
	}

	o, _, _ := newTestOptions()
	o.serveFloor = 1 * time.Millisecond
	o.newCollector = h.collector()
	// One collection: the next is an hour away.
	s := startServe(t, o, "--interval", "1h", "--report", "--kubeconfig", h.kubeconfig)
	s.waitCollections(t, 1)
	m := s.metrics(t)
	ec2Total, kubeTotal := h.EC2.Total()-checkEC2, len(h.Kube.Requests())-checkKube
	if ec2Total != checkEC2 || kubeTotal != checkKube {
		t.Errorf("serve's collection made %d EC2 and %d Kubernetes requests, check %d and %d: want the same",
			ec2Total, kubeTotal, checkEC2, checkKube)
	}
	if got := sumOf(m, "karpnet_ec2_requests_total"); got != float64(ec2Total) {
		t.Errorf("karpnet_ec2_requests_total adds up to %v, the EC2 server received %d", got, ec2Total)
	}
	if got := sumOf(m, "karpnet_kubernetes_requests_total"); got != float64(kubeTotal) {
		t.Errorf("karpnet_kubernetes_requests_total adds up to %v, the API server received %d", got, kubeTotal)
	}
	if got := m[`karpnet_kubernetes_requests_total{resource="nodes",verb="list"}`]; got != 2 {
		t.Errorf(`karpnet_kubernetes_requests_total{verb="list",resource="nodes"} = %v, want 2 (one node for the count, then the list)`, got)
	}
	if got := m[`karpnet_ec2_requests_total{action="DescribeInstances"}`]; got != float64(h.EC2.Count(ec2sim.DescribeInstances))/2 {
		t.Errorf(`karpnet_ec2_requests_total{action="DescribeInstances"} = %v, want half the server's %d`, got, h.EC2.Count(ec2sim.DescribeInstances))
	}
	if m["karpnet_data_stale"] != 0 || m[`karpnet_nodes{status="ok"}`] != 2 || m["karpnet_collection_interval_seconds"] != 3600 {
		t.Errorf("stale %v, ok nodes %v, interval %v: want 0, 2, 3600", m["karpnet_data_stale"], m[`karpnet_nodes{status="ok"}`],
			m["karpnet_collection_interval_seconds"])
	}
	code, report := s.get(t, "/report")
	if code != http.StatusOK {
		t.Fatalf("/report: %d %s", code, report)
	}
	// The same report but for the time it was read.
	taken := regexp.MustCompile(`"taken": "[^"]+"`)
	if a, b := taken.ReplaceAllString(report, ""), taken.ReplaceAllString(check.stdout, ""); a != b || !strings.Contains(report, `"taken": "`) {
		t.Errorf("/report differs from check -o json:\n/report:\n%s\ncheck:\n%s", report, check.stdout)
	}
	h.wantReadOnly(t)
	if code := s.stop(t); code != ExitOK {
		t.Errorf("serve stopped by its context: exit %d, want 0\n%s", code, s.log.String())
	}
	if !strings.HasSuffix(s.log.String(), " stopped\n") {
		t.Errorf("log: got\n%s\nwant it to end with a stopped line", s.log.String())
	}
}

// TestServeKeepsTheLastGoodDataWhenTheAPIServerFails makes the API server fail after the first
// collection: /readyz stays 200, the findings stay, karpnet_data_stale turns 1, and a recovery
// turns it back.
func TestServeKeepsTheLastGoodDataWhenTheAPIServerFails(t *testing.T) {
	h := newHostileCluster(t)
	o, _, _ := newTestOptions()
	o.serveFloor = 20 * time.Millisecond
	o.newCollector = h.collector()
	// --max-age well above the time the failures take, so /readyz judges the failure alone.
	s := startServe(t, o, "--interval", "20ms", "--max-age", "10m", "--kubeconfig", h.kubeconfig)
	s.waitCollections(t, 1)
	if code, body := s.get(t, "/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz after a collection: %d %s", code, body)
	}
	h.Kube.Fail("/api/v1/nodes", http.StatusInternalServerError)
	deadline := time.Now().Add(30 * time.Second)
	for s.metrics(t)["karpnet_data_stale"] != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("karpnet_data_stale never turned 1 with the node list failing:\n%s", s.log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	m := s.metrics(t)
	if m[`karpnet_nodes{status="ok"}`] != 2 || m[`karpnet_collections_total{result="failure"}`] < 1 {
		t.Errorf("while failing: ok nodes %v, failures %v; want the last good 2 nodes and a failure counted",
			m[`karpnet_nodes{status="ok"}`], m[`karpnet_collections_total{result="failure"}`])
	}
	if code, body := s.get(t, "/readyz"); code != http.StatusOK || !strings.Contains(body, "the last one failed") {
		t.Errorf("/readyz while failing: %d %q, want 200 saying the last one failed", code, body)
	}
	if !strings.Contains(s.log.String(), "failed after") || !strings.Contains(s.log.String(), "serving the data of") {
		t.Errorf("log: got\n%s\nwant a failed collection line saying which data is served", s.log.String())
	}
	h.Kube.Clear()
	for s.metrics(t)["karpnet_data_stale"] != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("karpnet_data_stale never went back to 0 after the API server recovered:\n%s", s.log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code := s.stop(t); code != ExitOK {
		t.Errorf("exit %d, want 0", code)
	}
}

// TestServeReusesItsCollector: serve builds its live collector once and every collection of
// its loop reads through that one, so the buffers a Collector keeps from one collection to the
// next (sized by the longest answers read) serve the whole loop.
func TestServeReusesItsCollector(t *testing.T) {
	h := newHostileCluster(t)
	o, _, _ := newTestOptions()
	o.serveFloor = 20 * time.Millisecond
	var mu sync.Mutex
	var built []*collect.Collector
	build := h.collector()
	o.newCollector = func(ctx context.Context, o *commonOptions) (*collect.Collector, error) {
		c, err := build(ctx, o)
		mu.Lock()
		built = append(built, c)
		mu.Unlock()
		return c, err
	}
	s := startServe(t, o, "--interval", "20ms", "--kubeconfig", h.kubeconfig)
	s.waitCollections(t, 3)
	if code := s.stop(t); code != ExitOK {
		t.Fatalf("exit %d, want 0\n%s", code, s.log.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(built) != 1 {
		t.Fatalf("%d collectors built for %d collections, want one for all of them", len(built), strings.Count(s.log.String(), " nodes, "))
	}
}

func TestServeUsageAndStartErrors(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	emptyToken := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(emptyToken, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		env  env
		code int
		want []string
	}{
		{"zero interval", []string{"demo", "serve", "--interval", "0s"}, nil, ExitUsage, []string{"--interval 0s", "positive"}},
		{"negative interval", []string{"demo", "serve", "--interval", "-1m"}, nil, ExitUsage, []string{"--interval -1m0s"}},
		{"interval below the minimum", []string{"demo", "serve", "--interval", "5s"}, nil, ExitUsage,
			[]string{"--interval 5s is below the minimum of 15s", "--interval 15s or more"}},
		{"negative max age", []string{"demo", "serve", "--max-age", "-1m"}, nil, ExitUsage, []string{"--max-age -1m0s"}},
		{"port out of range", []string{"demo", "serve", "--listen", ":99999"}, nil, ExitUsage,
			[]string{`--listen ":99999": the port must be a number from 0 to 65535`}},
		{"no port", []string{"demo", "serve", "--listen", "localhost:"}, nil, ExitUsage,
			[]string{`--listen "localhost:": the port must be a number`}},
		{"negative collection timeout", []string{"demo", "serve", "--collection-timeout", "-1m"}, nil, ExitUsage,
			[]string{"--collection-timeout -1m0s", "positive"}},
		{"empty token file", []string{"demo", "serve", "--report-token-file", emptyToken}, nil, ExitUsage,
			[]string{"--report-token-file " + emptyToken + " is empty", "--report"}},
		{"no token file", []string{"demo", "serve", "--report-token-file", "/nonexistent/token"}, nil, ExitCollect,
			[]string{"reading --report-token-file", "readable file"}},
		{"reload without a snapshot", []string{"demo", "serve", "--reload"}, nil, ExitUsage, []string{"--reload", "--snapshot FILE"}},
		{"bad listen", []string{"demo", "serve", "--listen", "9464"}, nil, ExitUsage, []string{"--listen \"9464\"", ":9464"}},
		{"arguments", []string{"demo", "serve", "node-a"}, nil, ExitUsage, []string{"unknown command"}},
		{"unknown check", []string{"demo", "serve", "--only", "subnet-not-selectd"}, nil, ExitUsage, []string{"--only", "did you mean subnet-not-selected?"}},
		{"address taken", []string{"demo", "serve", "--listen", taken.Addr().String()}, nil, ExitCollect,
			[]string{"cannot listen on " + taken.Addr().String(), "choose another --listen"}},
		{"several clusters", []string{"serve", "--contexts", "a,b", "--listen", "127.0.0.1:0"}, nil, ExitUsage,
			[]string{"serve exports one cluster", "--context NAME"}},
		{"every context", []string{"serve", "--all-contexts", "--listen", "127.0.0.1:0"}, nil, ExitUsage,
			[]string{"serve exports one cluster"}},
		{"no kubeconfig", []string{"serve", "--kubeconfig", "/nonexistent/kubeconfig", "--listen", "127.0.0.1:0"}, nil, ExitCollect,
			[]string{"kubeconfig"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, _, _ := newTestOptions()
			o.newCollector = liveCollector
			if c.env != nil {
				o.getenv = c.env.get
			}
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			code := execute(ctx, o, c.args)
			r := result{code: code, stdout: bufString(o.Out), stderr: bufString(o.ErrOut)}
			wantCode(t, r, c.code)
			wantOneErrorLine(t, r, c.want...)
		})
	}
}
