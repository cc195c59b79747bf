package report

import (
	"slices"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/view"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// NodeReport is one node's whole networking picture, as `describe node` shows it and as the
// "nodes" list of a Report carries it. Sections that could not be computed are nil.
type NodeReport struct {
	// Context is the kubeconfig context of the node's cluster in a report over several
	// clusters; empty otherwise.
	Context  string        `json:"context,omitempty"`
	Identity view.Identity `json:"identity"`
	// Lifecycle and Platform are what karpnet decided about the node before running checks.
	Lifecycle      view.Lifecycle       `json:"lifecycle,omitzero"`
	Platform       view.Platform        `json:"platform,omitzero"`
	Addresses      []view.AddressReport `json:"addresses"`
	Subnet         *view.SubnetReport   `json:"subnet,omitempty"`
	SecurityGroups *view.SecurityGroups `json:"securityGroups,omitempty"`
	ENIs           []view.ENIReport     `json:"enis"`
	Capacity       *view.CapacityReport `json:"capacity,omitempty"`
	// Cilium is the node's Cilium ENI IPAM picture when Cilium gives pods addresses of ENIs
	// (ipam: eni) and the node has a CiliumNode; nil otherwise.
	Cilium    *view.CiliumReport    `json:"cilium,omitempty"`
	EFA       *view.EFAReport       `json:"efa,omitempty"`
	Placement *view.PlacementReport `json:"placement,omitempty"`
	// AutoMode is the pod networking of an EKS Auto Mode node's NodeClass; nil on other nodes.
	AutoMode *view.AutoModeReport `json:"autoMode,omitempty"`
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

// Uses returns the subjects the node's report says it uses, each once, in the order its sheet
// names them: its NodeClaim, its subnet and its ENIs' subnets (pods' ENIs under custom
// networking among them), its Auto Mode pod subnets, its NodePool and class.
func (n NodeReport) Uses() []string {
	id := n.Identity
	refs := []string{"nodeclaim/" + id.NodeClaim}
	if n.Subnet != nil {
		refs = append(refs, kinds.Ref(kinds.Subnet, n.Subnet.ID))
	}
	for _, e := range n.ENIs {
		refs = append(refs, kinds.Ref(kinds.Subnet, e.SubnetID))
	}
	if n.AutoMode != nil {
		for _, sn := range n.AutoMode.PodSubnets {
			refs = append(refs, kinds.Ref(kinds.Subnet, sn))
		}
	}
	refs = append(refs, "nodepool/"+id.NodePool)
	if id.NodeClass != "" {
		kind := snapshot.KindEC2NodeClass
		if id.AutoMode || id.NodeClassKind == snapshot.KindNodeClass {
			kind = snapshot.KindNodeClass
		}
		refs = append(refs, strings.ToLower(kind)+"/"+id.NodeClass)
	}
	out := refs[:0]
	for _, r := range refs {
		if !strings.HasSuffix(r, "/") && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// NodeClaimReport is one NodeClaim that has no Node, as the "nodeClaims" list of a Report
// carries it: a subject of its own, since no node row shows it.
type NodeClaimReport struct {
	// Context is the claim's kubeconfig context in a report over several clusters.
	Context   string `json:"context,omitempty"`
	Name      string `json:"name"`
	NodePool  string `json:"nodePool,omitempty"`
	NodeClass string `json:"nodeClass,omitempty"`
	// NodeClassKind is NodeClass for an EKS Auto Mode claim; empty means an EC2NodeClass.
	NodeClassKind string `json:"nodeClassKind,omitempty"`
	// Created is the claim's creationTimestamp; AgeSeconds is the snapshot's time less it
	// (0 when the creation is unknown).
	Created    time.Time `json:"created,omitzero"`
	AgeSeconds int64     `json:"ageSeconds"`
	// Status is "launch failed", "not registered", "launching", "registering", "node deleted"
	// or "deleting" (see the Claim* constants).
	Status     string `json:"status"`
	ProviderID string `json:"providerID,omitempty"`
	// Instance is the claim's EC2 instance, when its providerID names one DescribeInstances
	// returned.
	Instance *ClaimInstance `json:"instance,omitempty"`
	// Conditions are the claim's status conditions as Karpenter wrote them.
	Conditions []snapshot.Condition `json:"conditions,omitempty"`
	// Events are Karpenter's events on the claim, oldest first.
	Events []snapshot.KubeEvent `json:"events,omitempty"`
	// WayOut is how the instance's subnet gets out (route, endpoints, network ACL); nil
	// unless the claim has an instance and the route tables of its VPC were read.
	WayOut   *wayout.WayOut `json:"wayOut,omitempty"`
	Findings []Finding      `json:"findings"`
}

// ClaimInstance is the EC2 instance of a NodeClaim without a Node.
type ClaimInstance struct {
	ID         string    `json:"id"`
	State      string    `json:"state,omitempty"`
	Type       string    `json:"type,omitempty"`
	Zone       string    `json:"zone,omitempty"`
	SubnetID   string    `json:"subnetID,omitempty"`
	PrivateIP  string    `json:"privateIP,omitempty"`
	LaunchTime time.Time `json:"launchTime,omitzero"`
}

// The statuses of a NodeClaim without a Node, as NodeClaimReport.Status carries them.
const (
	// ClaimLaunchFailed: Launched is False, or Unknown with a reason other than Karpenter's
	// initial AwaitingReconciliation (Karpenter v1 keeps Launched=Unknown with the EC2 error
	// as reason and message when a launch fails).
	ClaimLaunchFailed = "launch failed"
	// ClaimLaunching: Launched is Unknown (or not set yet) without an error reason.
	ClaimLaunching = "launching"
	// ClaimRegistering: Launched is True, Registered is not, and the launch is less than
	// registrationGrace old.
	ClaimRegistering = "registering"
	// ClaimNotRegistered: Launched is True, Registered is not, and the launch is at least
	// registrationGrace old (or its instance is already terminated or gone).
	ClaimNotRegistered = "not registered"
	// ClaimNodeDeleted: Registered is True but the Node is gone (deleted under the claim, or
	// listed before the claim's Node appeared); Karpenter's garbage collection handles it.
	ClaimNodeDeleted = "node deleted"
	// ClaimDeleting: the NodeClaim has a deletionTimestamp: Karpenter is removing it.
	ClaimDeleting = "deleting"
)

// ClaimNotJoined reports whether a claim's status is a failure to join: launch failed or not
// registered.
func ClaimNotJoined(status string) bool {
	return status == ClaimLaunchFailed || status == ClaimNotRegistered
}
