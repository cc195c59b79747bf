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
