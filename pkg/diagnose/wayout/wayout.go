package wayout

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

	// fixes are the changes that create or repair the missing endpoints.
	fixes []Change
	// windows is whether the way out was decided for Windows nodes (their replies come back to
	// other ports).
	windows bool
}

// Fixes are the changes that create or repair the endpoints the way out misses, in the order
// of MissingEndpoints (a service whose Region is not known has none); nil on a WayOut made by
// Describe.
func (w WayOut) Fixes() []Change { return w.fixes }

// client is the node subnet the way out was decided for, as followNAT takes it.
func (n *Net) client(w WayOut) natClient {
	return natClient{subnet: n.subnets[w.SubnetID], windows: w.windows}
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
	RouteInternet   = "internet"
	RouteNAT        = "nat"
	RouteEgressOnly = "egress-only"
	RouteBlackhole  = "blackhole"
	RouteAssumed    = "assumed"
)

// Net is a snapshot's route tables, NAT gateways, VPC endpoints and network ACLs keyed by what
// the way-out analysis looks them up by, with the snapshot (its Region, which sources were
// read) and its subnets by ID. It is built once per analysis and read by many goroutines.
type Net struct {
	s       *snapshot.Snapshot
	subnets map[string]*snapshot.Subnet

	tableOfSubnet map[string]*snapshot.RouteTable
	tableByID     map[string]*snapshot.RouteTable
	mainTable     map[string]*snapshot.RouteTable // by VPC
	nat           map[string]*snapshot.NATGateway
	endpoints     map[string][]*snapshot.VPCEndpoint // by VPC
	aclOfSubnet   map[string]*snapshot.NetworkACL
	defaultACL    map[string]*snapshot.NetworkACL // by VPC
}

// New keys the snapshot s for the way-out analysis; subnets are its subnets by ID.
func New(s *snapshot.Snapshot, subnets map[string]*snapshot.Subnet) *Net {
	n := &Net{s: s, subnets: subnets,
		tableOfSubnet: map[string]*snapshot.RouteTable{}, mainTable: map[string]*snapshot.RouteTable{},
		tableByID: map[string]*snapshot.RouteTable{},
		nat:       map[string]*snapshot.NATGateway{}, endpoints: map[string][]*snapshot.VPCEndpoint{},
		aclOfSubnet: map[string]*snapshot.NetworkACL{}, defaultACL: map[string]*snapshot.NetworkACL{},
	}
	for i := range s.RouteTables {
		t := &s.RouteTables[i]
		n.tableByID[t.ID] = t
		if t.Main && t.VpcID != "" {
			n.mainTable[t.VpcID] = t
		}
		for _, id := range t.SubnetIDs {
			n.tableOfSubnet[id] = t
		}
	}
	for i := range s.NATGateways {
		n.nat[s.NATGateways[i].ID] = &s.NATGateways[i]
	}
	for i := range s.VPCEndpoints {
		e := &s.VPCEndpoints[i]
		n.endpoints[e.VpcID] = append(n.endpoints[e.VpcID], e)
	}
	for i := range s.NetworkACLs {
		a := &s.NetworkACLs[i]
		if a.Default && a.VpcID != "" {
			n.defaultACL[a.VpcID] = a
		}
		for _, id := range a.SubnetIDs {
			n.aclOfSubnet[id] = a
		}
	}
	return n
}

// RouteTable returns the subnet's effective route table: its explicit association, else its
// VPC's main table; nil when neither is known. main is true for the main table.
func (n *Net) RouteTable(subnetID, vpcID string) (t *snapshot.RouteTable, main bool) {
	if t := n.tableOfSubnet[subnetID]; t != nil {
		return t, false
	}
	if vpcID == "" {
		return nil, false
	}
	t = n.mainTable[vpcID]
	return t, t != nil
}

// NetworkACL returns the subnet's network ACL: its association, else its VPC's default ACL.
func (n *Net) NetworkACL(subnetID, vpcID string) *snapshot.NetworkACL {
	if a := n.aclOfSubnet[subnetID]; a != nil {
		return a
	}
	if vpcID == "" {
		return nil
	}
	return n.defaultACL[vpcID]
}

// TableByID returns the route table with the ID, nil when it was not read.
func (n *Net) TableByID(id string) *snapshot.RouteTable { return n.tableByID[id] }

// NAT returns the NAT gateway with the ID, nil when it was not read.
func (n *Net) NAT(id string) *snapshot.NATGateway { return n.nat[id] }

// Endpoints returns the VPC endpoints of the VPC, in the snapshot's order.
func (n *Net) Endpoints(vpcID string) []*snapshot.VPCEndpoint { return n.endpoints[vpcID] }

// PublicIPv4 says whether the instances a way out is decided for have a public IPv4 address,
// and why (for messages).
type PublicIPv4 struct {
	Has bool
	Why string
}

// Decide decides how the nodes of subnet get out, for instances with or without a public
// IPv4 address, Windows or not (the ports a NAT gateway's subnet must let their replies out
// to). The network ACL verdict of the subnet itself is left to NACL.
func (n *Net) Decide(subnet *snapshot.Subnet, pub PublicIPv4, windows bool) WayOut {
	w := WayOut{SubnetID: subnet.ID, Verdict: WayOutUnknown, windows: windows}
	if n.s.Unavailable(snapshot.SourceDescribeRouteTables) {
		w.Reason = "the route tables were not read"
		return w
	}
	t, main := n.RouteTable(subnet.ID, subnet.VpcID)
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
		w.DefaultRoutes = append(w.DefaultRoutes, n.classifyRoute(r, pub, natClient{subnet: subnet, windows: windows}))
	}
	slices.SortStableFunc(w.DefaultRoutes, func(a, b DefaultRoute) int { return strings.Compare(a.Destination, b.Destination) })
	var assumed []string
	for _, r := range w.DefaultRoutes {
		switch {
		case r.Usable && r.Kind != RouteAssumed:
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
	if n.s.Unavailable(snapshot.SourceDescribeVpcEndpoints) {
		w.Reason = "no usable default route, and the VPC endpoints were not read"
		return w
	}
	w.Endpoints, w.MissingEndpoints, w.fixes = n.endpointsFor(subnet, t.ID)
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
func (n *Net) classifyRoute(r snapshot.Route, pub PublicIPv4, c natClient) DefaultRoute {
	d := DefaultRoute{Destination: r.Destination, Target: r.Target}
	if r.State == snapshot.RouteBlackhole {
		d.Kind, d.Note = RouteBlackhole, "blackhole: its target is gone"
		return d
	}
	prefix, _, _ := strings.Cut(r.Target, "-")
	switch prefix {
	case "igw":
		d.Kind = RouteInternet
		switch {
		case r.Destination == "::/0":
			d.Usable, d.Note = true, "internet gateway, IPv6"
		case pub.Has:
			d.Usable, d.Note = true, "internet gateway; "+pub.Why
		default:
			d.Note = "internet gateway, but " + pub.Why
		}
	case "eigw":
		d.Kind = RouteEgressOnly
		d.Usable, d.Note = r.Destination == "::/0", "egress-only internet gateway, IPv6 only"
	case "nat":
		d.Kind = RouteNAT
		g := n.nat[r.Target]
		switch {
		case g == nil && n.s.Unavailable(snapshot.SourceDescribeNatGateways):
			d.Kind, d.Usable, d.Note = RouteAssumed, true, "NAT gateway not read; assumed available and public"
		case g == nil:
			d.Note = "NAT gateway " + r.Target + " does not exist"
		case !strings.EqualFold(g.State, "available"):
			d.Note = "NAT gateway is " + g.State + ", not available"
		default:
			on := n.followNAT(g, c)
			d.Usable, d.Note = on.usable, on.note
			if on.assumed {
				d.Kind = RouteAssumed
			}
		}
	default:
		d.Kind, d.Usable, d.Note = RouteAssumed, true, assumedTarget(prefix)+
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

// InstancePublicIP says whether an instance has a public IPv4 address.
func InstancePublicIP(in *snapshot.Instance) PublicIPv4 {
	if in.PublicIP != "" {
		return PublicIPv4{true, "instance " + in.ID + " has public IPv4 " + in.PublicIP}
	}
	return PublicIPv4{false, "instance " + in.ID + " has no public IPv4 address"}
}

// Describe is the way out of subnet for instances with or without a public IPv4 address,
// Windows or not, with its network ACL verdict, as `describe node` and the NodeClaim and subnet
// sheets show it: nil when the subnet's route table is not known, and without fixes.
func (n *Net) Describe(subnet *snapshot.Subnet, pub PublicIPv4, windows bool) *WayOut {
	if t, _ := n.RouteTable(subnet.ID, subnet.VpcID); t == nil {
		return nil
	}
	w := n.Decide(subnet, pub, windows)
	w.NetworkACL, w.NACLVerdict, w.NACLReason = n.NACL(subnet, windows, &w)
	w.fixes = nil
	return &w
}
