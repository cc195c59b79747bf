package diagnose

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

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

// selectedClaims returns the NodeClaims without a Node that a report limited by opts shows:
// all of them when no nodes are selected, else those named in opts.Resources (nodeclaim/NAME)
// or of a NodePool named there (nodepool/NAME).
func selectedClaims(x *Index, opts Options) []*ClaimInfo {
	var out []*ClaimInfo
	for _, c := range x.Claims {
		if opts.Nodes == nil || opts.Resources[c.Ref()] || c.PoolName != "" && opts.Resources["nodepool/"+c.PoolName] {
			out = append(out, c)
		}
	}
	return out
}

// claimReports renders the claims with their findings (those whose resource is the claim),
// worst first, then by name.
func claimReports(x *Index, claims []*ClaimInfo, findings []Finding) []NodeClaimReport {
	byRef := map[string][]Finding{}
	for _, f := range findings {
		if strings.HasPrefix(f.Resource, "nodeclaim/") {
			byRef[f.Resource] = append(byRef[f.Resource], f)
		}
	}
	var out []NodeClaimReport
	for _, c := range claims {
		r := NodeClaimReport{
			Name: c.Name(), NodePool: c.PoolName, NodeClass: c.ClassName, Created: c.Claim.Created,
			AgeSeconds: int64(c.Age / time.Second), Status: c.Status, ProviderID: c.Claim.ProviderID,
			Conditions: slices.Clone(c.Claim.Conditions), Events: slices.Clone(c.Events),
			WayOut: claimWayOut(x, c), Findings: byRef[c.Ref()],
		}
		if r.Findings == nil {
			r.Findings = []Finding{}
		}
		if c.ClassKind == snapshot.KindNodeClass {
			r.NodeClassKind = snapshot.KindNodeClass
		}
		if in := c.Instance; in != nil {
			r.Instance = &ClaimInstance{ID: in.ID, State: in.State, Type: in.Type, Zone: in.Zone,
				SubnetID: in.SubnetID, PrivateIP: in.PrivateIP, LaunchTime: in.LaunchTime}
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b NodeClaimReport) int {
		wa, fa := Worst(a.Findings)
		wb, fb := Worst(b.Findings)
		switch {
		case fa != fb && fa:
			return -1
		case fa != fb:
			return 1
		}
		return cmp.Or(cmp.Compare(wb, wa), strings.Compare(a.Name, b.Name))
	})
	return out
}

// claimNotJoined reports whether a claim's status is a failure to join: launch failed or not
// registered.
func claimNotJoined(status string) bool {
	return status == ClaimLaunchFailed || status == ClaimNotRegistered
}

// claimWayOut is the way out of the subnet of a NodeClaim's instance, as describeWayOut is a
// node's: nil unless the claim has an instance in a known subnet whose route table is known.
func claimWayOut(x *Index, c *ClaimInfo) *wayout.WayOut {
	if c.Instance == nil || c.Subnet == nil {
		return nil
	}
	return x.net.Describe(c.Subnet, wayout.InstancePublicIP(c.Instance), c.windows())
}
