package tui

import (
	"strconv"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/diff"
)

// newGlyph marks a finding that is new since the previous collection.
const newGlyph = "+"

// changes are what a reload changed in the findings: those new since the previous collection,
// by key, and those that resolved, read at since.
type changes struct {
	added    map[diagnose.FindingKey]bool
	resolved []diagnose.Finding
	since    time.Time
}

// compareFindings returns what changed in the findings from old to new, keyed as
// diff.CompareFindings keys them (ID, node and resource).
func compareFindings(old, new diagnose.Report) changes {
	diff := diff.CompareFindings(old.Findings, new.Findings)
	c := changes{added: make(map[diagnose.FindingKey]bool, len(diff.Added)),
		resolved: diff.Resolved, since: old.Taken}
	for _, f := range diff.Added {
		c.added[f.Key()] = true
	}
	return c
}

// isNew reports whether f is new since the previous collection.
func (c changes) isNew(f diagnose.Finding) bool { return c.added[f.Key()] }

// newCount counts the findings of fs that are new.
func (c changes) newCount(fs []diagnose.Finding) int {
	n := 0
	for _, f := range fs {
		if c.isNew(f) {
			n++
		}
	}
	return n
}

// markChanges records c in d and marks the node rows' finding counts with how many are new:
// "3+1" is three findings, one of them new.
func (d *data) markChanges(c changes) {
	d.changes = c
	if len(c.added) == 0 {
		return
	}
	for i := range d.rows {
		rw := &d.rows[i]
		if rw.claim >= 0 || rw.node < 0 || rw.node >= len(d.report.Nodes) {
			continue
		}
		if n := c.newCount(d.report.Nodes[rw.node].Findings); n > 0 {
			rw.cells[colFindings] = strconv.Itoa(rw.findings) + newGlyph + strconv.Itoa(n)
			d.widths[colFindings] = max(d.widths[colFindings], width(rw.cells[colFindings]))
		}
	}
}
