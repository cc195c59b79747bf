package printer

import (
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// minSheetWidth is the narrowest a sheet is laid out: narrower, labels and values cannot share a line.
const minSheetWidth = 40

// NodeSheet returns the `describe node` sheet of n as text whose lines fit width columns (at
// least 40; zero or less means Width), for views that place it themselves, such as the TUI.
// It is the sheet PrintNodes writes, followed by uses, the findings on what the node uses
// (diagnose.Report.OnWhatUses), its strings escaped and cut as PrintReport does. st colours
// the text; nil means no colour.
func NodeSheet(n diagnose.NodeReport, uses []diagnose.Finding, width int, st *style.Styles) string {
	text, _ := NodeSheetSections(n, uses, width, st)
	return text
}

// NodeSheetSections returns NodeSheet's text and its sections in order (Identity, Addresses,
// ..., Pod capacity or Cilium IPAM, ..., Findings), each with the line its header is on: what a
// view jumps between, without reading the text back.
func NodeSheetSections(n diagnose.NodeReport, uses []diagnose.Finding, width int, st *style.Styles) (string, []Section) {
	t := newScreen(st, width)
	nodeSheet(t, style.PrintableCopy(n))
	related(t, style.PrintableCopy(uses), true)
	return t.b.String(), t.sections
}
