package diff

import (
	"fmt"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// gapSet is the sources one side could not read; a source not read in one Region only is
// "SOURCE in REGION".
type gapSet map[string]bool

func gapsOf(r diagnose.Report) gapSet {
	g := gapSet{}
	for _, gap := range r.Gaps {
		g[gap.Subject()] = true
	}
	return g
}

// missing tells whether s has a gap that other lacks: then s read less than other, and a
// finding other raised may be absent from s only because its data was not read. A gap both
// sides share silenced the same checks on both.
func (s gapSet) missing(other gapSet) bool {
	for src := range s {
		if !other[src] {
			return true
		}
	}
	return false
}

// unknownWhenGone splits the findings of OLD that NEW lacks into resolved and unknown. When
// either side could not read a source the other read, a finding gone may be gone only
// because what it was raised from was not read (on NEW), or was raised from less data (on
// OLD): it is unknown. A data-unavailable finding is resolved when its gap is gone.
func unknownWhenGone(c *FindingChanges, old, new diagnose.Report) {
	og, ng := gapsOf(old), gapsOf(new)
	if !og.missing(ng) && !ng.missing(og) {
		return
	}
	resolved := []diagnose.Finding{}
	for _, f := range c.Resolved {
		if f.ID == diagnose.DataUnavailableID {
			resolved = append(resolved, f)
			continue
		}
		c.Unknown = append(c.Unknown, f)
	}
	c.Resolved = resolved
}

// notReadWhenGone moves the nodes of OLD that NEW lacks to NotRead when NEW's node list was
// incomplete (a gap on nodes): they may still be there.
func notReadWhenGone(c *NodeChanges, new diagnose.Report) {
	if !gapsOf(new)[snapshot.SourceNodes] || len(c.Removed) == 0 {
		return
	}
	c.NotRead, c.Removed = c.Removed, []string{}
}

// clusterWarnings warns when OLD and NEW name different clusters: by cluster name when both
// have one (a context may be renamed), else by context.
func clusterWarnings(old, new diagnose.Report) []string {
	differ := old.Cluster != "" && new.Cluster != "" && old.Cluster != new.Cluster
	if old.Cluster == "" || new.Cluster == "" {
		differ = old.Context != "" && new.Context != "" && old.Context != new.Context
	}
	if !differ {
		return nil
	}
	side := func(r diagnose.Report) string {
		switch {
		case r.Cluster == "":
			return "context " + r.Context
		case r.Context == "":
			return r.Cluster
		}
		return r.Cluster + " in context " + r.Context
	}
	return []string{fmt.Sprintf("OLD and NEW are different clusters (%s, %s): the changes compare one cluster with another", side(old), side(new))}
}

// Uncertain returns the unknown findings of d at or above threshold: what OLD raised and NEW
// cannot say is gone.
func (d Diff) Uncertain(threshold diagnose.Severity) []diagnose.Finding {
	var out []diagnose.Finding
	for _, f := range d.Findings.Unknown {
		if f.Severity >= threshold {
			out = append(out, f)
		}
	}
	return out
}
