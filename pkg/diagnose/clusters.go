package diagnose

import (
	"maps"
	"slices"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// AnalyzeAll is Analyze for a snapshot of one cluster, and AnalyzeClusters with opts for
// every cluster of a snapshot of several.
func AnalyzeAll(s *snapshot.Snapshot, opts Options) Report {
	if !s.Multi() {
		return Analyze(s, opts)
	}
	return AnalyzeClusters(s, func(*snapshot.Snapshot) Options { return opts })
}

// AnalyzeClusters analyses each cluster of a multi-cluster snapshot with the options opts
// gives for it, and joins the reports: the clusters in the snapshot's order, each one's
// nodes, findings, NodeClaims, subnets and gaps after the previous one's (each cluster's
// sorted as Analyze sorts them), all marked with their context; notes start with their
// context; the summary adds up every cluster's. Region is the clusters' Region when they
// share one; Regions lists them all when they do not.
func AnalyzeClusters(s *snapshot.Snapshot, opts func(*snapshot.Snapshot) Options) Report {
	r := Report{
		Kind: ReportKind, APIVersion: ReportAPIVersion, Taken: s.Taken,
		Nodes: []NodeReport{}, Subnets: []SubnetUse{}, Findings: []Finding{}, Gaps: []snapshot.Gap{},
		Summary:  newSummary(),
		Clusters: []ClusterReport{},
	}
	regions := map[string]bool{}
	for i := range s.Clusters {
		m := &s.Clusters[i]
		part := Analyze(m, opts(m))
		ctx := m.Context
		c := ClusterReport{Context: ctx, ClusterName: m.ClusterName, Cluster: m.Cluster, Region: m.Region,
			Account: m.Account, Taken: m.Taken, Status: StatusOK, Summary: part.Summary}
		if w, ok := Worst(part.Findings); ok {
			c.Status = w.String()
		}
		if gap := m.Unreachable(); gap != "" {
			c.Status, c.Gap = StatusUnreachable, gap
		}
		r.Clusters = append(r.Clusters, c)
		for _, region := range append([]string{m.Region}, m.Regions...) {
			if region != "" {
				regions[region] = true
			}
		}
		for _, n := range part.Notes {
			r.Notes = append(r.Notes, ctx+": "+n)
		}
		for _, n := range part.Nodes {
			n.Context = ctx
			n.Findings = withContext(n.Findings, ctx)
			r.Nodes = append(r.Nodes, n)
		}
		for _, cl := range part.NodeClaims {
			cl.Context = ctx
			cl.Findings = withContext(cl.Findings, ctx)
			r.NodeClaims = append(r.NodeClaims, cl)
		}
		for _, u := range part.Subnets {
			u.Context = ctx
			r.Subnets = append(r.Subnets, u)
		}
		r.Findings = append(r.Findings, withContext(part.Findings, ctx)...)
		for _, g := range part.Gaps {
			g.Context = ctx
			r.Gaps = append(r.Gaps, g)
		}
		for _, n := range part.NotRun {
			n.Context = ctx
			r.NotRun = append(r.NotRun, n)
		}
		r.Summary = r.Summary.Add(part.Summary)
	}
	switch all := slices.Sorted(maps.Keys(regions)); len(all) {
	case 0:
	case 1:
		r.Region = all[0]
	default:
		r.Regions = all
	}
	return r
}

// withContext returns a copy of findings with Context set.
func withContext(findings []Finding, ctx string) []Finding {
	if findings == nil {
		return nil
	}
	out := make([]Finding, len(findings))
	for i, f := range findings {
		f.Context = ctx
		out[i] = f
	}
	return out
}
