package sheet

import (
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// SheetAPIVersion is the API version of the subject sheets `describe` writes as JSON or YAML.
const SheetAPIVersion = diagnose.ReportAPIVersion

// Member is a node, or a NodeClaim without a Node, that a subject sheet lists: the nodes in a
// subnet, of a NodePool or class, or in a placement group.
type Member struct {
	// Kind is "node" or "nodeclaim".
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Status is the node's report status (ok, warning, critical, skipped...) or the NodeClaim's
	// status (launch failed, not registered...).
	Status     string `json:"status,omitempty"`
	InstanceID string `json:"instanceID,omitempty"`
	// InstanceState is the EC2 state of the instance, when it was read.
	InstanceState string `json:"instanceState,omitempty"`
	Zone          string `json:"zone,omitempty"`
	SubnetID      string `json:"subnetID,omitempty"`
	PrivateIP     string `json:"privateIP,omitempty"`
	// Partition is the instance's partition in a partition placement group.
	Partition int32 `json:"partition,omitempty"`
}

// members returns the nodes and then the NodeClaims without a Node that keep says yes to,
// each in name order, with their statuses from r.
func members(x *diagnose.Index, r diagnose.Report, keepNode func(*diagnose.NodeInfo) bool, keepClaim func(*diagnose.ClaimInfo) bool) []Member {
	status := map[string]string{}
	for _, n := range r.Nodes {
		status["node/"+n.Identity.Node] = n.Status
	}
	for _, c := range r.NodeClaims {
		status["nodeclaim/"+c.Name] = c.Status
	}
	out := []Member{}
	for _, n := range x.Nodes {
		if !keepNode(n) {
			continue
		}
		m := Member{Kind: "node", Name: n.Name(), Status: status["node/"+n.Name()], InstanceID: n.Provider.InstanceID, Zone: n.Zone()}
		fillInstance(&m, n.Instance)
		out = append(out, m)
	}
	for _, c := range x.Claims {
		if !keepClaim(c) {
			continue
		}
		m := Member{Kind: "nodeclaim", Name: c.Claim.Name, Status: status[c.Ref()], InstanceID: c.Provider.InstanceID, Zone: c.Provider.Zone}
		fillInstance(&m, c.Instance)
		out = append(out, m)
	}
	return out
}

// fillInstance copies what m shows of its instance, when it is known.
func fillInstance(m *Member, in *snapshot.Instance) {
	if in == nil {
		return
	}
	m.InstanceID, m.InstanceState, m.SubnetID, m.PrivateIP = in.ID, in.State, in.SubnetID, in.PrivateIP
	m.Partition = in.Placement.PartitionNumber
	if in.Zone != "" {
		m.Zone = in.Zone
	}
}
