package tui

import (
	"bytes"
	"encoding/base64"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a buffer a test reads while the program writes it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitOutput waits up to 10 s for out to hold s.
func waitOutput(t *testing.T, out *syncBuffer, s string) bool {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(out.String(), s) {
			return true
		}
	}
	t.Errorf("the program never wrote %q", s)
	return false
}

func TestRunCopyWritesOSC52ToTheTerminal(t *testing.T) {
	r := demoReport(t)
	first := ready(t, r, defaultWidth, defaultHeight)
	name, _ := first.nodes.selectedName()
	in, keys := io.Pipe()
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- Run(t.Context(), fixedLoader(r), Options{In: in, Out: out, Styles: plain(), Title: "demo"})
	}()
	want := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(name)) + "\a"
	if waitOutput(t, out, "nodes 36/36") {
		_, _ = keys.Write([]byte("y"))
		if waitOutput(t, out, want) {
			waitOutput(t, out, "copied "+name)
		}
	}
	_, _ = keys.Write([]byte("q"))
	if err := <-done; err != nil {
		t.Fatalf("Run = %v, want nil after q", err)
	}
	if n := strings.Count(out.String(), "\x1b]52;"); n != 1 {
		t.Errorf("the program wrote %d clipboard sequences, want 1", n)
	}
}
