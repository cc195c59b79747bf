package tui

import (
	"io"
	"os"
	"sync"
)

// terminalOutput returns the writer the program draws on and `y` writes its clipboard sequence
// to. A file is used as it is: its writes are already serialised, and the program needs the file
// itself to find the terminal's size. Any other writer is wrapped so the two never interleave.
func terminalOutput(out io.Writer) io.Writer {
	if out == nil {
		return os.Stdout
	}
	if _, ok := out.(*os.File); ok {
		return out
	}
	return &lockedWriter{w: out}
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes p to w while holding the lock.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
