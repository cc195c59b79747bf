package diagnose

import (
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/view"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
)

// NodeReport is one node's whole networking picture, as `describe node` shows it and as the
// "nodes" list of a Report carries it. Sections that could not be computed are nil.
type NodeReport struct {
	// Context is the kubeconfig context of the node's cluster in a report over several
	// clusters; empty otherwise.
	Context  string   `json:"context,omitempty"`
	Identity Identity `json:"identity"`
	// Lifecycle and Platform are what karpnet decided about the node before running checks.
	Lifecycle      Lifecycle       `json:"lifecycle,omitzero"`
	Platform       Platform        `json:"platform,omitzero"`
	Addresses      []AddressReport `json:"addresses"`
	Subnet         *SubnetReport   `json:"subnet,omitempty"`
	SecurityGroups *SecurityGroups `json:"securityGroups,omitempty"`
	ENIs           []ENIReport     `json:"enis"`
	Capacity       *CapacityReport `json:"capacity,omitempty"`
	// Cilium is the node's Cilium ENI IPAM picture when Cilium gives pods addresses of ENIs
	// (ipam: eni) and the node has a CiliumNode; nil otherwise.
	Cilium    *CiliumReport    `json:"cilium,omitempty"`
	EFA       *EFAReport       `json:"efa,omitempty"`
	Placement *PlacementReport `json:"placement,omitempty"`
	// AutoMode is the pod networking of an EKS Auto Mode node's NodeClass; nil on other nodes.
	AutoMode *AutoModeReport `json:"autoMode,omitempty"`
	// WayOut is how the node's subnet gets out (route, endpoints, network ACL); nil unless the
	// route tables of its VPC were read.
	WayOut   *wayout.WayOut `json:"wayOut,omitempty"`
	Findings []Finding      `json:"findings"`
	// Status is the node's worst severity; without findings it is "ok", or "initialising" or
	// "terminating" for a node in that state, or "skipped" for a node that is not EC2.
	Status string `json:"status"`
	// InheritedStatus is "critical" when a finding on what the node uses (Report.OnWhatUses:
	// its subnets, NodeClaim, NodePool or class) is critical; InheritedFrom names the subjects
	// those findings are on, sorted. Status stays the node's own.
	InheritedStatus string   `json:"inheritedStatus,omitempty"`
	InheritedFrom   []string `json:"inheritedFrom,omitempty"`
}

// The sections of a NodeReport (pkg/diagnose/view), named here for the code that builds and
// reads them.
type (
	Lifecycle           = view.Lifecycle
	Platform            = view.Platform
	Identity            = view.Identity
	AddressReport       = view.AddressReport
	SubnetReport        = view.SubnetReport
	SecurityGroups      = view.SecurityGroups
	SecurityGroupReport = view.SecurityGroupReport
	ENIReport           = view.ENIReport
	CapacityReport      = view.CapacityReport
	CiliumReport        = view.CiliumReport
	CiliumENIReport     = view.CiliumENIReport
	EFAReport           = view.EFAReport
	PlacementReport     = view.PlacementReport
	AutoModeReport      = view.AutoModeReport
)
