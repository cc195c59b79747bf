package diagnose

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// pathSubject is something whose nodes must get out of a subnet to join: a node's instance,
// the instance of a NodeClaim without a Node, or the new nodes a NodeClass launches into one
// of its subnets.
type pathSubject struct {
	// label names it in messages ("node X", "NodeClaim Y", "EC2NodeClass Z"), ref is its
	// resource name.
	label, ref string
	subnet     *snapshot.Subnet
	pub        wayout.PublicIPv4
	windows    bool
	// groups are the security groups its instances have or get.
	groups []string
}

// pathSubjects returns the subjects of the way-out checks, in a stable order: running
// nodes with a known instance and subnet, NodeClaims without a Node whose instance is known
// and not terminated, then each NodeClass's status subnets. Subnets that were not read are
// left out. They are made once per Index; callers do not change them.
func pathSubjects(x *Index) []pathSubject {
	x.pathsOnce.Do(func() { x.paths = makePathSubjects(x) })
	return x.paths
}

// makePathSubjects makes pathSubjects' answer.
func makePathSubjects(x *Index) []pathSubject {
	joined := map[*snapshot.NodeClaim]bool{}
	for _, n := range x.Nodes {
		if n.Claim != nil {
			joined[n.Claim] = true
		}
	}
	// A subject for each checked node and NodeClaim without a node at most, and room for the
	// classes' subnets: made once, not grown by doubling (at 100,000 nodes that copied about
	// 25 MB).
	out := make([]pathSubject, 0, len(x.checkedNodes())+max(0, len(x.Snapshot.NodeClaims)-len(joined))+16)
	for _, n := range x.checkedNodes() {
		if n.Instance == nil || n.Subnet == nil {
			continue
		}
		out = append(out, pathSubject{label: "node " + n.Name(), ref: nodeRef(n.Name()), subnet: n.Subnet,
			pub: wayout.InstancePublicIP(n.Instance), windows: n.Windows(), groups: groupIDs(n.Instance.SecurityGroups)})
	}
	var claims []*snapshot.NodeClaim
	for i := range x.Snapshot.NodeClaims {
		claims = append(claims, &x.Snapshot.NodeClaims[i])
	}
	slices.SortStableFunc(claims, func(a, b *snapshot.NodeClaim) int { return strings.Compare(a.Name, b.Name) })
	for _, c := range claims {
		if joined[c] || !c.Deleting.IsZero() {
			continue
		}
		id, err := ParseProviderID(c.ProviderID)
		if err != nil {
			continue
		}
		in := x.Instances[id.InstanceID]
		if in == nil || in.State == "terminated" || in.State == "shutting-down" || x.Subnets[in.SubnetID] == nil {
			continue
		}
		out = append(out, pathSubject{label: "NodeClaim " + c.Name, ref: kindRef("NodeClaim", c.Name),
			subnet: x.Subnets[in.SubnetID], pub: wayout.InstancePublicIP(in),
			windows: c.Labels[corev1.LabelOSStable] == OSWindows, groups: groupIDs(in.SecurityGroups)})
	}
	for _, c := range x.sortedClasses() {
		var groups []string
		for _, g := range c.StatusSecurityGroups {
			groups = append(groups, g.ID)
		}
		for _, st := range c.StatusSubnets {
			subnet := x.Subnets[st.ID]
			if subnet == nil {
				continue
			}
			out = append(out, pathSubject{label: classLabel(c), ref: classRef(c), subnet: subnet,
				pub: newNodesPublicIP(c, subnet), windows: strings.HasPrefix(strings.ToLower(c.AMIFamily), OSWindows),
				groups: sortedUnique(groups)})
		}
	}
	return out
}

// groupIDs returns the IDs of security-group references, sorted.
func groupIDs(refs []snapshot.GroupRef) []string {
	var ids []string
	for _, g := range refs {
		ids = append(ids, g.ID)
	}
	return sortedUnique(ids)
}

// newNodesPublicIP says whether instances a NodeClass launches into subnet get a public IPv4
// address: the class's associatePublicIPAddress when set, else the subnet's
// MapPublicIPOnLaunch.
func newNodesPublicIP(c *snapshot.EC2NodeClass, subnet *snapshot.Subnet) wayout.PublicIPv4 {
	if c != nil && c.AssociatePublicIPAddress != nil {
		if *c.AssociatePublicIPAddress {
			return wayout.PublicIPv4{Has: true, Why: classLabel(c) + " sets associatePublicIPAddress: true"}
		}
		return wayout.PublicIPv4{Has: false, Why: classLabel(c) + " sets associatePublicIPAddress: false"}
	}
	if subnet.MapPublicIPOnLaunch {
		return wayout.PublicIPv4{Has: true, Why: "the subnet maps a public IPv4 address on launch"}
	}
	return wayout.PublicIPv4{Has: false, Why: "new instances get no public IPv4 address (MapPublicIPOnLaunch off)"}
}
