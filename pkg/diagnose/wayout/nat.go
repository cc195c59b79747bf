package wayout

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// natOnward is what becomes of the traffic an available NAT gateway forwards for a node
// subnet: whether the gateway serves that subnet's zone, and whether its route table sends the
// traffic on (a public gateway's to an internet gateway, a private one's to a transit or
// virtual private gateway) through a network ACL that lets it and its replies pass.
type natOnward struct {
	// usable: the NAT gateway is a way out; assumed: its route table sends 0.0.0.0/0 to a
	// target karpnet cannot follow, taken to be a way out.
	usable, assumed bool
	// note describes the NAT gateway and its onward route for the default route's note.
	note string
	// cause completes "its subnet routes to nat-x, " when the NAT gateway is no way out, and fix
	// says how to make it one ("" when the fix is to route elsewhere), with commands the
	// commands that do it where karpnet knows every value they need.
	cause, fix string
	commands   []Change
}

// natReplyFrom and natReplyTo are the ports a NAT gateway takes for its connections, on which
// the replies from the internet come back to it (VPC User Guide, "Ephemeral ports").
const (
	natReplyFrom = 1024
	natReplyTo   = 65535
)

// natClient is the node subnet whose traffic a NAT gateway forwards, and whether its nodes run
// Windows (the replies go back to their ephemeral ports). A nil subnet skips what depends on it.
type natClient struct {
	subnet  *snapshot.Subnet
	windows bool
}

// natRegional reports whether a NAT gateway is a regional one: no subnet, a route table of its
// own (EC2 API types.NatGateway AvailabilityMode and RouteTableId).
func natRegional(g *snapshot.NATGateway) bool {
	return strings.EqualFold(g.AvailabilityMode, snapshot.NATRegional)
}

// natPrivate reports whether a NAT gateway has private connectivity.
func natPrivate(g *snapshot.NATGateway) bool {
	return strings.EqualFold(g.ConnectivityType, "private")
}

// natWhere names a NAT gateway for messages: its connectivity, its subnet (a regional one has
// none) and its public address.
func natWhere(g *snapshot.NATGateway) string {
	kind := "public"
	if natPrivate(g) {
		kind = "private"
	}
	where := kind + " NAT gateway"
	switch {
	case natRegional(g):
		where = "regional " + where
	case g.SubnetID != "":
		where += " in " + g.SubnetID
	}
	if g.PublicIP != "" {
		where += " (" + g.PublicIP + ")"
	}
	return where
}

// followNAT follows an available NAT gateway from the node subnet c.
//
// A zonal gateway sits in a subnet whose effective route table (explicit association, else the
// VPC's main table) takes its traffic on; a regional gateway has no subnet and a route table of
// its own, which EC2 creates with a route to the internet gateway (VPC User Guide, "Regional NAT
// gateways"). A regional gateway whose zones are managed by hand (AutoProvisionZones disabled)
// serves only the zones it has addresses in; one that provisions them itself serves every zone
// where the VPC has subnets (EC2 API types.NatGateway AutoProvisionZones).
//
// A public gateway's table must send 0.0.0.0/0 to an internet gateway. A private gateway's
// traffic goes on through a transit or virtual private gateway; an internet gateway drops it
// (VPC User Guide, "NAT gateways"). A default route to a target karpnet cannot follow (transit
// or virtual private gateway, a Network Firewall endpoint before the internet gateway) is
// assumed to be a way out. A route table that was not read leaves the gateway usable.
//
// A zonal gateway's subnet's network ACL must admit the node subnet's TCP 443 in and let the
// replies out to the nodes' ephemeral ports, and for a public gateway let the forwarded traffic
// out to the internet on TCP 443 and its replies in on the gateway's ports 1024-65535.
func (n *Net) followNAT(g *snapshot.NATGateway, c natClient) natOnward {
	where := natWhere(g)
	vpc := g.VpcID
	if sn := n.subnets[g.SubnetID]; vpc == "" && sn != nil {
		vpc = sn.VpcID
	}
	regional := natRegional(g)
	if regional {
		if on, served := natZoneServed(g, c); !served {
			return on
		}
	}
	onto := "an internet gateway"
	if natPrivate(g) {
		onto = "a transit or virtual private gateway"
	}
	if !regional && g.SubnetID == "" {
		// A snapshot written before karpnet kept a NAT gateway's availability mode holds a
		// regional gateway as one without a subnet: its route table is not known.
		return natOnward{usable: true, note: where + ", available, in no subnet (a regional NAT gateway read without " +
			"its route table; assumed to route to " + onto + ")"}
	}
	var t *snapshot.RouteTable
	var main bool
	if regional {
		t = n.tableByID[g.RouteTableID]
	} else {
		t, main = n.RouteTable(g.SubnetID, vpc)
	}
	if t == nil {
		what := "its subnet's route table was not read"
		if regional {
			what = "its own route table was not read"
			if g.RouteTableID != "" {
				what = "its route table " + g.RouteTableID + " was not read"
			}
		}
		return natOnward{usable: true, note: where + ", available; " + what + " (assumed to route to " + onto + ")"}
	}
	table := "route table " + t.ID
	if main {
		table += " (the VPC's main table)"
	}
	// subject starts a cause after "its subnet routes to nat-x, ": where the gateway sits.
	subject := "which sits in " + g.SubnetID + " "
	if regional {
		subject = "a regional NAT gateway "
	}
	var def *snapshot.Route
	for i := range t.Routes {
		if t.Routes[i].Destination == "0.0.0.0/0" {
			def = &t.Routes[i]
			break
		}
	}
	want, noun := "an internet gateway route", "internet gateway route"
	if natPrivate(g) {
		want, noun = "a default route to a transit or virtual private gateway", "default route to a transit or virtual private gateway"
	}
	none := natOnward{note: where + ", whose " + table + " has no " + noun,
		cause: subject + "whose " + table + " has no " + noun}
	none.fix, none.commands = n.natRouteFix(g, vpc, t, main, def)
	if !regional {
		none.cause = subject + "without " + want + " (" + table + ")"
	}
	if def == nil {
		return none
	}
	if def.State == snapshot.RouteBlackhole {
		none.note += " (0.0.0.0/0 -> " + def.Target + " is a blackhole)"
		none.cause = subject + "whose route 0.0.0.0/0 -> " + def.Target + " is a blackhole (" + table + ")"
		return none
	}
	prefix, _, _ := strings.Cut(def.Target, "-")
	var onward natOnward
	switch {
	case prefix == "igw" && natPrivate(g):
		return natOnward{
			note: fmt.Sprintf("%s, whose %s sends 0.0.0.0/0 to %s: an internet gateway drops a private NAT gateway's "+
				"traffic", where, table, def.Target),
			cause: fmt.Sprintf("a private NAT gateway %swhose %s sends 0.0.0.0/0 to %s, which drops its traffic (a private "+
				"NAT gateway reaches other networks through a transit or virtual private gateway, never the internet)",
				natIn(g), table, def.Target),
		}
	case prefix == "igw":
		onward = natOnward{usable: true, note: fmt.Sprintf("%s, available, whose %s sends 0.0.0.0/0 to %s", where, table, def.Target)}
	case prefix == "nat" || prefix == "eigw" || prefix == "local":
		none.note += " (0.0.0.0/0 -> " + def.Target + ")"
		return none
	default:
		onward = natOnward{usable: true, assumed: true, note: fmt.Sprintf("%s, whose %s sends 0.0.0.0/0 to %s (%s): "+
			"karpnet cannot follow it and assumes it leads %s", where, table, def.Target, assumedTarget(prefix),
			natAssumedWhere(g))}
	}
	if regional {
		return onward
	}
	return n.natSubnetACL(g, vpc, c, onward, prefix == "igw")
}

// natIn is "in subnet-x " for a NAT gateway in a subnet, else "".
func natIn(g *snapshot.NATGateway) string {
	if natRegional(g) || g.SubnetID == "" {
		return ""
	}
	return "in " + g.SubnetID + " "
}

// natAssumedWhere says where a NAT gateway's traffic is assumed to lead past a target karpnet
// cannot follow.
func natAssumedWhere(g *snapshot.NATGateway) string {
	if natPrivate(g) {
		return "to a network that reaches the internet or the endpoints (a central egress VPC, on-premises)"
	}
	return "to the internet"
}

// natZoneServed reports whether a regional NAT gateway serves the node subnet's zone: always
// when EC2 provisions its zones, or when the subnet's zone cannot be compared with the gateway's
// (either not known, by name or by ID); else only when the gateway has an address in that zone.
// When it does not, the natOnward says so.
func natZoneServed(g *snapshot.NATGateway, c natClient) (natOnward, bool) {
	if !strings.EqualFold(g.AutoProvisionZones, snapshot.NATAutoZonesDisabled) || c.subnet == nil {
		return natOnward{}, true
	}
	byName := c.subnet.Zone != "" && len(g.Zones) > 0
	byID := c.subnet.ZoneID != "" && len(g.ZoneIDs) > 0
	if !byName && !byID || byName && slices.Contains(g.Zones, c.subnet.Zone) ||
		byID && slices.Contains(g.ZoneIDs, c.subnet.ZoneID) {
		return natOnward{}, true
	}
	zone, field, served := c.subnet.Zone, "AvailabilityZone", strings.Join(g.Zones, ", ")
	if !byName {
		zone, field, served = c.subnet.ZoneID, "AvailabilityZoneId", strings.Join(g.ZoneIDs, ", ")
	}
	return natOnward{
		note: fmt.Sprintf("%s, whose zones are managed by hand (AutoProvisionZones disabled), has no address in %s: "+
			"it serves %s only", natWhere(g), zone, served),
		cause: fmt.Sprintf("a regional NAT gateway whose zones are managed by hand (AutoProvisionZones disabled) and "+
			"which has no address in %s, the subnet's zone (it serves %s)", zone, served),
		// The Elastic IP is the user's to allocate or choose (karpnet reads none, and the allocation
		// ID is required), so the fix is prose.
		fix: fmt.Sprintf("give NAT gateway %s an address in %s: associate an Elastic IP you allocate with it in %s "+
			"(EC2 AssociateNatGatewayAddress with the Elastic IP's allocation ID and %s %s)", g.ID, zone, zone, field, zone),
	}, false
}

// natRouteFix says how to give a NAT gateway's route table the default route it lacks. A public
// zonal gateway on the VPC's main table (which the private subnets share) needs a table of its
// own; otherwise the 0.0.0.0/0 route of its table goes to the internet gateway, or for a private
// gateway to the transit gateway that leads to the egress VPC or on-premises. The gateway is
// named when a route table of the VPC routes to one; else the fix says so in prose, with no
// command (karpnet reads no internet or transit gateways).
func (n *Net) natRouteFix(g *snapshot.NATGateway, vpc string, t *snapshot.RouteTable, main bool, def *snapshot.Route) (string, []Change) {
	op := "CreateRoute"
	if def != nil {
		op = "ReplaceRoute"
	}
	where := "regional NAT gateway " + g.ID + "'s route table " + t.ID
	if !natRegional(g) {
		where = g.SubnetID + ", where NAT gateway " + g.ID + " sits,"
	}
	if natPrivate(g) {
		to := "route " + where + " to the transit gateway (or virtual private gateway) that leads to your egress VPC " +
			"or on-premises network"
		if tgw := n.vpcRouteTarget(vpc, "tgw-"); tgw != "" {
			return fmt.Sprintf("%s (the command; %s is the transit gateway other route tables of %s use)", to, tgw, vpc),
				[]Change{RouteChange(t, def != nil, "--transit-gateway-id", tgw)}
		}
		return fmt.Sprintf("%s: a 0.0.0.0/0 route of %s to it (EC2 %s; no route table of %s names one)", to, t.ID, op, vpc), nil
	}
	igw := n.vpcRouteTarget(vpc, "igw-")
	if main && !natRegional(g) {
		to := "the internet gateway attached to " + vpc + " (no route table of it names one)"
		if igw != "" {
			to = igw
		}
		return fmt.Sprintf("give %s, where NAT gateway %s sits, a route table of its own that sends 0.0.0.0/0 to the "+
				"internet gateway: create one in %s (the command), then, with the ID of the table it creates (unknown "+
				"until then), a 0.0.0.0/0 route to %s (EC2 CreateRoute) and the table's association with %s (EC2 "+
				"AssociateRouteTable)", g.SubnetID, g.ID, vpc, to, g.SubnetID),
			[]Change{{Argv: []string{"aws", "ec2", "create-route-table", "--vpc-id", vpc}, Changes: "vpc/" + vpc +
				": a new route table, used by no subnet until it is associated", Affects: "no node now"}}
	}
	if igw == "" {
		return fmt.Sprintf("route %s to the internet gateway attached to %s: a 0.0.0.0/0 route of %s to it (EC2 %s; "+
			"no route table of %s names one)", where, vpc, t.ID, op, vpc), nil
	}
	return fmt.Sprintf("route %s to internet gateway %s (the command)", where, igw),
		[]Change{RouteChange(t, def != nil, "--gateway-id", igw)}
}

// vpcRouteTarget returns a target with prefix (igw-, tgw-) some route table of the VPC routes to
// and that is not a blackhole, or "" when none does.
func (n *Net) vpcRouteTarget(vpc, prefix string) string {
	for _, t := range n.s.RouteTables {
		if t.VpcID != vpc {
			continue
		}
		for _, r := range t.Routes {
			if strings.HasPrefix(r.Target, prefix) && r.State != snapshot.RouteBlackhole {
				return r.Target
			}
		}
	}
	return ""
}

// NATCause names, for a subnet without a way out, the NAT gateway its default route goes to
// and why that gateway does not get the traffic out; "" when no such NAT gateway is the cause.
func (n *Net) NATCause(w WayOut) string {
	for _, r := range w.DefaultRoutes {
		if r.Kind != RouteNAT || r.Usable {
			continue
		}
		if g := n.nat[r.Target]; g != nil && natAvailable(g) {
			if on := n.followNAT(g, n.client(w)); on.cause != "" {
				return "its subnet routes to " + g.ID + ", " + on.cause
			}
		}
	}
	return ""
}

// NATFix says how to make the NAT gateway a subnet's default route goes to a way out, "" when
// the default route goes to no available NAT gateway whose onward path is the problem.
func (n *Net) NATFix(w WayOut) (string, []Change) {
	for _, r := range w.DefaultRoutes {
		if r.Kind != RouteNAT || r.Usable {
			continue
		}
		if g := n.nat[r.Target]; g != nil && natAvailable(g) {
			if on := n.followNAT(g, n.client(w)); on.fix != "" {
				return on.fix, on.commands
			}
		}
	}
	return "", nil
}

// natAvailable reports whether a NAT gateway is available.
func natAvailable(g *snapshot.NATGateway) bool {
	return strings.EqualFold(g.State, "available")
}

// PublicNATWayOut reports whether a NAT gateway is available, public, and a way out for the
// node subnet of w (its route table and its subnet's network ACL take the traffic on).
func (n *Net) PublicNATWayOut(g *snapshot.NATGateway, w WayOut) bool {
	return natAvailable(g) && !natPrivate(g) && n.followNAT(g, n.client(w)).usable
}
