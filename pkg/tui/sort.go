package tui

import (
	"cmp"
	"slices"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
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
			return comparePods(capacityOf(d, ra), capacityOf(d, rb))
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

// capacityOf returns the capacity of r's node, nil for a NodeClaim row or an unknown capacity.
func capacityOf(d *data, r *row) *diagnose.CapacityReport {
	if r.node < 0 {
		return nil
	}
	return d.report.Nodes[r.node].Capacity
}

// comparePods orders capacities by pods over IP capacity, highest first; a capacity without an
// IP ceiling (unknown, or IPv6) comes last.
func comparePods(a, b *diagnose.CapacityReport) int {
	ka, kb := ratioKnown(a), ratioKnown(b)
	if c := compareLast(!ka, !kb); c != 0 || !ka {
		return c
	}
	// a.Pods/a.IPCapacity > b.Pods/b.IPCapacity, without division.
	return cmp.Compare(b.Pods*a.IPCapacity, a.Pods*b.IPCapacity)
}

// ratioKnown reports whether c has a pods/IP ratio.
func ratioKnown(c *diagnose.CapacityReport) bool {
	return c != nil && c.IPCapacity > 0 && c.IPFamily != diagnose.IPv6
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
