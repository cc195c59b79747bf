package diagnose

import (
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
	Subnets    []SubnetUse       `json:"subnets"`
	Findings   []Finding         `json:"findings"`
	Gaps       []snapshot.Gap    `json:"gaps"`
	// NotRun lists the checks Analyze did not run because a source they need (Spec.Needs) is a
	// gap, in catalogue order; absent when every chosen check ran.
	NotRun []NotRun `json:"notRun,omitempty"`
	// Clusters lists the clusters of a run over several kubeconfig contexts, in the order
	// read; absent for one cluster. Nodes, findings, NodeClaims, subnets and gaps then carry
	// their cluster's context.
	Clusters []ClusterReport `json:"clusters,omitempty"`
}

// Options choose what Analyze reports.
type Options struct {
	// Nodes limits node reports and node findings to these names; nil means every node.
	Nodes map[string]bool
	// Resources adds resource findings (kind/name) to a selection, e.g. nodepool/default
	// for --nodepool. Findings on resources used by selected nodes are always kept.
	Resources map[string]bool
	// Only runs just these check IDs; Skip leaves these out.
	Only []string
	Skip []string
}

// Worst returns the most severe severity among findings, and false when there are none.
func Worst(findings []Finding) (Severity, bool) {
	if len(findings) == 0 {
		return Info, false
	}
	w := Info
	for _, f := range findings {
		w = max(w, f.Severity)
	}
	return w, true
}

// NotRun and SubnetUse are the report's checks not run and subnets (pkg/diagnose/view).
type (
	NotRun    = view.NotRun
	SubnetUse = view.SubnetUse
)
