package wayout

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// natSubnetACL checks the network ACL of the subnet a zonal NAT gateway sits in, which is
// stateless and filters the traffic both where it enters from the nodes and where it leaves
// for the internet. From the node subnet c it must admit TCP 443 in and let the replies out to
// the nodes' ephemeral ports (Linux 32768-60999, Windows 49152-65535); when internet is true
// (a public gateway whose table routes to an internet gateway) it must also let TCP 443 out to
// the internet and the replies in on the gateway's ports 1024-65535 (VPC User Guide, "Network
// ACLs", "Ephemeral ports"). It returns onward unchanged when the ACL lets all of it through or
// was not read, else a natOnward that names each denied direction and its rule.
func (n *Net) natSubnetACL(g *snapshot.NATGateway, vpc string, c natClient, onward natOnward, internet bool) natOnward {
	if n.s.Unavailable(snapshot.SourceDescribeNetworkAcls) {
		return onward
	}
	acl := n.NetworkACL(g.SubnetID, vpc)
	if acl == nil {
		return onward
	}
	var problems []string
	var entries []aclEntry
	entry := func(egress bool, from, to int32, cidr string, denied []deniedPorts) {
		entries = append(entries, aclEntry{egress: egress, from: from, to: to, cidr: cidr, denied: denied})
	}
	if peer, cidr, ok := natNodePeer(g, c); ok {
		lo, hi, os := int32(linuxEphemeralFrom), int32(linuxEphemeralTo), "Linux"
		if c.windows {
			lo, hi, os = windowsEphemeralFrom, windowsEphemeralTo, "Windows"
		}
		if in, passed := aclDenied(acl, false, 443, 443, peer); len(in) > 0 {
			problems = append(problems, fmt.Sprintf("inbound TCP 443 from %s denied by rule %s%s", peer.name,
				in[0].rule, passedText(passed, "from")))
			entry(false, 443, 443, cidr, in)
		}
		if out, passed := aclDenied(acl, true, lo, hi, peer); len(out) > 0 {
			problems = append(problems, fmt.Sprintf("outbound TCP replies to %s on the %s ephemeral ports %d-%d denied "+
				"on %s%s", peer.name, os, lo, hi, deniedText(out), passedText(passed, "to")))
			entry(true, lo, hi, cidr, out)
		}
	}
	if internet {
		if out, passed := aclDenied(acl, true, 443, 443, peerInternet); len(out) > 0 {
			problems = append(problems, fmt.Sprintf("outbound TCP 443 to %s denied by rule %s%s", peerInternet.name,
				out[0].rule, passedText(passed, "to")))
			entry(true, 443, 443, "0.0.0.0/0", out)
		}
		if in, passed := aclDenied(acl, false, natReplyFrom, natReplyTo, peerInternet); len(in) > 0 {
			problems = append(problems, fmt.Sprintf("inbound TCP replies from %s to the NAT gateway's ports %d-%d denied on %s%s",
				peerInternet.name, natReplyFrom, natReplyTo, deniedText(in), passedText(passed, "from")))
			entry(false, natReplyFrom, natReplyTo, "0.0.0.0/0", in)
		}
	}
	if len(problems) == 0 {
		return onward
	}
	cmds, missing := aclEntryChanges(acl, entries)
	fix := fmt.Sprintf("allow it in network ACL %s of %s with entries numbered below the denying rules (the commands)",
		acl.ID, g.SubnetID)
	if len(missing) > 0 {
		fix += "; renumber its entries to make room for " + strings.Join(missing, " and ")
	}
	drops := "network ACL " + acl.ID + " drops the traffic it forwards: " + strings.Join(problems, "; ")
	return natOnward{
		note:     natWhere(g) + ", whose subnet's " + drops,
		cause:    "which sits in " + g.SubnetID + " whose " + drops,
		fix:      fix,
		commands: cmds,
	}
}

// natNodePeer is the node subnet as the NAT gateway's subnet's network ACL sees it, and its
// CIDR for a fix; ok is false when there is nothing to check: no node subnet, or the nodes sit
// in the gateway's own subnet (a network ACL does not filter traffic within its subnet). A
// subnet whose CIDR is not known is judged leniently.
func natNodePeer(g *snapshot.NATGateway, c natClient) (peer aclPeer, cidr string, ok bool) {
	if c.subnet == nil || c.subnet.ID == g.SubnetID {
		return aclPeer{}, "", false
	}
	p, err := netip.ParsePrefix(strings.TrimSpace(c.subnet.CIDR))
	if err != nil || !p.Addr().Is4() {
		return aclPeer{name: "the nodes' subnet " + c.subnet.ID, kind: peerUnknown}, "NODE_SUBNET_CIDR", true
	}
	p = p.Masked()
	return aclPeer{name: "the nodes' subnet " + c.subnet.ID + " (" + p.String() + ")", kind: peerCIDR, cidr: p},
		p.String(), true
}
