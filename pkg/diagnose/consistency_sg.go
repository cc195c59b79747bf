package diagnose

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// securityGroupNodeToNodeBlocked finds nodes none of whose security groups lets in traffic
// from the node's own groups (or from its subnet) on all ports. With the VPC CNI, pods take
// VPC addresses on the node's ENIs, so pod-to-pod traffic across nodes (CoreDNS, Services,
// webhooks) is node-to-node traffic that the security groups must admit; EKS gives nodes this
// through the cluster security group's all-traffic rule from itself, which a Karpenter
// EC2NodeClass selecting only its own groups easily leaves out.
var securityGroupNodeToNodeBlocked = Check{
	ID:       "security-group-node-to-node-blocked",
	Severity: Warning,
	Title:    "no security group of the node admits traffic from the other nodes",
	Run: func(x *Index) []Finding {
		if x.Unavailable(snapshot.SourceDescribeSecurityGroups) {
			return nil
		}
		var out []Finding
		for _, n := range x.checkedNodes() {
			if f, ok := nodeToNodeFinding(x, n); ok {
				out = append(out, f)
			}
		}
		return out
	},
}

// admission is what a node's inbound rules say about traffic from the other nodes.
type admission int

const (
	admitBlocked admission = iota
	admitUnknown
	admitAllowed
)

// nodeToNodeFinding reports a node whose groups, all known, admit no node-to-node traffic.
func nodeToNodeFinding(x *Index, n *NodeInfo) (Finding, bool) {
	if n.Instance == nil || len(n.Instance.SecurityGroups) == 0 {
		return Finding{}, false
	}
	own := map[string]bool{}
	for _, g := range n.Instance.SecurityGroups {
		own[g.ID] = true
	}
	ids := sortedKeys(own)
	var groups []*snapshot.SecurityGroup
	for _, id := range ids {
		g := x.SecurityGroups[id]
		if g == nil || len(g.Inbound) == 0 && len(g.Outbound) == 0 {
			// Unknown group, or one read without its rules (EC2 always reports some rule,
			// at least the default egress one): nothing can be said.
			return Finding{}, false
		}
		groups = append(groups, g)
	}
	var subnet netip.Prefix
	if n.Subnet != nil {
		subnet, _ = netip.ParsePrefix(n.Subnet.CIDR)
	}
	verdict := admitBlocked
	for _, g := range groups {
		for _, r := range g.Inbound {
			verdict = max(verdict, ruleAdmitsNodes(r, own, subnet))
		}
	}
	if verdict != admitBlocked {
		return Finding{}, false
	}
	from := "the node's own groups"
	if subnet.IsValid() {
		from += " or its subnet " + subnet.String()
	}
	var have []string
	for _, g := range groups {
		have = append(have, fmt.Sprintf("%s: %s", g.ID, countText(int64(len(g.Inbound)), "inbound rule", "inbound rules")))
	}
	resource, where := nodeRef(n.Name()), "the node group's security groups"
	if n.ClassName != "" {
		resource = n.ClassRef()
		where = "spec.securityGroupSelectorTerms of " + n.ClassLabel()
	}
	return Finding{
		ID: "security-group-node-to-node-blocked", Severity: Warning, Node: n.Name(), Resource: resource,
		Message: fmt.Sprintf("no security group of instance %s (%s) admits all traffic in from %s: node-to-node "+
			"and pod-to-pod traffic across nodes (CoreDNS, Services, webhooks) is dropped",
			n.Instance.ID, strings.Join(have, "; "), from),
		Remedy: fmt.Sprintf("allow all traffic from the node security group to itself (aws ec2 "+
			"authorize-security-group-ingress --group-id %s --protocol -1 --source-group %s), or add the EKS "+
			"cluster security group to %s", ids[0], ids[0], where),
	}, true
}

// ruleAdmitsNodes says whether an inbound rule admits all traffic (protocol -1, or every TCP
// port) from one of the node's own groups or from a CIDR that contains its subnet. A rule
// from a prefix list, or from CIDRs while the node's subnet is unknown, cannot be judged.
func ruleAdmitsNodes(r snapshot.Rule, own map[string]bool, subnet netip.Prefix) admission {
	allTCP := (r.Protocol == "tcp" || r.Protocol == "6") && r.FromPort <= 1 && r.ToPort >= 65535
	if r.Protocol != "-1" && !allTCP {
		return admitBlocked
	}
	for _, id := range r.GroupIDs {
		if own[id] {
			return admitAllowed
		}
	}
	verdict := admitBlocked
	if len(r.PrefixListIDs) > 0 {
		verdict = admitUnknown
	}
	for _, c := range r.CIDRs {
		p, err := netip.ParsePrefix(c)
		switch {
		case err == nil && p.Bits() == 0:
			return admitAllowed
		case err != nil || !subnet.IsValid():
			verdict = admitUnknown
		case p.Bits() <= subnet.Bits() && p.Masked().Contains(subnet.Addr()):
			return admitAllowed
		}
	}
	return verdict
}
