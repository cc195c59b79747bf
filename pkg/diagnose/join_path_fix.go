package diagnose

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// aclMaxRule is the highest rule number a network ACL entry can take; the implicit last rule,
// "*", comes after it (EC2 CreateNetworkAclEntry: rule numbers 1-32766).
const aclMaxRule = 32766

// aclEntry is one allow entry a network ACL lacks: TCP on ports from..to with cidr, in one
// direction, placed before the rules in denied.
type aclEntry struct {
	egress   bool
	from, to int32
	cidr     string
	denied   []deniedPorts
}

// aclEntryCommands are the AWS CLI commands that add entries to acl, each with a rule number no
// entry of its direction has yet and below the first rule that denies its traffic (so it
// decides first); an entry with no such number left gets no command and is named in missing.
func aclEntryCommands(x *Index, acl *snapshot.NetworkACL, entries []aclEntry) (cmds []Command, missing []string) {
	taken := map[bool]map[int32]bool{false: {}, true: {}}
	for _, e := range acl.Entries {
		taken[e.Egress][e.RuleNumber] = true
	}
	affects := aclAffects(x, acl)
	for _, e := range entries {
		limit := int32(aclMaxRule + 1)
		for _, d := range e.denied {
			if n, err := strconv.Atoi(d.rule); err == nil && int32(n) < limit {
				limit = int32(n)
			}
		}
		rule := int32(0)
		for n := limit - 1; n >= 1; n-- {
			if !taken[e.egress][n] {
				rule = n
				break
			}
		}
		dir := "--ingress"
		if e.egress {
			dir = "--egress"
		}
		ports := fmt.Sprintf("From=%d,To=%d", e.from, e.to)
		if rule == 0 {
			missing = append(missing, fmt.Sprintf("%s TCP %s %s (no rule number below %d is free)", dir[2:], ports, e.cidr, limit))
			continue
		}
		taken[e.egress][rule] = true
		cmds = append(cmds, Command{Argv: []string{"aws", "ec2", "create-network-acl-entry", "--network-acl-id", acl.ID,
			dir, "--rule-number", strconv.Itoa(int(rule)), "--protocol", "6", "--port-range", ports,
			"--cidr-block", e.cidr, "--rule-action", "allow"}, Changes: "network-acl/" + acl.ID, Affects: affects})
	}
	return cmds, missing
}

// aclAffects says which nodes a change to a network ACL reaches: those in the subnets it
// filters (its associations, and for the VPC's default ACL every subnet associated with no
// other).
func aclAffects(x *Index, acl *snapshot.NetworkACL) string {
	return "every subnet of network ACL " + acl.ID + ": " + nodesAffected(x, "network-acl/"+acl.ID, func(n *NodeInfo) bool {
		return n.Subnet != nil && x.net.networkACL(n.Subnet.ID, n.Subnet.VpcID) == acl
	})
}

// routeTableAffects says which nodes a change to a route table reaches: those in the subnets
// that use it (its associations, and for the VPC's main table every subnet associated with no
// other).
func routeTableAffects(x *Index, t *snapshot.RouteTable) string {
	return "every subnet of route table " + t.ID + ": " + nodesAffected(x, "route-table/"+t.ID, func(n *NodeInfo) bool {
		if n.Subnet == nil {
			return false
		}
		rt, _ := x.net.routeTable(n.Subnet.ID, n.Subnet.VpcID)
		return rt == t
	})
}

// routeCommand is the AWS CLI command that points route table t's 0.0.0.0/0 at target
// (create-route when the table has no such route, replace-route when it has one); flag is
// the target's option, e.g. --nat-gateway-id.
func routeCommand(x *Index, t *snapshot.RouteTable, replace bool, flag, target string) Command {
	verb := "create-route"
	if replace {
		verb = "replace-route"
	}
	return Command{Argv: []string{"aws", "ec2", verb, "--route-table-id", t.ID, "--destination-cidr-block", "0.0.0.0/0",
		flag, target}, Changes: "route-table/" + t.ID, Affects: routeTableAffects(x, t)}
}

// naclFixCommands are the entries that let a subnet's nodes exchange their HTTPS traffic with
// the peers of their way out through its network ACL, as naclVerdict judges them: TCP 443 out,
// and the replies in on 1024-65535 (every client's ephemeral ports, Linux and Windows alike).
func naclFixCommands(x *Index, subnet *snapshot.Subnet, windows bool, w *WayOut) (*snapshot.NetworkACL, []Command, []string) {
	acl := x.net.networkACL(subnet.ID, subnet.VpcID)
	if acl == nil || x.Unavailable(snapshot.SourceDescribeNetworkAcls) {
		return nil, nil, nil
	}
	lo, hi := int32(linuxEphemeralFrom), int32(linuxEphemeralTo)
	if windows {
		lo, hi = windowsEphemeralFrom, windowsEphemeralTo
	}
	var entries []aclEntry
	for _, peer := range aclPeers(x, subnet, w) {
		cidr := "0.0.0.0/0"
		if peer.kind == peerCIDR {
			cidr = peer.cidr.String()
		}
		if out, _ := aclDenied(acl, true, 443, 443, peer); len(out) > 0 {
			entries = append(entries, aclEntry{egress: true, from: 443, to: 443, cidr: cidr, denied: out})
		}
		if in, _ := aclDenied(acl, false, lo, hi, peer); len(in) > 0 {
			// Placed before every rule that denies part of 1024-65535, so that the entry admits
			// the replies to Linux and Windows nodes alike, whichever of them the finding is about.
			all, _ := aclDenied(acl, false, natReplyFrom, natReplyTo, peer)
			entries = append(entries, aclEntry{from: natReplyFrom, to: natReplyTo, cidr: cidr, denied: all})
		}
	}
	cmds, missing := aclEntryCommands(x, acl, entries)
	return acl, cmds, missing
}

// endpointGroup names a security group of the subnet's VPC, as karpnet read it, that admits TCP
// 443 from the subnet's nodes: from a CIDR holding the subnet's, or from a group the instances
// in the subnet are in. The groups of the VPC's interface endpoints come first, then the others
// by ID; "" when none does (EC2 then gives a new interface endpoint the VPC's default group).
func endpointGroup(x *Index, subnet *snapshot.Subnet) string {
	own, err := netip.ParsePrefix(strings.TrimSpace(cidrOf(subnet)))
	if err != nil {
		return ""
	}
	nodeGroups := map[string]bool{}
	for _, n := range x.Nodes {
		if n.Subnet != nil && n.Subnet.ID == subnet.ID && n.Instance != nil {
			for _, g := range n.Instance.SecurityGroups {
				nodeGroups[g.ID] = true
			}
		}
	}
	admits := func(g *snapshot.SecurityGroup) bool {
		if g.VpcID != "" && g.VpcID != subnet.VpcID {
			return false
		}
		for _, r := range g.Inbound {
			if !admits443(r) {
				continue
			}
			if slices.ContainsFunc(r.GroupIDs, func(id string) bool { return nodeGroups[id] }) {
				return true
			}
			for _, c := range r.CIDRs {
				if p, err := netip.ParsePrefix(c); err == nil && p.Bits() <= own.Bits() && p.Contains(own.Addr()) {
					return true
				}
			}
		}
		return false
	}
	groups := map[string]*snapshot.SecurityGroup{}
	for i := range x.Snapshot.SecurityGroups {
		groups[x.Snapshot.SecurityGroups[i].ID] = &x.Snapshot.SecurityGroups[i]
	}
	var first []string
	for _, e := range x.net.endpoints[subnet.VpcID] {
		if strings.EqualFold(e.Type, "Interface") {
			first = append(first, e.SecurityGroups...)
		}
	}
	for _, id := range append(sortedUnique(first), sortedKeys(groupsKeys(groups))...) {
		if g := groups[id]; g != nil && admits(g) {
			return id
		}
	}
	return ""
}

// groupsKeys is the set of the map's keys.
func groupsKeys(m map[string]*snapshot.SecurityGroup) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
