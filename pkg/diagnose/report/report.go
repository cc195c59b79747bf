package report

import (
	"slices"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/view"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Report kind and API version: the JSON/YAML output is a public interface.
const (
	ReportKind       = "Report"
	ReportAPIVersion = "karpnet/v1alpha1"
)

// Report is the result of Analyze: what was checked and what was found.
type Report struct {
	Kind       string    `json:"kind"`
	APIVersion string    `json:"apiVersion"`
	Taken      time.Time `json:"taken"`
	Context    string    `json:"context,omitempty"`
	Cluster    string    `json:"cluster,omitempty"`
	Region     string    `json:"region,omitempty"`
	// Regions lists every Region EC2 was read in when the nodes are in more than one.
	Regions []string `json:"regions,omitempty"`
	// Notes are what collection wants the reader to know, e.g. that the AWS configuration's
	// Region was not the nodes'.
	Notes []string `json:"notes,omitempty"`
	// AnalysisNotes are the notes of Notes the analysis added (a CiliumNode's
	// first-interface-index out of range), for a text report to say beside the snapshot's.
	AnalysisNotes []string     `json:"-"`
	Summary       Summary      `json:"summary"`
	Nodes         []NodeReport `json:"nodes"`
	// NodeClaims are the NodeClaims that have no Node, worst first; absent when there are none.
	NodeClaims []NodeClaimReport `json:"nodeClaims,omitempty"`
	Subnets    []view.SubnetUse  `json:"subnets"`
	Findings   []Finding         `json:"findings"`
	Gaps       []snapshot.Gap    `json:"gaps"`
	// NotRun lists the checks Analyze did not run because a source they need (Spec.Needs) is a
	// gap, in catalogue order; absent when every chosen check ran.
	NotRun []view.NotRun `json:"notRun,omitempty"`
	// Clusters lists the clusters of a run over several kubeconfig contexts, in the order
	// read; absent for one cluster. Nodes, findings, NodeClaims, subnets and gaps then carry
	// their cluster's context.
	Clusters []ClusterReport `json:"clusters,omitempty"`
}

// The NodeReport statuses besides a severity name: a node without findings is ok,
// initialising or terminating; a node that is not EC2 is skipped.
const (
	StatusOK           = "ok"
	StatusSkipped      = "skipped"
	StatusInitialising = "initialising"
	StatusTerminating  = "terminating"
)

// About returns the report's findings that concern subject ref (kind/name, e.g.
// subnet/subnet-0abc or ec2nodeclass/default), in report order: those whose Subjects name it,
// or, in a report made without them, whose subject or resource is ref.
func (r Report) About(ref string) []Finding {
	out := []Finding{}
	for _, f := range r.Findings {
		if f.Concerns(ref) {
			out = append(out, f)
		}
	}
	return out
}

// OnWhatUses returns r's findings on what node n uses (Uses), in report order: findings on a
// shared subject (no node's own) whose own subject or resource is one n uses, e.g. an
// exhausted pod subnet its ENIs are in, its NodePool's or its class's. A node inherits a
// finding only through what it uses itself: a finding on a subnet reaches the subnet's class
// (InheritedSubjects), not the class's nodes in other subnets. describe node, the TUI node
// sheet and the node lists' inherited status all read this list. A data-unavailable finding is
// in it too: what karpnet could not read bears on every node. In a report over several
// clusters only those of n's cluster count.
func (r Report) OnWhatUses(n NodeReport) []Finding { return r.OnWhatTheyUse([]NodeReport{n}) }

// OnWhatTheyUse returns r's findings on what any of nodes uses (OnWhatUses), each once, in
// report order: the list describe gives several nodes.
func (r Report) OnWhatTheyUse(nodes []NodeReport) []Finding {
	uses := map[string]map[string]bool{} // by context: a set, as describe may cover every node
	for _, n := range nodes {
		if uses[n.Context] == nil {
			uses[n.Context] = map[string]bool{}
		}
		for _, ref := range n.Uses() {
			uses[n.Context][ref] = true
		}
	}
	var out []Finding
	for _, f := range r.Findings {
		refs, ok := uses[f.Context]
		if f.Node != "" || !ok {
			continue
		}
		if f.ID == DataUnavailableID || refs[f.Subject()] || f.Resource != "" && refs[f.Resource] {
			out = append(out, f)
		}
	}
	return out
}

// OfContext returns the part of a report over several clusters that is about the cluster of
// ctx: its nodes, findings, NodeClaims, subnets and gaps, its summary and its entry of
// Clusters (as the report's only one), with Context, Cluster and Region set from it. ok is
// false when the report has no such cluster.
func (r Report) OfContext(ctx string) (part Report, ok bool) {
	i := slices.IndexFunc(r.Clusters, func(c ClusterReport) bool { return c.Context == ctx })
	if i < 0 {
		return Report{}, false
	}
	c := r.Clusters[i]
	part = Report{Kind: r.Kind, APIVersion: r.APIVersion, Taken: c.Taken, Context: c.Context, Cluster: c.Cluster,
		Region: c.Region, Summary: c.Summary, Nodes: []NodeReport{}, Subnets: []view.SubnetUse{}, Findings: []Finding{},
		Gaps: []snapshot.Gap{}, Clusters: []ClusterReport{c}}
	part.Nodes = append(part.Nodes, ofContext(r.Nodes, ctx, func(n NodeReport) string { return n.Context })...)
	part.Findings = append(part.Findings, ofContext(r.Findings, ctx, func(f Finding) string { return f.Context })...)
	part.NodeClaims = ofContext(r.NodeClaims, ctx, func(c NodeClaimReport) string { return c.Context })
	part.Subnets = append(part.Subnets, ofContext(r.Subnets, ctx, func(u view.SubnetUse) string { return u.Context })...)
	part.Gaps = append(part.Gaps, ofContext(r.Gaps, ctx, func(g snapshot.Gap) string { return g.Context })...)
	part.NotRun = ofContext(r.NotRun, ctx, func(n view.NotRun) string { return n.Context })
	return part, true
}

// ofContext returns the items whose context is ctx, in order; nil for none.
func ofContext[T any](items []T, ctx string, context func(T) string) []T {
	var out []T
	for _, v := range items {
		if context(v) == ctx {
			out = append(out, v)
		}
	}
	return out
}
