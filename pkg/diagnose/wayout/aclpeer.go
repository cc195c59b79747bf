package wayout

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// aclPeer is whom a node's HTTPS traffic is exchanged with, as a network ACL sees it: the
// addresses its requests go to and its replies come from. Network ACLs match an entry's CIDR
// against that address (the destination going out, the source coming in).
type aclPeer struct {
	// name says who in messages.
	name string
	kind peerKind
	// cidr holds the peer's addresses for peerCIDR.
	cidr netip.Prefix
}

type peerKind int

const (
	// peerUnknown: the way out does not say whom the node talks to (a target karpnet cannot
	// follow, no way out, or not read). Judged leniently: an allow entry counts whatever its
	// CIDR, a deny entry only for 0.0.0.0/0.
	peerUnknown peerKind = iota
	// peerPublic: the internet, through an internet or NAT gateway. The EKS API, ECR, S3, STS
	// and EC2 answer from public addresses karpnet does not know, so an entry counts when its
	// CIDR holds public addresses widely: 0.0.0.0/0 or a public range of /8 or wider. The VPC's
	// CIDR, RFC 1918 and other non-public ranges never do, and a narrow public range (a /24
	// blocklist, one service's prefix) neither admits nor blocks the internet as a whole.
	peerPublic
	// peerCIDR: the addresses of one subnet (VPC interface endpoints' network interfaces). An
	// allow entry counts when its CIDR overlaps the subnet (the endpoint may be in that part), a
	// deny entry when it holds the whole subnet.
	peerCIDR
)

// publicWideBits is the longest prefix of a CIDR that counts as holding the internet's
// addresses for peerPublic.
const publicWideBits = 8

// nonPublic are the IPv4 ranges that hold no public address: "this network", RFC 1918, the
// shared address space of RFC 6598, loopback, link-local, multicast and reserved.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("169.254.0.0/16"), netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("224.0.0.0/3"),
}

// matches reports whether an ACL entry with cidr applies to the traffic with the peer; allow
// says whether it is an allow entry.
func (p aclPeer) matches(cidr string, allow bool) bool {
	e, err := netip.ParsePrefix(cidr)
	if err != nil || !e.Addr().Is4() {
		return false
	}
	e = e.Masked()
	switch p.kind {
	case peerPublic:
		return widelyPublic(e)
	case peerCIDR:
		if allow {
			return e.Overlaps(p.cidr)
		}
		return e.Bits() <= p.cidr.Bits() && e.Contains(p.cidr.Addr())
	}
	return allow || e.Bits() == 0
}

// widelyPublic reports whether a CIDR is 0.0.0.0/0 or a public range of /8 or wider.
func widelyPublic(p netip.Prefix) bool {
	if p.Bits() > publicWideBits {
		return false
	}
	return !slices.ContainsFunc(nonPublic, func(n netip.Prefix) bool {
		return n.Bits() <= p.Bits() && n.Contains(p.Addr())
	})
}

// The peers of the traffic when karpnet cannot say whom the nodes talk to, and through an
// internet or NAT gateway.
var (
	peerAnywhere = aclPeer{name: "0.0.0.0/0", kind: peerUnknown}
	peerInternet = aclPeer{name: "the internet (0.0.0.0/0)", kind: peerPublic}
)

// aclPeers returns whom the nodes of subnet exchange their HTTPS traffic with along the way
// out w: the internet through a usable IPv4 default route to an internet or NAT gateway; the
// subnets of the VPC's interface endpoints for the join services when they are the way out
// (an endpoint in a subnet that was not read is judged leniently; the S3 gateway endpoint's
// public prefix list is not judged); otherwise a peer judged leniently.
func (n *Net) aclPeers(subnet *snapshot.Subnet, w *WayOut) []aclPeer {
	if w == nil {
		return []aclPeer{peerAnywhere}
	}
	switch w.Verdict {
	case WayOutRoute:
		for _, r := range w.DefaultRoutes {
			if r.Usable && r.Kind != RouteAssumed && r.Destination == "0.0.0.0/0" {
				return []aclPeer{peerInternet}
			}
		}
	case WayOutEndpoints:
		return n.endpointPeers(subnet)
	}
	return []aclPeer{peerAnywhere}
}

// endpointPeers returns the subnets of the subnet's VPC's available interface endpoints for
// the join services, sorted, one peer each.
func (n *Net) endpointPeers(subnet *snapshot.Subnet) []aclPeer {
	region := subnetRegion(subnet, n.s.Region)
	var ids []string
	for _, e := range n.endpoints[subnet.VpcID] {
		if !strings.EqualFold(e.Type, "Interface") || !strings.EqualFold(e.State, "available") {
			continue
		}
		if slices.ContainsFunc(joinServices(), func(svc string) bool { return serviceIs(e.ServiceName, region, svc) }) {
			ids = append(ids, e.SubnetIDs...)
		}
	}
	var out []aclPeer
	unknown := false
	for _, id := range sortedUnique(ids) {
		sn := n.subnets[id]
		p, err := netip.ParsePrefix(strings.TrimSpace(cidrOf(sn)))
		if err != nil || !p.Addr().Is4() {
			unknown = true
			continue
		}
		out = append(out, aclPeer{name: "the VPC endpoints in " + id + " (" + p.Masked().String() + ")",
			kind: peerCIDR, cidr: p.Masked()})
	}
	if unknown || len(out) == 0 {
		out = append(out, aclPeer{name: "the VPC endpoints (0.0.0.0/0)", kind: peerUnknown})
	}
	return out
}

// cidrOf returns a subnet's IPv4 CIDR, "" for a subnet that was not read.
func cidrOf(sn *snapshot.Subnet) string {
	if sn == nil {
		return ""
	}
	return sn.CIDR
}
