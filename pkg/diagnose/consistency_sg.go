package diagnose

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specSecurityGroupNodeToNodeBlocked = &Spec{
	ID:       "security-group-node-to-node-blocked",
	Severity: Warning,
	Family:   FamilyConsistency,
	Needs:    []string{snapshot.SourceDescribeSecurityGroups},
	Examines: []string{SubjectNode},
	Title:    "the node's security groups block a flow pod networking needs between nodes",
	FiresWhen: "the groups that carry the node's pod traffic (the instance's; under custom networking its " +
		"ENIConfig's, which the pods' ENIs get) block a flow pod networking needs between nodes, in or " +
		"out: DNS to CoreDNS over UDP 53 and over TCP 53, and TCP 1025-65535 (the range EKS's and " +
		"terraform-aws-eks's node rules open between nodes). A rule admits a flow when its protocol (or " +
		"-1) and ports cover it and it names one of those groups, or an IPv4 or IPv6 CIDR holding the " +
		"node's or pod subnet; the message names each blocked flow and the groups",
	NotOn: "terraform-aws-eks's node group (DNS and 1025-65535 from itself), the EKS cluster group (all from " +
		"itself), groups karpnet could not read, flows a prefix-list rule might admit (prefix lists are " +
		"not resolved)",
	Why: "with the VPC CNI, pod-to-pod traffic across nodes is traffic between the nodes' ENIs: CoreDNS, " +
		"Services and webhooks break",
	Remedy: "the remedy gives the `aws ec2 authorize-security-group-ingress` / `-egress` command for each " +
		"blocked flow, or add the EKS cluster security group to `spec.securityGroupSelectorTerms`",
	Scope: "one rule per blocked flow, added to the node's own security group with the other side's group as its source, never a CIDR: it admits only the nodes (or pods) in that group, and its Affects names every node with an interface in the group; adding the EKS cluster security group to the class's selector instead drifts every node of the class",
	Sources: []string{
		"terraform-aws-modules/terraform-aws-eks node_groups.tf",
		"https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html",
		"aws-samples/eks-workshop-v2#327",
	},
	Verified: []Verified{
		{UpstreamAWSDocs, "View Amazon EKS security group requirements for clusters (Default cluster security group)",
			"The cluster security group EKS creates admits all inbound traffic from itself and allows all outbound traffic, so nodes in it reach each other on every port."},
		{UpstreamEC2API, "types/types.go (IpPermission)",
			"A rule's IpProtocol is tcp, udp, icmp, icmpv6 or a number, -1 for all protocols on all ports; FromPort and ToPort bound tcp and udp; its peers are UserIdGroupPairs (groups), IpRanges, Ipv6Ranges and PrefixListIds."},
	},
}

// securityGroupNodeToNodeBlocked finds nodes whose security groups drop a flow that pod
// networking needs between nodes. With the VPC CNI pods take VPC addresses on the node's ENIs,
// so pod-to-pod traffic across nodes is traffic between ENIs that the security groups must
// admit: DNS to CoreDNS over UDP and TCP 53, and the TCP ports pods and Services use, which
// EKS's own node rules (and terraform-aws-eks's node group) open as TCP 1025-65535 between
// nodes. A flow counts as admitted when an inbound rule of a destination group and an
// outbound rule of a source group cover its protocol and ports, by group (the node's or, for
// custom-networking pods, their ENIConfig's), by an IPv4 or IPv6 CIDR holding the subnets
// involved, or by a prefix list (which karpnet cannot resolve, so it stays silent). The
// finding names each blocked flow, the groups, and the rule that would open it.
var securityGroupNodeToNodeBlocked = Check{
	Spec: specSecurityGroupNodeToNodeBlocked,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			if f, ok := nodeToNodeFinding(x, n); ok {
				out = append(out, f)
			}
		}
		return out
	},
}

// podFlow is one flow pod networking needs between nodes.
type podFlow struct {
	name     string
	protocol string // tcp or udp
	from, to int32
}

// podFlows are the flows between nodes that a working cluster needs: CoreDNS over UDP and TCP,
// and the TCP range pods and Services use (EKS's node rules and terraform-aws-eks's node group
// admit 1025-65535 between nodes).
func podFlows() []podFlow {
	return []podFlow{
		{"DNS to CoreDNS over UDP 53", "udp", 53, 53},
		{"DNS to CoreDNS over TCP 53", "tcp", 53, 53},
		{"pod and Service traffic over TCP 1025-65535", "tcp", 1025, 65535},
	}
}

// admission is what the rules say about a flow.
type admission int

const (
	admitBlocked admission = iota
	admitUnknown
	admitAllowed
)

// peers are the sources (or destinations) a rule must name for traffic between the nodes:
// their groups, and the CIDRs their addresses come from.
type peers struct {
	groups map[string]bool
	cidrs  []netip.Prefix
}

// groupSet is the security groups that carry one kind of traffic of a node, all read.
type groupSet struct {
	what   string // "the node's groups" or "ENIConfig NAME's groups"
	groups []*snapshot.SecurityGroup
}

// nodeToNodeFinding reports the flows the node's groups (and, under custom networking, its
// ENIConfig's groups) block; nothing when a group was not read.
func nodeToNodeFinding(x *Index, n *NodeInfo) (Finding, bool) {
	if n.Instance == nil || len(n.Instance.SecurityGroups) == 0 {
		return Finding{}, false
	}
	sets, p, ok := nodeGroupSets(x, n)
	if !ok {
		return Finding{}, false
	}
	var blocked []string
	var fixes []Command
	for _, set := range sets {
		for _, f := range podFlows() {
			in, out := flowAdmitted(set.groups, f, p, true), flowAdmitted(set.groups, f, p, false)
			if in != admitBlocked && out != admitBlocked {
				continue
			}
			id := set.groups[0].ID
			switch {
			case in == admitBlocked && out == admitBlocked:
				blocked = append(blocked, fmt.Sprintf("%s in and out of %s", f.name, set.what))
			case in == admitBlocked:
				blocked = append(blocked, fmt.Sprintf("%s into %s", f.name, set.what))
			default:
				blocked = append(blocked, fmt.Sprintf("%s out of %s", f.name, set.what))
			}
			if in == admitBlocked {
				fixes = append(fixes, Command{Argv: []string{"aws", "ec2", "authorize-security-group-ingress", "--group-id", id,
					"--protocol", f.protocol, "--port", portText(f), "--source-group", id},
					Changes: "securitygroup/" + id, Affects: groupAffects(x, id)})
			}
			if out == admitBlocked {
				perm := map[string]any{"IpProtocol": f.protocol, "FromPort": f.from, "ToPort": f.to,
					"UserIdGroupPairs": []any{map[string]string{"GroupId": id}}}
				fixes = append(fixes, Command{Argv: []string{"aws", "ec2", "authorize-security-group-egress", "--group-id", id,
					"--ip-permissions", jsonArg([]any{perm})}, Changes: "securitygroup/" + id, Affects: groupAffects(x, id)})
			}
		}
	}
	if len(blocked) == 0 {
		return Finding{}, false
	}
	slices.SortFunc(fixes, func(a, b Command) int { return strings.Compare(a.String(), b.String()) })
	fixes = slices.CompactFunc(fixes, func(a, b Command) bool { return a.String() == b.String() })
	var have []string
	for _, set := range sets {
		for _, g := range set.groups {
			have = append(have, fmt.Sprintf("%s: %s, %s", g.ID, countText(len(g.Inbound), "inbound rule", "inbound rules"),
				countText(len(g.Outbound), "outbound rule", "outbound rules")))
		}
	}
	have = sortedUnique(have)
	resource, where := nodeRef(n.Name()), "the node group's security groups"
	if n.ClassName != "" {
		resource = n.ClassRef()
		where = "spec.securityGroupSelectorTerms of " + n.ClassLabel()
	}
	return Finding{
		Node: n.Name(), Resource: resource,
		Message: fmt.Sprintf("the security groups of instance %s (%s) block %s between nodes: pods on other nodes "+
			"cannot reach it (CoreDNS, Services and webhooks break)", n.Instance.ID, strings.Join(have, "; "),
			strings.Join(blocked, "; ")),
		Remedy: fmt.Sprintf("open the flows between the nodes' groups (the %s), or add the EKS cluster security group, "+
			"which admits all traffic from itself, to %s", plural(len(fixes), "command", "commands"), where),
		Commands: fixes,
	}, true
}

// nodeGroupSets returns the group sets that carry pod traffic of the node and the peers a rule
// must name: the instance's groups (pods on the node's ENIs), or, under custom networking
// with an ENIConfig that names groups, those groups, which the VPC CNI puts on the pods' ENIs
// instead (the instance's groups then carry only host traffic).
// false when a group was not read, or was read without rules (EC2 always reports some rule,
// at least the default egress one): nothing can be said then.
func nodeGroupSets(x *Index, n *NodeInfo) ([]groupSet, peers, bool) {
	read := func(refs []string) ([]*snapshot.SecurityGroup, bool) {
		var out []*snapshot.SecurityGroup
		for _, id := range sortedUnique(refs) {
			g := x.SecurityGroups[id]
			if g == nil || len(g.Inbound) == 0 && len(g.Outbound) == 0 {
				return nil, false
			}
			out = append(out, g)
		}
		return out, len(out) > 0
	}
	var ids []string
	for _, g := range n.Instance.SecurityGroups {
		ids = append(ids, g.ID)
	}
	nodeGroups, ok := read(ids)
	if !ok {
		return nil, peers{}, false
	}
	sets := []groupSet{{what: "the node's groups", groups: nodeGroups}}
	p := peers{groups: map[string]bool{}}
	for _, id := range ids {
		p.groups[id] = true
	}
	if n.Subnet != nil {
		p.cidrs = append(p.cidrs, subnetCIDRs(n.Subnet, false)...)
		p.cidrs = append(p.cidrs, subnetCIDRs(n.Subnet, true)...)
	}
	if n.VPCCNI && x.cniSettingOn(SettingCustomNetwork) {
		if cfg := x.ENIConfigs[ENIConfigName(n.Node, x.Snapshot.AWSNode)]; cfg != nil {
			if s := x.Subnets[cfg.Subnet]; s != nil {
				p.cidrs = append(p.cidrs, subnetCIDRs(s, false)...)
				p.cidrs = append(p.cidrs, subnetCIDRs(s, true)...)
			}
			if len(cfg.SecurityGroups) > 0 {
				podGroups, ok := read(cfg.SecurityGroups)
				if !ok {
					return nil, peers{}, false
				}
				sets = []groupSet{{what: "ENIConfig " + cfg.Name + "'s groups (the pods' ENIs)", groups: podGroups}}
				for _, id := range cfg.SecurityGroups {
					p.groups[id] = true
				}
			}
		}
	}
	return sets, p, true
}

// flowAdmitted says whether the rules of groups (inbound, or outbound when !inbound) admit
// flow f from or to the peers: the ports must be covered by rules whose protocol matches and
// whose source or destination is a peer group or a CIDR holding a peer subnet. Rules that
// cannot be judged (a prefix list, any CIDR while no peer subnet is known) make it unknown.
func flowAdmitted(groups []*snapshot.SecurityGroup, f podFlow, p peers, inbound bool) admission {
	var ranges [][2]int32
	unknown := false
	for _, g := range groups {
		rules := g.Outbound
		if inbound {
			rules = g.Inbound
		}
		for _, r := range rules {
			from, to, ok := ruleCovers(r, f)
			if !ok {
				continue
			}
			switch ruleNamesPeer(r, p) {
			case admitAllowed:
				ranges = append(ranges, [2]int32{from, to})
			case admitUnknown:
				unknown = true
			}
		}
	}
	if covered(ranges, f.from, f.to) {
		return admitAllowed
	}
	if unknown {
		return admitUnknown
	}
	return admitBlocked
}

// ruleCovers returns the port range of rule r that applies to flow f's protocol; false when
// its protocol is another one.
func ruleCovers(r snapshot.Rule, f podFlow) (int32, int32, bool) {
	switch strings.ToLower(r.Protocol) {
	case "-1", "all":
		return 0, 65535, true
	case f.protocol, protocolNumber(f.protocol):
		return r.FromPort, r.ToPort, true
	}
	return 0, 0, false
}

// protocolNumber returns the IP protocol number EC2 may report for tcp or udp.
func protocolNumber(p string) string {
	switch p {
	case "tcp":
		return "6"
	case "udp":
		return "17"
	}
	return p
}

// ruleNamesPeer says whether a rule's sources (or destinations) include a peer: a peer group,
// or a CIDR holding a peer subnet (0.0.0.0/0 and ::/0 always).
func ruleNamesPeer(r snapshot.Rule, p peers) admission {
	for _, id := range r.GroupIDs {
		if p.groups[id] {
			return admitAllowed
		}
	}
	verdict := admitBlocked
	if len(r.PrefixListIDs) > 0 {
		verdict = admitUnknown
	}
	for _, c := range slices.Concat(r.CIDRs, r.IPv6CIDRs) {
		pfx, err := netip.ParsePrefix(c)
		switch {
		case err == nil && pfx.Bits() == 0:
			return admitAllowed
		case err != nil || len(p.cidrs) == 0:
			verdict = max(verdict, admitUnknown)
		case slices.ContainsFunc(p.cidrs, func(s netip.Prefix) bool {
			return s.Addr().Is6() == pfx.Addr().Is6() && pfx.Bits() <= s.Bits() && pfx.Masked().Contains(s.Addr())
		}):
			return admitAllowed
		}
	}
	return verdict
}

// covered reports whether the ranges together cover every port from lo to hi.
func covered(ranges [][2]int32, lo, hi int32) bool {
	slices.SortFunc(ranges, func(a, b [2]int32) int { return int(a[0] - b[0]) })
	next := lo
	for _, r := range ranges {
		if r[0] > next {
			break
		}
		if r[1] >= next {
			next = r[1] + 1
		}
		if next > hi {
			return true
		}
	}
	return next > hi
}

// portText renders a flow's ports for the AWS CLI's --port: 53 or 1025-65535.
func portText(f podFlow) string {
	if f.from == f.to {
		return fmt.Sprint(f.from)
	}
	return fmt.Sprintf("%d-%d", f.from, f.to)
}
