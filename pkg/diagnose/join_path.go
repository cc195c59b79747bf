package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// WayOut is how a subnet's nodes reach what they need to join the cluster: the subnet's
// effective route table, its default routes, the VPC endpoints that stand in for them, and
// whether its network ACL lets the HTTPS traffic and its return through. `describe node`
// carries it for the node's subnet when the VPC's route tables were read.
type WayOut struct {
	SubnetID string `json:"subnetID"`
	// RouteTable is the subnet's effective route table; MainTable is true when that is the
	// VPC's main table because the subnet has no explicit association.
	RouteTable string `json:"routeTable,omitempty"`
	MainTable  bool   `json:"mainTable,omitempty"`
	// DefaultRoutes are the table's 0.0.0.0/0 routes (and ::/0 ones in an IPv6 subnet).
	DefaultRoutes []DefaultRoute `json:"defaultRoutes,omitempty"`
	// Verdict is one of the WayOut verdicts below; Reason says why in words.
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
	// Endpoints are the VPC endpoints found for what a node needs (service short names such as
	// ecr.api), MissingEndpoints those missing or unusable, each with why.
	Endpoints        []string `json:"endpoints,omitempty"`
	MissingEndpoints []string `json:"missingEndpoints,omitempty"`
	// NetworkACL is the subnet's network ACL; NACLVerdict is allows, blocks or unknown, and
	// NACLReason names the denied traffic and the rules that deny it.
	NetworkACL  string `json:"networkACL,omitempty"`
	NACLVerdict string `json:"naclVerdict,omitempty"`
	NACLReason  string `json:"naclReason,omitempty"`

	// fixes are the commands that create or repair the missing endpoints.
	fixes []Command
	// windows is whether the way out was decided for Windows nodes (their replies come back to
	// other ports).
	windows bool
}

// client is the node subnet the way out was decided for, as followNAT takes it.
func (w WayOut) client(x *Index) natClient {
	return natClient{subnet: x.Subnets[w.SubnetID], windows: w.windows}
}

// DefaultRoute is one default route of a subnet's route table, classified.
type DefaultRoute struct {
	Destination string `json:"destination"`
	Target      string `json:"target"`
	// Kind is internet, nat, egress-only, blackhole or assumed (a target karpnet cannot
	// follow); Usable tells whether the subnet's nodes get out through it, Note why not or
	// what is assumed.
	Kind   string `json:"kind"`
	Usable bool   `json:"usable"`
	Note   string `json:"note,omitempty"`
}

// The verdicts of a WayOut.
const (
	// WayOutRoute: a default route gets the nodes out (internet gateway with a public IP,
	// available public NAT gateway whose route table, its subnet's or a regional gateway's own,
	// routes to an internet gateway, egress-only gateway for IPv6).
	WayOutRoute = "route"
	// WayOutAssumed: a default route goes to a target karpnet cannot follow (transit gateway,
	// firewall or Gateway Load Balancer endpoint, interface, peering, VPN gateway), or to a NAT
	// gateway whose table does (a private NAT gateway to a transit gateway): taken to be a way
	// out.
	WayOutAssumed = "assumed"
	// WayOutEndpoints: no usable default route, and the VPC has every endpoint a node needs.
	WayOutEndpoints = "endpoints"
	// WayOutNone: no usable default route and endpoints missing.
	WayOutNone = "none"
	// WayOutUnknown: the subnet's route table, or the VPC endpoints, were not read.
	WayOutUnknown = "unknown"
)

// Kinds of default route.
const (
	routeInternet   = "internet"
	routeNAT        = "nat"
	routeEgressOnly = "egress-only"
	routeBlackhole  = "blackhole"
	routeAssumed    = "assumed"
)

// netIndex keys the snapshot's route tables, NAT gateways, VPC endpoints and network ACLs by
// what the way-out analysis looks them up by.
type netIndex struct {
	tableOfSubnet map[string]*snapshot.RouteTable
	tableByID     map[string]*snapshot.RouteTable
	mainTable     map[string]*snapshot.RouteTable // by VPC
	nat           map[string]*snapshot.NATGateway
	endpoints     map[string][]*snapshot.VPCEndpoint // by VPC
	aclOfSubnet   map[string]*snapshot.NetworkACL
	defaultACL    map[string]*snapshot.NetworkACL // by VPC
}

func newNetIndex(s *snapshot.Snapshot) *netIndex {
	ni := &netIndex{
		tableOfSubnet: map[string]*snapshot.RouteTable{}, mainTable: map[string]*snapshot.RouteTable{},
		tableByID: map[string]*snapshot.RouteTable{},
		nat:       map[string]*snapshot.NATGateway{}, endpoints: map[string][]*snapshot.VPCEndpoint{},
		aclOfSubnet: map[string]*snapshot.NetworkACL{}, defaultACL: map[string]*snapshot.NetworkACL{},
	}
	for i := range s.RouteTables {
		t := &s.RouteTables[i]
		ni.tableByID[t.ID] = t
		if t.Main && t.VpcID != "" {
			ni.mainTable[t.VpcID] = t
		}
		for _, id := range t.SubnetIDs {
			ni.tableOfSubnet[id] = t
		}
	}
	for i := range s.NATGateways {
		ni.nat[s.NATGateways[i].ID] = &s.NATGateways[i]
	}
	for i := range s.VPCEndpoints {
		e := &s.VPCEndpoints[i]
		ni.endpoints[e.VpcID] = append(ni.endpoints[e.VpcID], e)
	}
	for i := range s.NetworkACLs {
		a := &s.NetworkACLs[i]
		if a.Default && a.VpcID != "" {
			ni.defaultACL[a.VpcID] = a
		}
		for _, id := range a.SubnetIDs {
			ni.aclOfSubnet[id] = a
		}
	}
	return ni
}

// routeTable returns the subnet's effective route table: its explicit association, else its
// VPC's main table; nil when neither is known. main is true for the main table.
func (ni *netIndex) routeTable(subnetID, vpcID string) (t *snapshot.RouteTable, main bool) {
	if t := ni.tableOfSubnet[subnetID]; t != nil {
		return t, false
	}
	if vpcID == "" {
		return nil, false
	}
	t = ni.mainTable[vpcID]
	return t, t != nil
}

// networkACL returns the subnet's network ACL: its association, else its VPC's default ACL.
func (ni *netIndex) networkACL(subnetID, vpcID string) *snapshot.NetworkACL {
	if a := ni.aclOfSubnet[subnetID]; a != nil {
		return a
	}
	if vpcID == "" {
		return nil
	}
	return ni.defaultACL[vpcID]
}

// publicIPv4 says whether the instances a way out is decided for have a public IPv4 address,
// and why (for messages).
type publicIPv4 struct {
	has bool
	why string
}

// wayOut decides how the nodes of subnet get out, for instances with or without a public
// IPv4 address, Windows or not (the ports a NAT gateway's subnet must let their replies out
// to). The network ACL verdict of the subnet itself is left to naclVerdict.
func wayOut(x *Index, subnet *snapshot.Subnet, pub publicIPv4, windows bool) WayOut {
	ni := x.net
	w := WayOut{SubnetID: subnet.ID, Verdict: WayOutUnknown, windows: windows}
	if x.Unavailable(snapshot.SourceDescribeRouteTables) {
		w.Reason = "the route tables were not read"
		return w
	}
	t, main := ni.routeTable(subnet.ID, subnet.VpcID)
	if t == nil {
		w.Reason = "no route table of the subnet's VPC was read"
		return w
	}
	w.RouteTable, w.MainTable = t.ID, main
	ipv6 := len(subnet.IPv6CIDRs) > 0
	for _, r := range t.Routes {
		if r.Destination != "0.0.0.0/0" && !(ipv6 && r.Destination == "::/0") {
			continue
		}
		w.DefaultRoutes = append(w.DefaultRoutes, classifyRoute(x, r, pub, natClient{subnet: subnet, windows: windows}))
	}
	slices.SortStableFunc(w.DefaultRoutes, func(a, b DefaultRoute) int { return strings.Compare(a.Destination, b.Destination) })
	var assumed []string
	for _, r := range w.DefaultRoutes {
		switch {
		case r.Usable && r.Kind != routeAssumed:
			w.Verdict, w.Reason = WayOutRoute, fmt.Sprintf("route %s -> %s (%s)", r.Destination, r.Target, r.Note)
			return w
		case r.Usable:
			assumed = append(assumed, fmt.Sprintf("route %s -> %s: %s", r.Destination, r.Target, r.Note))
		}
	}
	if len(assumed) > 0 {
		w.Verdict, w.Reason = WayOutAssumed, strings.Join(assumed, "; ")
		return w
	}
	if x.Unavailable(snapshot.SourceDescribeVpcEndpoints) {
		w.Reason = "no usable default route, and the VPC endpoints were not read"
		return w
	}
	w.Endpoints, w.MissingEndpoints, w.fixes = endpointsFor(x, subnet, t.ID)
	routes := "no default route"
	if len(w.DefaultRoutes) > 0 {
		var bad []string
		for _, r := range w.DefaultRoutes {
			bad = append(bad, fmt.Sprintf("%s -> %s (%s)", r.Destination, r.Target, r.Note))
		}
		routes = "default " + plural(len(bad), "route ", "routes ") + strings.Join(bad, ", ") + " unusable"
	}
	if len(w.MissingEndpoints) == 0 {
		w.Verdict = WayOutEndpoints
		w.Reason = routes + "; the VPC has an endpoint for each of " + strings.Join(w.Endpoints, ", ") +
			" (EKS API assumed reachable through the cluster's private endpoint)"
		return w
	}
	w.Verdict = WayOutNone
	w.Reason = routes + "; VPC endpoints missing: " + strings.Join(w.MissingEndpoints, ", ")
	return w
}

// classifyRoute decides whether a default route gets the instances of the node subnet c out.
func classifyRoute(x *Index, r snapshot.Route, pub publicIPv4, c natClient) DefaultRoute {
	d := DefaultRoute{Destination: r.Destination, Target: r.Target}
	if r.State == snapshot.RouteBlackhole {
		d.Kind, d.Note = routeBlackhole, "blackhole: its target is gone"
		return d
	}
	prefix, _, _ := strings.Cut(r.Target, "-")
	switch prefix {
	case "igw":
		d.Kind = routeInternet
		switch {
		case r.Destination == "::/0":
			d.Usable, d.Note = true, "internet gateway, IPv6"
		case pub.has:
			d.Usable, d.Note = true, "internet gateway; "+pub.why
		default:
			d.Note = "internet gateway, but " + pub.why
		}
	case "eigw":
		d.Kind = routeEgressOnly
		d.Usable, d.Note = r.Destination == "::/0", "egress-only internet gateway, IPv6 only"
	case "nat":
		d.Kind = routeNAT
		g := x.net.nat[r.Target]
		switch {
		case g == nil && x.Unavailable(snapshot.SourceDescribeNatGateways):
			d.Kind, d.Usable, d.Note = routeAssumed, true, "NAT gateway not read; assumed available and public"
		case g == nil:
			d.Note = "NAT gateway " + r.Target + " does not exist"
		case !strings.EqualFold(g.State, "available"):
			d.Note = "NAT gateway is " + g.State + ", not available"
		default:
			on := followNAT(x, g, c)
			d.Usable, d.Note = on.usable, on.note
			if on.assumed {
				d.Kind = routeAssumed
			}
		}
	default:
		d.Kind, d.Usable, d.Note = routeAssumed, true, assumedTarget(prefix)+
			": karpnet cannot follow it and assumes it leads to the internet or to the endpoints"
	}
	return d
}

// assumedTarget names a route target karpnet cannot follow.
func assumedTarget(prefix string) string {
	switch prefix {
	case "tgw":
		return "transit gateway"
	case "vpce":
		return "Gateway Load Balancer or Network Firewall endpoint"
	case "eni":
		return "network interface (an appliance or NAT instance)"
	case "pcx":
		return "VPC peering connection"
	case "vgw":
		return "virtual private gateway"
	case "cagw":
		return "carrier gateway"
	case "lgw":
		return "local gateway"
	case "i":
		return "instance"
	}
	return "target"
}

// newNodesPublicIP says whether instances a NodeClass launches into subnet get a public IPv4
// address: the class's associatePublicIPAddress when set, else the subnet's
// MapPublicIPOnLaunch.
func newNodesPublicIP(c *snapshot.EC2NodeClass, subnet *snapshot.Subnet) publicIPv4 {
	if c != nil && c.AssociatePublicIPAddress != nil {
		if *c.AssociatePublicIPAddress {
			return publicIPv4{true, classLabel(c) + " sets associatePublicIPAddress: true"}
		}
		return publicIPv4{false, classLabel(c) + " sets associatePublicIPAddress: false"}
	}
	if subnet.MapPublicIPOnLaunch {
		return publicIPv4{true, "the subnet maps a public IPv4 address on launch"}
	}
	return publicIPv4{false, "new instances get no public IPv4 address (MapPublicIPOnLaunch off)"}
}

// instancePublicIP says whether an instance has a public IPv4 address.
func instancePublicIP(in *snapshot.Instance) publicIPv4 {
	if in.PublicIP != "" {
		return publicIPv4{true, "instance " + in.ID + " has public IPv4 " + in.PublicIP}
	}
	return publicIPv4{false, "instance " + in.ID + " has no public IPv4 address"}
}

// describeWayOut is the way out of the node's subnet for `describe node`, for its instance
// (public IPv4 or not) and its OS's return ports; nil unless the subnet's route table is
// known.
func describeWayOut(x *Index, n *NodeInfo) *WayOut {
	if n.Instance == nil || n.Subnet == nil {
		return nil
	}
	if t, _ := x.net.routeTable(n.Subnet.ID, n.Subnet.VpcID); t == nil {
		return nil
	}
	w := wayOut(x, n.Subnet, instancePublicIP(n.Instance), n.Windows())
	w.NetworkACL, w.NACLVerdict, w.NACLReason = naclVerdict(x, n.Subnet, n.Windows(), &w)
	w.fixes = nil
	return &w
}

// claimWayOut is the way out of the subnet of a NodeClaim's instance, as describeWayOut is a
// node's: nil unless the claim has an instance in a known subnet whose route table is known.
func claimWayOut(x *Index, c *ClaimInfo) *WayOut {
	if c.Instance == nil || c.Subnet == nil {
		return nil
	}
	if t, _ := x.net.routeTable(c.Subnet.ID, c.Subnet.VpcID); t == nil {
		return nil
	}
	w := wayOut(x, c.Subnet, instancePublicIP(c.Instance), c.windows())
	w.NetworkACL, w.NACLVerdict, w.NACLReason = naclVerdict(x, c.Subnet, c.windows(), &w)
	w.fixes = nil
	return &w
}
