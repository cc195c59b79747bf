package diagnose

import (
	"time"

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

// NotRun is a check that was not run: the snapshot has a gap for each source of Needs, which
// the check needs to judge at all (its Spec.Needs).
type NotRun struct {
	ID    string   `json:"id"`
	Needs []string `json:"needs"`
	// Context is the kubeconfig context of the cluster, in a report over several clusters.
	Context string `json:"context,omitempty"`
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

// SubnetUse is one subnet the report's nodes use, an EC2NodeClass selects, or (with custom
// networking) an ENIConfig gives pods, with its free addresses.
type SubnetUse struct {
	ID     string `json:"id"`
	CIDR   string `json:"cidr"`
	Zone   string `json:"zone"`
	ZoneID string `json:"zoneID,omitempty"`
	// AvailableIPs is EC2's AvailableIpAddressCount; UsableIPs the CIDR's size less AWS's five.
	AvailableIPs int32 `json:"availableIPs"`
	UsableIPs    int64 `json:"usableIPs"`
	// NodeClasses select the subnet in their status.subnets, have nodes in it, or (EKS Auto
	// Mode) select it for pods in podSubnetSelectorTerms: EC2NodeClass names, and EKS Auto Mode
	// NodeClasses as nodeclass/NAME.
	NodeClasses []string `json:"nodeClasses,omitempty"`
	// Nodes counts the nodes whose instance (primary ENI) is in the subnet; ENINodes the
	// nodes whose instance is in another subnet but that have an ENI in this one (the pods'
	// ENIs under custom networking).
	Nodes    int `json:"nodes"`
	ENINodes int `json:"eniNodes,omitempty"`
	// PodSubnet is true for an ENIConfig subnet, or an Auto Mode NodeClass's pod subnet, that
	// pods take addresses from.
	PodSubnet bool `json:"podSubnet,omitempty"`
	// FreeBlocks counts the free /28 blocks (those a prefix can be carved from) where the
	// subnet's block map is known: prefixes are carved there and its every interface was read.
	FreeBlocks *int `json:"freeBlocks,omitempty"`
	// Context is the kubeconfig context of the cluster that uses the subnet, in a report over
	// several clusters.
	Context string `json:"context,omitempty"`
}
