package printer

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// printFunc is PrintReport or PrintNodes.
type printFunc func(w *bytes.Buffer, r diagnose.Report, f Format, st *style.Styles) error

func printReport(w *bytes.Buffer, r diagnose.Report, f Format, st *style.Styles) error {
	return PrintReport(w, r, f, st)
}

func printNodes(w *bytes.Buffer, r diagnose.Report, f Format, st *style.Styles) error {
	return PrintNodes(w, r, f, st)
}

// goldenCase is one rendering compared with testdata/<golden>.
type goldenCase struct {
	golden string
	print  printFunc
	report diagnose.Report
	format Format
}

func goldenCases() []goldenCase {
	return []goldenCase{
		{golden: "check.table.golden", print: printReport, report: findingsReport(), format: Table},
		{golden: "check.wide.golden", print: printReport, report: findingsReport(), format: Wide},
		{golden: "check.json.golden", print: printReport, report: findingsReport(), format: JSON},
		{golden: "check.yaml.golden", print: printReport, report: findingsReport(), format: YAML},
		{golden: "check-claims.table.golden", print: printReport, report: claimsReport(), format: Table},
		{golden: "check-claims.wide.golden", print: printReport, report: claimsReport(), format: Wide},
		{golden: "clean.table.golden", print: printReport, report: cleanReport(), format: Table},
		{golden: "clean.wide.golden", print: printReport, report: cleanReport(), format: Wide},
		{golden: "clean.json.golden", print: printReport, report: cleanReport(), format: JSON},
		{golden: "clean.yaml.golden", print: printReport, report: cleanReport(), format: YAML},
		{golden: "describe-full.table.golden", print: printNodes, report: nodesReport(gpuNodeReport()), format: Table},
		{golden: "describe-missing.table.golden", print: printNodes, report: nodesReport(goneNodeReport()), format: Table},
		{golden: "describe-skipped.table.golden", print: printNodes, report: nodesReport(skippedNodeReport()), format: Table},
		{
			golden: "describe-three.table.golden", print: printNodes, format: Table,
			report: nodesReport(gpuNodeReport(), goneNodeReport(), skippedNodeReport()),
		},
		{golden: "describe-full.json.golden", print: printNodes, report: nodesReport(gpuNodeReport()), format: JSON},
		{golden: "describe-netpath.table.golden", print: printNodes, report: nodesReport(wayOutNodeReport()), format: Table},
		{golden: "describe-netpath-endpoints.table.golden", print: printNodes, report: nodesReport(endpointsNodeReport()), format: Table},
		{golden: "describe-automode.table.golden", print: printNodes, report: nodesReport(autoNodeReport()), format: Table},
		{golden: "describe-automode.json.golden", print: printNodes, report: nodesReport(autoNodeReport()), format: JSON},
		{golden: "describe-missing.yaml.golden", print: printNodes, report: nodesReport(goneNodeReport()), format: YAML},
	}
}

// plainStyles returns styles with colour forced off.
func plainStyles() *style.Styles { return style.New(style.Renderer(&bytes.Buffer{}, false)) }

// colourStyles returns styles with colour forced on.
func colourStyles() *style.Styles { return style.New(style.Renderer(&bytes.Buffer{}, true)) }

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases() {
		t.Run(tc.golden, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tc.print(&buf, tc.report, tc.format, plainStyles()); err != nil {
				t.Fatalf("printing: %v", err)
			}
			testutil.Assert(t, filepath.Join("testdata", tc.golden), buf.String())
		})
	}
}
