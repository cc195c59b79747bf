package cmd

import (
	"slices"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// parseMinSeverity reads --min-severity: critical, warning or info (every finding).
func parseMinSeverity(v string) (diagnose.Severity, error) {
	if v == "" {
		return diagnose.Info, nil
	}
	s, err := diagnose.ParseSeverity(v)
	if err != nil {
		return 0, usageErrorf("--min-severity %q: use critical, warning or info", v)
	}
	return s, nil
}

// listed returns r with only the findings at or above floor, in the report's list and in each
// node's and NodeClaim's: what check --min-severity prints, in every format. The summary keeps
// its counts of every finding (the text summary line says how many it leaves out), and the
// nodes their status. r is not changed.
func listed(r diagnose.Report, floor diagnose.Severity) diagnose.Report {
	if floor <= diagnose.Info {
		return r
	}
	keep := func(fs []diagnose.Finding) []diagnose.Finding {
		out := make([]diagnose.Finding, 0, len(fs))
		for _, f := range fs {
			if f.Severity >= floor {
				out = append(out, f)
			}
		}
		return out
	}
	r.Findings = keep(r.Findings)
	r.Nodes = slices.Clone(r.Nodes)
	for i := range r.Nodes {
		r.Nodes[i].Findings = keep(r.Nodes[i].Findings)
	}
	r.NodeClaims = slices.Clone(r.NodeClaims)
	for i := range r.NodeClaims {
		r.NodeClaims[i].Findings = keep(r.NodeClaims[i].Findings)
	}
	return r
}
