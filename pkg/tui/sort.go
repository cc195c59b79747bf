package tui

import (
	"cmp"
	"slices"

	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// sortBy is the order of the nodes table.
type sortBy int

// The orders, in the order `S` cycles through them.
const (
	sortWorst sortBy = iota
	sortName
	sortPool
	sortZone
	sortType
	sortPods
	numSorts
)

// String names the order for the status line.
func (s sortBy) String() string {
	return [...]string{"worst first", "name", "NodePool", "zone", "instance type", "pods/IP"}[s]
}

// sortOrder returns the indices of d's rows in order s. The sort is stable over the rows'
// worst-first order, so equal keys keep it, and NodeClaim rows stay after the nodes. Unknown
// values sort last; pods/IP puts the highest ratio of capacity.pods to IP capacity first, the
// nodes nearest to running out of addresses.
func sortOrder(d *data, s sortBy) []int {
	order := make([]int, len(d.rows))
	for i := range order {
		order[i] = i
	}
	if s == sortWorst {
		return order
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ra, rb := &d.rows[a], &d.rows[b]
		if c := compareLast(ra.claim >= 0, rb.claim >= 0); c != 0 {
			return c
		}
		if s == sortPods {
			return comparePods(podIPsOf(d, ra), podIPsOf(d, rb))
		}
		return compareCells(sortCell(ra, s), sortCell(rb, s))
	})
	return order
}

// sortCell is the cell a text order compares.
func sortCell(r *row, s sortBy) string {
	switch s {
	case sortPool:
		return r.cells[colPool]
	case sortZone:
		return r.cells[colZone]
	case sortType:
		return r.cells[colType]
	}
	return r.cells[colName]
}

// compareCells orders cells naturally (naturalCompare), an unknown value (a dash) last.
func compareCells(a, b string) int {
	if c := compareLast(a == none, b == none); c != 0 {
		return c
	}
	return naturalCompare(a, b)
}

// podIPsOf returns the pods and pod IPs of r's node as its PODS/IPS cell shows them; the zero
// PodIPs for a NodeClaim row or an unknown capacity.
func podIPsOf(d *data, r *row) printer.PodIPs {
	if r.node < 0 {
		return printer.PodIPs{}
	}
	p, _ := printer.NodePodIPs(d.report.Nodes[r.node])
	return p
}

// comparePods orders nodes by pods over pod IPs, highest first; one without an IPv4 ceiling
// (unknown, or IPv6) comes last.
func comparePods(a, b printer.PodIPs) int {
	ka, kb := a.Ceiling(), b.Ceiling()
	if c := compareLast(!ka, !kb); c != 0 || !ka {
		return c
	}
	// a.Pods/a.IPs > b.Pods/b.IPs, without division.
	return cmp.Compare(b.Pods*a.IPs, a.Pods*b.IPs)
}

// compareLast orders a value marked last after one that is not.
func compareLast(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
