package serve

import (
	"bytes"
	"compress/gzip"
	"fmt"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// reportBody is one collection's /report, rendered when the collection ends and shared by every
// request until the next collection replaces it: concurrent requests cost one body, not one
// each. Only its gzip-compressed form is kept (about a tenth of the JSON), not the report: what
// serve holds between collections is what it serves.
type reportBody struct {
	gz  []byte
	err error
}

// renderReport renders r as check -o json prints it, straight into gzip.
func renderReport(r *diagnose.Report) *reportBody {
	b := &reportBody{}
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed) // a valid level: no error
	if err := printer.PrintReport(zw, *r, printer.JSON, nil); err != nil {
		b.err = err
		return b
	}
	if err := zw.Close(); err != nil {
		b.err = fmt.Errorf("compressing the report: %w", err)
		return b
	}
	b.gz = z.Bytes()
	return b
}
