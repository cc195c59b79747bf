package cmd

import (
	"errors"
	"io"
	"os"
	"sync/atomic"
	"syscall"
)

// pipeOut is standard output when it is not a terminal (a pipe or a file): it counts what was
// written, so a reader that goes away after reading part of the report (| head) can be told
// from one that was never there. It keeps the file's descriptor for the terminal tests.
type pipeOut struct {
	f       *os.File
	written atomic.Int64
}

// outputFor returns out wrapped to count its writes when it is a file that is not a terminal.
func outputFor(out io.Writer, isTerminal func(any) bool) io.Writer {
	f, ok := out.(*os.File)
	if !ok || isTerminal(f) {
		return out
	}
	return &pipeOut{f: f}
}

func (p *pipeOut) Write(b []byte) (int, error) {
	n, err := p.f.Write(b)
	p.written.Add(int64(n))
	return n, err
}

// Fd is the file's descriptor.
func (p *pipeOut) Fd() uintptr { return p.f.Fd() }

// wroteSome reports whether any byte was written to out.
func wroteSome(out io.Writer) bool {
	w, ok := out.(interface{ wroteSome() bool })
	return ok && w.wroteSome()
}

func (p *pipeOut) wroteSome() bool { return p.written.Load() > 0 }

// readerLeft reports whether err is a write to standard output whose reader went away after
// reading part of what was written (| head that had enough): the run ends quietly there, as
// other command-line tools do. A reader that was gone before the first byte is still an error.
func readerLeft(out io.Writer, err error) bool {
	return errors.Is(err, syscall.EPIPE) && wroteSome(out)
}
