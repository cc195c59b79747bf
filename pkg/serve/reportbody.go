package serve

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"sync"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// reportBody is one collection's /report, rendered once when first asked for and shared by every
// request until the next collection replaces it: concurrent requests cost one body, not one each.
type reportBody struct {
	report *diagnose.Report

	once      sync.Once
	plain, gz []byte
	err       error
	// renders counts the renderings, for tests: at most one.
	renders int
}

// bodies returns the report as check -o json prints it, and gzip-compressed; the first call
// renders both, later and concurrent ones wait for it and share the result.
func (b *reportBody) bodies() (plain, gz []byte, err error) {
	b.once.Do(func() {
		b.renders++
		var buf bytes.Buffer
		if b.err = printer.PrintReport(&buf, *b.report, printer.JSON, nil); b.err != nil {
			return
		}
		b.plain = buf.Bytes()
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed) // a valid level: no error
		if _, err := zw.Write(b.plain); err != nil {
			b.err = fmt.Errorf("compressing the report: %w", err)
			return
		}
		if err := zw.Close(); err != nil {
			b.err = fmt.Errorf("compressing the report: %w", err)
			return
		}
		b.gz = z.Bytes()
	})
	return b.plain, b.gz, b.err
}
