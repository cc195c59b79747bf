package diagnose

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// wayOutCommands are a way-out fix's changes as a finding's commands, each change to a route
// table or network ACL with the nodes of the subnets that use it; nil when there are none.
func wayOutCommands(x *Index, changes []wayout.Change) []Command {
	if len(changes) == 0 {
		return nil
	}
	cmds := make([]Command, len(changes))
	for i, c := range changes {
		cmds[i] = wayOutCommand(x, c)
	}
	return cmds
}

// wayOutCommand is one way-out change as a finding's command.
func wayOutCommand(x *Index, c wayout.Change) Command {
	cmd := Command{Argv: c.Argv, Changes: c.Changes, Affects: c.Affects}
	switch {
	case c.RouteTable != nil:
		cmd.Affects = routeTableAffects(x, c.RouteTable)
	case c.ACL != nil:
		cmd.Affects = aclAffects(x, c.ACL)
	}
	return cmd
}

// aclAffects says which nodes a change to a network ACL reaches: those in the subnets it
// filters (its associations, and for the VPC's default ACL every subnet associated with no
// other).
func aclAffects(x *Index, acl *snapshot.NetworkACL) string {
	return "every subnet of network ACL " + acl.ID + ": " + nodesAffected(x, "network-acl/"+acl.ID, func(n *NodeInfo) bool {
		return n.Subnet != nil && x.net.NetworkACL(n.Subnet.ID, n.Subnet.VpcID) == acl
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
		rt, _ := x.net.RouteTable(n.Subnet.ID, n.Subnet.VpcID)
		return rt == t
	})
}

// endpointGroup names a security group of the subnet's VPC, as karpnet read it, that admits TCP
// 443 from the subnet's nodes: from a CIDR holding the subnet's, or from a group the instances
// in the subnet are in. The groups of the VPC's interface endpoints come first, then the others
// by ID; "" when none does (EC2 then gives a new interface endpoint the VPC's default group).
func endpointGroup(x *Index, subnet *snapshot.Subnet) string {
	own, err := netip.ParsePrefix(strings.TrimSpace(subnet.CIDR))
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
	for _, e := range x.net.Endpoints(subnet.VpcID) {
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
