package scale

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// serveGap is the time serve waits between collections in the benchmark: long enough that a
// scrape between two collections sees one finished and the next not started.
const serveGap = 2 * time.Second

// serveDeadline is the benchmark's --collection-timeout.
const serveDeadline = 10 * time.Minute

// ServeMeasure is what `kubectl-karpnet serve` did over a number of collections of one cluster.
type ServeMeasure struct {
	// EC2 and Kube are the requests of each collection as the servers received them, by EC2
	// action and by Kubernetes verb and resource; Counted are the EC2 and Kubernetes requests
	// serve itself counted over all collections (karpnet_ec2_requests_total,
	// karpnet_kubernetes_requests_total).
	EC2, Kube               []map[string]int
	CountedEC2, CountedKube int
	// RSS and HeapLive are process_resident_memory_bytes and go_gc_heap_live_bytes (the heap
	// the last GC found live) after each collection, from serve's own /metrics.
	RSS, HeapLive []int64
	// MeanWall is the mean collection time (karpnet_collection_duration_seconds).
	MeanWall time.Duration
	// PeakRSS is the process's peak resident set size; Exit its exit code after SIGTERM.
	PeakRSS int64
	Exit    int
}

// Collections returns how many collections were measured.
func (m ServeMeasure) Collections() int { return len(m.RSS) }

// Serve runs `kubectl-karpnet serve` over the whole cluster under c for the given number of
// collections, reading its /metrics after each, then stops it with SIGTERM.
func (e *Env) Serve(ctx context.Context, c Conditions, collections int) (ServeMeasure, error) {
	var m ServeMeasure
	e.EC2.SetLatency(c.Latency)
	if c.Throttle {
		e.EC2.SetThrottle(ThrottleBurst, ThrottleRefill)
	} else {
		e.EC2.SetThrottle(0, 0)
	}
	defer func() {
		e.EC2.SetLatency(0)
		e.EC2.SetThrottle(0, 0)
	}()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return m, err
	}
	addr := ln.Addr().String()
	ln.Close()
	// A collection of 100,000 nodes takes longer than serve's default deadline (--interval, at
	// least 15 s), which a user serving such a cluster raises the same way.
	args := []string{"serve", "--listen", addr, "--interval", serveGap.String(), "--collection-timeout", serveDeadline.String()}
	if c.NamedCluster {
		args = append(args, "--cluster-name", clusterName)
	}
	cmd, peak := MeasuredCommand(ctx, e.peakrss, e.plugin, args...)
	// The gap is below serve's 15 s floor, which KARPNET_SERVE_TEST_MIN_INTERVAL lowers for tests.
	cmd.Env = append(append(cleanEnv(), "NO_COLOR=1", "KARPNET_SERVE_TEST_MIN_INTERVAL=1s"), e.Environ()...)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	ec2Before := e.EC2.Counts()
	e.counter.take()
	if err := cmd.Start(); err != nil {
		return m, fmt.Errorf("starting serve: %w", err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()

	url := "http://" + addr + "/metrics"
	deadline := time.Now().Add(time.Duration(collections) * 2 * time.Minute)
	for seen := 0.0; len(m.RSS) < collections; {
		if time.Now().After(deadline) {
			return m, fmt.Errorf("serve made %d of %d collections in time; its log:\n%s", len(m.RSS), collections, log.String())
		}
		time.Sleep(50 * time.Millisecond)
		v, err := scrape(ctx, url)
		if err != nil || v[`karpnet_collections_total{result="success"}`] == seen {
			continue
		}
		if v[`karpnet_collections_total{result="failure"}`] > 0 {
			return m, fmt.Errorf("a collection failed; serve's log:\n%s", log.String())
		}
		seen = v[`karpnet_collections_total{result="success"}`]
		if seen != float64(len(m.RSS)+1) {
			return m, fmt.Errorf("saw collection %v after %d: the benchmark missed one (gap %s too short?)", seen, len(m.RSS), serveGap)
		}
		now := e.EC2.Counts()
		delta := maps.Clone(now)
		for k, n := range ec2Before {
			delta[k] -= n
		}
		maps.DeleteFunc(delta, func(_ string, n int) bool { return n == 0 })
		ec2Before = now
		m.EC2, m.Kube = append(m.EC2, delta), append(m.Kube, e.counter.take())
		m.RSS = append(m.RSS, int64(v["process_resident_memory_bytes"]))
		m.HeapLive = append(m.HeapLive, int64(v["go_gc_heap_live_bytes"]))
		m.CountedEC2, m.CountedKube = int(sumPrefix(v, "karpnet_ec2_requests_total")), int(sumPrefix(v, "karpnet_kubernetes_requests_total"))
		if n := v["karpnet_collection_duration_seconds_count"]; n > 0 {
			m.MeanWall = time.Duration(v["karpnet_collection_duration_seconds_sum"] / n * float64(time.Second))
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return m, err
	}
	err = cmd.Wait()
	stopped = true
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		m.Exit = exit.ExitCode()
	} else if err != nil {
		return m, err
	}
	m.PeakRSS, err = peak()
	return m, err
}

// scrape reads a text exposition into values by series as it is written
// (`name{label="value"}`), skipping comments.
func scrape(ctx context.Context, url string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[line[:i]] = v
		}
	}
	return out, nil
}

func sumPrefix(v map[string]float64, name string) float64 {
	total := 0.0
	for k, n := range v {
		if strings.HasPrefix(k, name+"{") {
			total += n
		}
	}
	return total
}
