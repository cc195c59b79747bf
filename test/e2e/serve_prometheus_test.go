package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// serveInterval is how often serve collects in these tests: below the 15 s floor, through the
// test-only KARPNET_SERVE_TEST_MIN_INTERVAL, to keep the suite short.
const serveInterval = 2 * time.Second

// serveProc is `kubectl karpnet serve` running as its own process.
type serveProc struct {
	url  string
	cmd  *exec.Cmd
	log  *syncBuffer
	done chan struct{}
}

// syncBuffer is a bytes.Buffer the process writes while the test reads it.
type syncBuffer struct {
	ch  chan struct{}
	buf bytes.Buffer
}

func newSyncBuffer() *syncBuffer {
	b := &syncBuffer{ch: make(chan struct{}, 1)}
	b.ch <- struct{}{}
	return b
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	<-b.ch
	defer func() { b.ch <- struct{}{} }()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	<-b.ch
	defer func() { b.ch <- struct{}{} }()
	return b.buf.String()
}

// startServeProc runs kubectl karpnet serve through the real kubectl with kubeconfig, EC2 at
// moto, on a free port of 127.0.0.1, and waits until /healthz answers.
func startServeProc(t *testing.T, kubeconfig string, args ...string) *serveProc {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command("kubectl", append([]string{"karpnet", "serve", "--listen", addr}, args...)...)
	cmd.Env = append(append(baseEnv(), "KUBECONFIG="+kubeconfig), env.moto.Env(region)...)
	cmd.Env = append(cmd.Env, "KARPNET_SERVE_TEST_MIN_INTERVAL=1s")
	s := &serveProc{url: "http://" + addr, cmd: cmd, log: newSyncBuffer(), done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting kubectl karpnet serve: %v", err)
	}
	go func() { _ = cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.done
	})
	waitFor(t, 30*time.Second, "serve's /healthz to answer", func() error {
		_, _, err := s.get("/healthz")
		return err
	})
	return s
}

// get returns the status and body of a GET of path.
func (s *serveProc) get(path string) (int, string, error) {
	resp, err := http.Get(s.url + path)
	if err != nil {
		select {
		case <-s.done:
			return 0, "", fmt.Errorf("serve exited: %s", s.log.String())
		default:
		}
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// stop sends SIGTERM, as the kubelet does, and returns the exit code.
func (s *serveProc) stop(t *testing.T) int {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("signalling serve: %v", err)
	}
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		t.Fatalf("serve did not exit within 15s of SIGTERM:\n%s", s.log.String())
	}
	return s.cmd.ProcessState.ExitCode()
}

// waitFor calls f every 200 ms until it succeeds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s: %v", timeout, what, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestServeThroughPrometheus runs serve as the deployed ServiceAccount, scraped every second
// by a real Prometheus that also loads deploy/prometheusrule.yaml's rules, and follows a
// planted fault through Prometheus' HTTP API: the finding series appears after a collection,
// the critical-finding alert goes pending, and both are gone once the fault is fixed. The
// exposition passes promtool check metrics, and SIGTERM stops serve with exit code 0.
func TestServeThroughPrometheus(t *testing.T) {
	c := newHealthyCluster(t)
	kubeconfig := deployedIdentity(t)
	s := startServeProc(t, kubeconfig, "--interval", serveInterval.String(), "--node-metrics")
	waitFor(t, 30*time.Second, "serve's /readyz to answer 200", func() error {
		code, body, err := s.get("/readyz")
		if err == nil && code != http.StatusOK {
			err = fmt.Errorf("%d %s", code, body)
		}
		return err
	})

	_, exposition, err := s.get("/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?m)^karpnet_\w+\{[^}]*=""`).FindString(exposition); m != "" {
		t.Errorf("serve's /metrics has a series with an empty label: %s", m)
	}
	if out, err := harness.Promtool(t.Context(), []byte(exposition), "check", "metrics"); err != nil {
		t.Errorf("promtool check metrics on serve's /metrics: %v", err)
	} else if strings.TrimSpace(out) != "" {
		t.Errorf("promtool check metrics: %s", out)
	}

	dir := t.TempDir()
	rules := rulesFile(t, dir)
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - %s
scrape_configs:
  - job_name: karpnet
    static_configs:
      - targets: ["%s"]
`, rules, strings.TrimPrefix(s.url, "http://"))
	prom, err := harness.StartPrometheus(t.Context(), filepath.Join(dir, "prometheus"), config)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := prom.Close(); err != nil {
			t.Errorf("stopping prometheus: %v", err)
		}
	})
	ctx := t.Context()
	query := func(q string) []harness.Sample {
		t.Helper()
		got, err := prom.Query(ctx, q)
		if err != nil {
			t.Fatalf("%v\nprometheus log:\n%s", err, prom.LogTail(20))
		}
		return got
	}

	// The subnets of the three nodes, by ID and zone, with their free and usable addresses.
	waitFor(t, 30*time.Second, "Prometheus to scrape the three subnets", func() error {
		if got := query(`karpnet_subnet_free_addresses`); len(got) != len(c.subnets) {
			return fmt.Errorf("%d subnet series: %v", len(got), got)
		}
		return nil
	})
	for _, sn := range c.subnets {
		got := query(fmt.Sprintf(`karpnet_subnet_addresses{subnet_id=%q, zone=%q}`, sn.id, sn.zone))
		if len(got) != 1 || got[0].Number() != "4091" { // a /20 less AWS's five
			t.Errorf("karpnet_subnet_addresses of %s (%s): %v, want 4091", sn.id, sn.zone, got)
		}
	}
	if got := query(`karpnet_findings{severity="critical"}`); len(got) != 0 {
		t.Fatalf("the healthy cluster has critical finding series: %v", got)
	}
	if got := query(`karpnet_data_stale`); len(got) != 1 || got[0].Number() != "0" {
		t.Errorf("karpnet_data_stale: %v, want 0", got)
	}
	// The data's time is the snapshot's taken time, a live read's within seconds of now.
	if got := query(`time() - karpnet_snapshot_timestamp_seconds < 60`); len(got) != 1 {
		t.Errorf("time() - karpnet_snapshot_timestamp_seconds < 60: %v, want the live read's age", got)
	}
	groups, err := prom.Rules(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range groups["karpnet"] {
		names = append(names, r.Name)
		if r.Health == "err" {
			t.Errorf("rule %s: %s", r.Name, r.Error)
		}
	}
	if want := []string{"KarpnetCriticalFinding", "KarpnetSubnetLowOnAddresses", "KarpnetDataStale", "KarpnetDown"}; !slices.Equal(names, want) {
		t.Errorf("Prometheus loaded the rules %q, want %q", names, want)
	}

	// Plant a fault: one node advertises 110 pods where its ENIs give 29 IPs.
	node := c.nodes[1]
	setPods := func(pods int64) {
		t.Helper()
		n, err := c.kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n.Status.Capacity["pods"] = *resource.NewQuantity(pods, resource.DecimalSI)
		n.Status.Allocatable["pods"] = *resource.NewQuantity(pods, resource.DecimalSI)
		if _, err := c.kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	setPods(110)
	planted := time.Now()
	finding := `karpnet_nodepool_findings{check="max-pods-exceeds-ip-capacity", severity="critical", nodepool="general"}`
	waitFor(t, 30*time.Second, "the planted finding in Prometheus", func() error {
		if got := query(finding); len(got) != 1 || got[0].Number() != "1" {
			return fmt.Errorf("%s: %v", finding, got)
		}
		return nil
	})
	t.Logf("the planted finding reached Prometheus %s after the fault", time.Since(planted).Round(100*time.Millisecond))
	for _, q := range []string{
		`karpnet_findings{check="max-pods-exceeds-ip-capacity", severity="critical"}`,
		`karpnet_nodeclass_findings{check="max-pods-exceeds-ip-capacity", severity="critical", nodeclass="default"}`,
	} {
		if got := query(q); len(got) != 1 || got[0].Number() != "1" {
			t.Errorf("%s: %v, want 1", q, got)
		}
	}
	if got := query(fmt.Sprintf(`karpnet_node_max_pods{node=%q}`, node)); len(got) != 1 || got[0].Number() != "110" {
		t.Errorf("karpnet_node_max_pods of %s: %v, want 110", node, got)
	}
	waitFor(t, 15*time.Second, "KarpnetCriticalFinding to go pending", func() error {
		got := query(`ALERTS{alertname="KarpnetCriticalFinding", check="max-pods-exceeds-ip-capacity", alertstate="pending"}`)
		if len(got) != 1 {
			return fmt.Errorf("ALERTS: %v", got)
		}
		return nil
	})

	// Fix it: the series and the alert go away.
	setPods(29)
	fixed := time.Now()
	waitFor(t, 30*time.Second, "the fixed finding to leave Prometheus", func() error {
		if got := query(`karpnet_findings`); len(got) != 0 {
			return fmt.Errorf("karpnet_findings: %v", got)
		}
		return nil
	})
	t.Logf("the fixed finding left Prometheus %s after the fix", time.Since(fixed).Round(100*time.Millisecond))
	waitFor(t, 15*time.Second, "KarpnetCriticalFinding to end", func() error {
		if got := query(`ALERTS{alertname="KarpnetCriticalFinding"}`); len(got) != 0 {
			return fmt.Errorf("ALERTS: %v", got)
		}
		return nil
	})
	// Every collection was made with the deployed ServiceAccount's rights: no gap.
	if got := query(`karpnet_gaps`); len(got) != 0 {
		t.Errorf("karpnet_gaps: %v, want none", got)
	}
	if got := query(`karpnet_kubernetes_requests_total{verb="list", resource="nodes"}`); len(got) != 1 || got[0].Number() == "0" {
		t.Errorf(`karpnet_kubernetes_requests_total{verb="list", resource="nodes"}: %v, want a count`, got)
	}

	if code := s.stop(t); code != 0 {
		t.Errorf("serve after SIGTERM: exit %d, want 0\n%s", code, s.log.String())
	}
	log := s.log.String()
	collections := strings.Count(log, " collection ")
	if collections < 3 || !strings.Contains(log, "(1 critical)") || !strings.HasSuffix(log, " stopped\n") {
		t.Errorf("serve's log (%d collection lines): want one line per collection, one with a critical finding, then stopped:\n%s",
			collections, log)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		t.Fatal("the test's context ended early")
	}
}
