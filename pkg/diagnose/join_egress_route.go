package diagnose

import (
	"fmt"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// subnetNoEgressRoute finds the subnets nodes run in or launch into that have no way out: no
// default route that gets their instances to the internet (none, blackhole, a NAT gateway
// that is not an available public one, an internet gateway for instances without a public
// IPv4 address) and not every VPC endpoint a node needs to join. Such nodes never pull the
// pause and aws-node images or reach STS and EC2, never register, and Karpenter deletes
// their NodeClaims after 15 minutes and launches again. Routes to targets karpnet cannot
// follow (transit gateway, firewall endpoint, ...) are an info saying what is assumed.
var subnetNoEgressRoute = Check{
	Spec: specSubnetNoEgressRoute,
	Run: func(x *Index) []Finding {
		type group struct {
			subnet *snapshot.Subnet
			w      WayOut
			users  []string
		}
		groups := map[string]*group{}
		var order []string
		for _, s := range pathSubjects(x) {
			w := wayOut(x, s.subnet, s.pub)
			if w.Verdict != WayOutNone && w.Verdict != WayOutAssumed {
				continue
			}
			key := s.subnet.ID + "\x00" + w.Verdict + "\x00" + w.Reason
			g := groups[key]
			if g == nil {
				g = &group{subnet: s.subnet, w: w}
				groups[key] = g
				order = append(order, key)
			}
			g.users = append(g.users, s.label)
		}
		var out []Finding
		for _, key := range order {
			g := groups[key]
			table := "route table " + g.w.RouteTable
			if g.w.MainTable {
				table += " (the VPC's main table)"
			}
			users := "used by " + abbreviate(sortedUnique(g.users), 5)
			if g.w.Verdict == WayOutAssumed {
				out = append(out, Finding{
					Severity: Info, Resource: subnetRef(g.subnet.ID),
					Message: fmt.Sprintf("subnet %s (%s) gets out only by %s; %s", g.subnet.ID, table, g.w.Reason, users),
					Remedy: "make sure that target reaches the internet (a NAT gateway behind it) or the VPC endpoints " +
						"of ec2, ecr.api, ecr.dkr, s3 and sts, and that the EKS API endpoint is reachable",
				})
				continue
			}
			out = append(out, Finding{
				Resource: subnetRef(g.subnet.ID),
				Message: fmt.Sprintf("subnet %s (%s) has no way out for nodes to join: %s; the EKS API is assumed "+
					"reachable through the cluster's private endpoint (karpnet cannot read its endpoint access "+
					"without eks:DescribeCluster); %s", g.subnet.ID, table, g.w.Reason, users),
				Remedy: egressRemedy(x, g.subnet, g.w),
			})
		}
		return out
	},
}

// egressRemedy gives the commands that give a subnet a way out: a default route to an
// available public NAT gateway of its VPC (replacing an unusable one), or the missing VPC
// endpoints for a private cluster.
func egressRemedy(x *Index, subnet *snapshot.Subnet, w WayOut) string {
	nat := "NAT_GATEWAY_ID"
	for _, g := range x.Snapshot.NATGateways {
		if g.VpcID == subnet.VpcID && strings.EqualFold(g.State, "available") && !strings.EqualFold(g.ConnectivityType, "private") {
			nat = g.ID
			break
		}
	}
	verb := "create-route"
	for _, r := range w.DefaultRoutes {
		if r.Destination == "0.0.0.0/0" {
			verb = "replace-route"
		}
	}
	route := fmt.Sprintf("`aws ec2 %s --route-table-id %s --destination-cidr-block 0.0.0.0/0 --nat-gateway-id %s`",
		verb, w.RouteTable, nat)
	if nat == "NAT_GATEWAY_ID" {
		route += " (with a public NAT gateway in a public subnet of " + subnet.VpcID + ")"
	}
	out := "route the subnet's default traffic through a NAT gateway: " + route
	for _, r := range w.DefaultRoutes {
		if r.Kind == routeInternet && !r.Usable {
			out = "give the new nodes a public IPv4 address (`spec.associatePublicIPAddress: true` on the " +
				"EC2NodeClass, or `aws ec2 modify-subnet-attribute --subnet-id " + subnet.ID +
				" --map-public-ip-on-launch`), or " + out
			break
		}
	}
	if len(w.fixes) > 0 {
		out += "; or, for a private cluster, add the missing VPC endpoints: `" + strings.Join(w.fixes, "`; `") + "`"
	}
	return out
}
