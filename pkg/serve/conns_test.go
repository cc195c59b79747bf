package serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startServer runs s on a port of 127.0.0.1 until the test ends and returns its address once
// /readyz answers 200.
func startServer(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	addr := ln.Addr().String()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return addr
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz never answered 200: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestIdleConnectionsAreClosed opens three times as many connections as the limit, half of
// them kept alive after one request and half never sending one: the server closes every one
// within its timeouts, and /metrics answers a new client meanwhile and afterwards.
func TestIdleConnectionsAreClosed(t *testing.T) {
	r := takenAt(demoReport(t), time.Now())
	const limit = 8
	s := New(Options{Collect: (&script{steps: []step{{report: r}}}).collect, Interval: time.Hour, MaxAge: time.Hour,
		HTTP: HTTPLimits{IdleTimeout: 300 * time.Millisecond, ReadHeaderTimeout: 300 * time.Millisecond, MaxConnections: limit}})
	addr := startServer(t, s)

	var conns []net.Conn
	for i := range 3 * limit {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		conns = append(conns, c)
		if i%2 == 0 && i < limit-1 { // served at once: a keep-alive connection, idle after its answer
			fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: karpnet\r\n\r\n")
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatalf("connection %d: %v", i, err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("/metrics with %d idle connections open: %v, want an answer", len(conns), err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/metrics: %d, want 200", resp.StatusCode)
	}
	for i, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err := c.Read(make([]byte, 1))
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Errorf("connection %d still open after 5s idle, want it closed by the server", i)
		}
	}
	resp, err = client.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("/metrics after the idle connections: %v", err)
	}
	resp.Body.Close()
}

// TestLargeHeadersAreRefused: a request whose headers pass MaxHeaderBytes gets 431.
func TestLargeHeadersAreRefused(t *testing.T) {
	s := New(Options{Collect: (&script{steps: []step{{report: takenAt(demoReport(t), time.Now())}}}).collect,
		Interval: time.Hour, MaxAge: time.Hour})
	addr := startServer(t, s)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+addr+"/healthz", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Big", strings.Repeat("a", 2*DefaultMaxHeaderBytes))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("headers of %d bytes: %d, want 431", 2*DefaultMaxHeaderBytes, resp.StatusCode)
	}
}

// TestIdleConnectionsDoNotStarveNewOnes: with every slot of the connection limit (its default
// of 128) held by a keep-alive connection idle after one GET /healthz, and the idle timeout at
// its default of 90 s, a new client's GET /metrics is answered at once: the connection idle longest is closed
// for it, and the others stay open and usable.
func TestIdleConnectionsDoNotStarveNewOnes(t *testing.T) {
	const limit = DefaultMaxConnections
	s := New(Options{Collect: (&script{steps: []step{{report: takenAt(demoReport(t), time.Now())}}}).collect,
		Interval: time.Hour, MaxAge: time.Hour})
	addr := startServer(t, s)
	// startServer's own /readyz connection may still be open, idle: it is closed first.
	http.DefaultClient.CloseIdleConnections()
	type kept struct {
		c net.Conn
		r *bufio.Reader
	}
	healthz := func(k kept) error {
		if _, err := fmt.Fprintf(k.c, "GET /healthz HTTP/1.1\r\nHost: karpnet\r\n\r\n"); err != nil {
			return err
		}
		resp, err := http.ReadResponse(k.r, nil)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
	var conns []kept
	for i := range limit {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		k := kept{c: c, r: bufio.NewReader(c)}
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if err := healthz(k); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, k)
		time.Sleep(time.Millisecond) // the first is idle longest
	}
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	start := time.Now()
	resp, err := client.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("/metrics with %d idle keep-alive connections holding the limit of %d: %v after %s, want an answer within 2s",
			len(conns), limit, err, time.Since(start).Round(time.Millisecond))
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/metrics: %d, want 200", resp.StatusCode)
	}
	t.Logf("/metrics answered in %s with %d idle connections at the limit", time.Since(start).Round(time.Millisecond), limit)
	_ = conns[0].c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := conns[0].r.ReadByte(); !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("the connection idle longest: read %v, want it closed by the server (EOF)", err)
	}
	for i, k := range conns[1:] {
		_ = k.c.SetDeadline(time.Now().Add(2 * time.Second))
		if err := healthz(k); err != nil {
			t.Errorf("connection %d, idle but not the oldest: %v, want it kept open", i+1, err)
		}
	}
}

// TestBusyConnectionsAreNotClosedForNewOnes: at the limit, a new connection closes an idle one,
// never one whose request is being answered; with none idle it waits for a slot.
func TestBusyConnectionsAreNotClosedForNewOnes(t *testing.T) {
	s := New(Options{Collect: (&script{steps: []step{{report: takenAt(demoReport(t), time.Now())}}}).collect,
		Interval: time.Hour, MaxAge: time.Hour, HTTP: HTTPLimits{MaxConnections: 2}})
	addr := startServer(t, s)
	http.DefaultClient.CloseIdleConnections()
	release, entered := make(chan struct{}), make(chan struct{}, 1)
	s.metricsEntered = func() {
		entered <- struct{}{}
		<-release
	}
	busy := make(chan int, 1)
	go func() {
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := client.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Error(err)
			busy <- 0
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		busy <- resp.StatusCode
	}()
	<-entered
	idle := &http.Client{Timeout: 2 * time.Second}
	resp, err := idle.Get("http://" + addr + "/healthz") // kept alive: the other slot, idle
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	fresh := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	if resp, err = fresh.Get("http://" + addr + "/healthz"); err != nil {
		t.Fatalf("a new connection with one slot busy and one idle: %v, want an answer", err)
	}
	resp.Body.Close()
	// Both slots are now busy or free; a scrape under way is answered whole.
	close(release)
	if code := <-busy; code != http.StatusOK {
		t.Errorf("the scrape under way while new connections came: %d, want 200", code)
	}
}
