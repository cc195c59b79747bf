package tui

import (
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
	"github.com/karpnet/kubectl-karpnet/pkg/sheet"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// subjects builds the sheets `kubectl karpnet describe subnet|nodeclass|nodepool|placementgroup|eni`
// prints, from the index of the loaded snapshot and the report as analysed (not yet made
// printable: the printer escapes what it renders).
type subjects struct {
	index  *diagnose.Index
	report diagnose.Report
}

// sheetFunc renders a subject's sheet at a width with the styles.
type sheetFunc func(width int, st *style.Styles) string

// sheet returns the renderer of subject's sheet (subnet/ID, nodepool/NAME, ec2nodeclass/NAME,
// nodeclass/NAME, placementgroup/NAME or eni/ID), and what the sheet is called; false when there is
// no index or the snapshot does not hold the subject.
func (s subjects) sheet(subject string) (sheetFunc, string, bool) {
	if s.index == nil {
		return nil, "", false
	}
	x, r := s.index, s.report
	kind, name, _ := strings.Cut(subject, "/")
	switch kind {
	case "subnet":
		if sh, ok := sheet.DescribeSubnet(x, r, name); ok {
			return func(w int, st *style.Styles) string { return printer.SubnetSheet(sh, w, st) }, "subnet sheet", true
		}
	case "nodepool":
		if sh, ok := sheet.DescribeNodePool(x, r, name); ok {
			return func(w int, st *style.Styles) string { return printer.NodePoolSheet(sh, w, st) }, "NodePool sheet", true
		}
	case "ec2nodeclass", "nodeclass":
		k := snapshot.KindEC2NodeClass
		if kind == "nodeclass" {
			k = snapshot.KindNodeClass
		}
		if sh, ok := sheet.DescribeNodeClass(x, r, k, name); ok {
			return func(w int, st *style.Styles) string { return printer.NodeClassSheet(sh, w, st) }, k + " sheet", true
		}
	case "placementgroup":
		if sh, ok := sheet.DescribePlacementGroup(x, r, name); ok {
			return func(w int, st *style.Styles) string { return printer.PlacementGroupSheet(sh, w, st) }, "placement group sheet", true
		}
	case "eni":
		if sh, ok := sheet.DescribeENI(x, r, name); ok {
			return func(w int, st *style.Styles) string { return printer.ENISheet(sh, w, st) }, "ENI sheet", true
		}
	}
	return nil, "", false
}
