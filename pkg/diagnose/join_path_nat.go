package diagnose

import (
	"fmt"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// natOnward is what becomes of the traffic an available public NAT gateway forwards: whether
// its own subnet sends it on to the internet.
type natOnward struct {
	// usable: the NAT gateway is a way out; assumed: its subnet sends 0.0.0.0/0 to a target
	// karpnet cannot follow, taken to be a way out.
	usable, assumed bool
	// note describes the NAT gateway and its onward route for the default route's note.
	note string
	// cause completes "its subnet routes to nat-x, " when the NAT gateway is no way out, and fix
	// says how to make it one.
	cause, fix string
}

// natReplyFrom and natReplyTo are the ports a NAT gateway takes for its connections, on which
// the replies from the internet come back to it (VPC User Guide, "Ephemeral ports").
const (
	natReplyFrom = 1024
	natReplyTo   = 65535
)

// followNAT follows an available public NAT gateway to the internet. Its subnet's effective
// route table (explicit association, else the VPC's main table) must send 0.0.0.0/0 to an
// internet gateway, and its subnet's network ACL must let the forwarded traffic out to the
// internet on TCP 443 and the replies back in on the NAT gateway's ports 1024-65535. A route
// table that was not read leaves the NAT gateway usable; a default route to a target karpnet
// cannot follow (a Network Firewall endpoint between the NAT and the internet gateway, a
// transit gateway) is assumed to be a way out.
func followNAT(x *Index, g *snapshot.NATGateway) natOnward {
	where := "public NAT gateway in " + g.SubnetID
	if g.PublicIP != "" {
		where += " (" + g.PublicIP + ")"
	}
	vpc := g.VpcID
	if sn := x.Subnets[g.SubnetID]; vpc == "" && sn != nil {
		vpc = sn.VpcID
	}
	t, main := x.net.routeTable(g.SubnetID, vpc)
	if t == nil {
		return natOnward{usable: true, note: where + ", available; its subnet's route table was not read " +
			"(assumed to route to an internet gateway)"}
	}
	table := "route table " + t.ID
	if main {
		table += " (the VPC's main table)"
	}
	var def *snapshot.Route
	for i := range t.Routes {
		if t.Routes[i].Destination == "0.0.0.0/0" {
			def = &t.Routes[i]
			break
		}
	}
	noIGW := natOnward{note: where + ", whose " + table + " has no internet gateway route",
		cause: "which sits in " + g.SubnetID + " without an internet gateway route (" + table + ")",
		fix:   natRouteFix(x, g, vpc, t, main, def)}
	if def == nil {
		return noIGW
	}
	if def.State == snapshot.RouteBlackhole {
		noIGW.note += " (0.0.0.0/0 -> " + def.Target + " is a blackhole)"
		noIGW.cause = "which sits in " + g.SubnetID + " whose route 0.0.0.0/0 -> " + def.Target + " is a blackhole (" + table + ")"
		return noIGW
	}
	prefix, _, _ := strings.Cut(def.Target, "-")
	switch prefix {
	case "igw":
	case "nat", "eigw", "local":
		noIGW.note += " (0.0.0.0/0 -> " + def.Target + ")"
		return noIGW
	default:
		return natOnward{usable: true, assumed: true, note: fmt.Sprintf("%s, whose %s sends 0.0.0.0/0 to %s (%s): "+
			"karpnet cannot follow it and assumes it leads to the internet", where, table, def.Target, assumedTarget(prefix))}
	}
	onward := natOnward{usable: true, note: fmt.Sprintf("%s, available, whose %s sends 0.0.0.0/0 to %s", where, table, def.Target)}
	if x.Unavailable(snapshot.SourceDescribeNetworkAcls) {
		return onward
	}
	acl := x.net.networkACL(g.SubnetID, vpc)
	if acl == nil {
		return onward
	}
	var problems []string
	if out, passed := aclDenied(acl, true, 443, 443, peerInternet); len(out) > 0 {
		problems = append(problems, fmt.Sprintf("outbound TCP 443 to %s denied by rule %s%s", peerInternet.name,
			out[0].rule, passedText(passed, "to")))
	}
	if in, passed := aclDenied(acl, false, natReplyFrom, natReplyTo, peerInternet); len(in) > 0 {
		problems = append(problems, fmt.Sprintf("inbound TCP replies from %s to the NAT gateway's ports %d-%d denied on %s%s",
			peerInternet.name, natReplyFrom, natReplyTo, deniedText(in), passedText(passed, "from")))
	}
	if len(problems) == 0 {
		return onward
	}
	drops := "network ACL " + acl.ID + " drops the traffic it forwards: " + strings.Join(problems, "; ")
	return natOnward{
		note:  where + ", whose subnet's " + drops,
		cause: "which sits in " + g.SubnetID + " whose " + drops,
		fix: fmt.Sprintf("allow it in network ACL %s of %s, e.g. `aws ec2 create-network-acl-entry --network-acl-id %s "+
			"--egress --rule-number 90 --protocol tcp --port-range From=443,To=443 --cidr-block 0.0.0.0/0 --rule-action "+
			"allow` and `aws ec2 create-network-acl-entry --network-acl-id %s --ingress --rule-number 91 --protocol tcp "+
			"--port-range From=1024,To=65535 --cidr-block 0.0.0.0/0 --rule-action allow` (rule numbers below the denying "+
			"ones)", acl.ID, g.SubnetID, acl.ID, acl.ID),
	}
}

// natRouteFix says how to give a NAT gateway's subnet a route to the internet gateway: a route
// table of its own when it is on the VPC's main table (which the private subnets share), else
// a default route in its table.
func natRouteFix(x *Index, g *snapshot.NATGateway, vpc string, t *snapshot.RouteTable, main bool, def *snapshot.Route) string {
	igw := vpcInternetGateway(x, vpc)
	if main {
		return fmt.Sprintf("give %s, where NAT gateway %s sits, a route table of its own that sends 0.0.0.0/0 to the "+
			"internet gateway: `aws ec2 create-route-table --vpc-id %s`, then `aws ec2 create-route --route-table-id "+
			"NEW_TABLE --destination-cidr-block 0.0.0.0/0 --gateway-id %s` and `aws ec2 associate-route-table "+
			"--route-table-id NEW_TABLE --subnet-id %s`", g.SubnetID, g.ID, vpc, igw, g.SubnetID)
	}
	verb := "create-route"
	if def != nil {
		verb = "replace-route"
	}
	return fmt.Sprintf("route %s, where NAT gateway %s sits, to the internet gateway: `aws ec2 %s --route-table-id %s "+
		"--destination-cidr-block 0.0.0.0/0 --gateway-id %s`", g.SubnetID, g.ID, verb, t.ID, igw)
}

// vpcInternetGateway returns the internet gateway some route table of the VPC routes to, or a
// placeholder naming the VPC (karpnet does not read internet gateways).
func vpcInternetGateway(x *Index, vpc string) string {
	for _, t := range x.Snapshot.RouteTables {
		if t.VpcID != vpc {
			continue
		}
		for _, r := range t.Routes {
			if strings.HasPrefix(r.Target, "igw-") && r.State != snapshot.RouteBlackhole {
				return r.Target
			}
		}
	}
	return "IGW_ID (the internet gateway attached to " + vpc + ")"
}

// natCause names, for a subnet without a way out, the NAT gateway its default route goes to
// and why that gateway does not reach the internet; "" when no such NAT gateway is the cause.
func natCause(x *Index, w WayOut) string {
	for _, r := range w.DefaultRoutes {
		if r.Kind != routeNAT || r.Usable {
			continue
		}
		if g := x.net.nat[r.Target]; g != nil && natAvailablePublic(g) {
			if on := followNAT(x, g); on.cause != "" {
				return "its subnet routes to " + g.ID + ", " + on.cause
			}
		}
	}
	return ""
}

// natFix says how to make the NAT gateway a subnet's default route goes to a way out, "" when
// the default route goes to no available public NAT gateway whose onward path is the problem.
func natFix(x *Index, w WayOut) string {
	for _, r := range w.DefaultRoutes {
		if r.Kind != routeNAT || r.Usable {
			continue
		}
		if g := x.net.nat[r.Target]; g != nil && natAvailablePublic(g) {
			if on := followNAT(x, g); on.fix != "" {
				return on.fix
			}
		}
	}
	return ""
}

// natAvailablePublic reports whether a NAT gateway is available and public.
func natAvailablePublic(g *snapshot.NATGateway) bool {
	return strings.EqualFold(g.State, "available") && !strings.EqualFold(g.ConnectivityType, "private")
}
