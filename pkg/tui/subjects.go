package tui

import (
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
	"github.com/karpnet/kubectl-karpnet/pkg/sheet"
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

// subjectSheet is a subject's sheet as the TUI shows it: rendered without its "See also"
// section, whose References it lists as links instead.
type subjectSheet struct {
	render sheetFunc
	// what names the sheet ("subnet sheet").
	what string
	refs sheet.References
	// query filters the nodes view to the subject's members.
	query string
}

// sheet returns subject's sheet (subnet/ID, nodepool/NAME, ec2nodeclass/NAME, nodeclass/NAME,
// placementgroup/NAME or eni/ID); false when there is no index or the snapshot does not hold
// the subject.
func (s subjects) sheet(subject string) (subjectSheet, bool) {
	if s.index == nil {
		return subjectSheet{}, false
	}
	x, r := s.index, s.report
	kind, name, _ := kinds.Split(subject)
	switch kind {
	case kinds.Subnet:
		if sh, ok := sheet.DescribeSubnet(x, r, name); ok {
			return subjectSheet{func(w int, st *style.Styles) string { return printer.SubnetSheet(sh, w, st) }, "subnet sheet", sh.References(), name}, true
		}
	case kinds.NodePool:
		if sh, ok := sheet.DescribeNodePool(x, r, name); ok {
			return subjectSheet{func(w int, st *style.Styles) string { return printer.NodePoolSheet(sh, w, st) }, "NodePool sheet", sh.References(), name}, true
		}
	case kinds.EC2NodeClass, kinds.NodeClass:
		k := kinds.Get(kind).Object
		if sh, ok := sheet.DescribeNodeClass(x, r, k, name); ok {
			return subjectSheet{func(w int, st *style.Styles) string { return printer.NodeClassSheet(sh, w, st) }, k + " sheet", sh.References(), name}, true
		}
	case kinds.PlacementGroup:
		if sh, ok := sheet.DescribePlacementGroup(x, r, name); ok {
			return subjectSheet{func(w int, st *style.Styles) string { return printer.PlacementGroupSheet(sh, w, st) }, "placement group sheet",
				sh.References(), cmpOr(sh.Name, sh.ID)}, true
		}
	case kinds.ENI:
		if sh, ok := sheet.DescribeENI(x, r, name); ok {
			return subjectSheet{func(w int, st *style.Styles) string { return printer.ENISheet(sh, w, st) }, "ENI sheet", sh.References(), name}, true
		}
	}
	return subjectSheet{}, false
}
