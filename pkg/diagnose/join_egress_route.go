package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specSubnetNoEgressRoute = &Spec{
	ID:       "subnet-no-egress-route",
	Severity: Critical,
	Lower:    []Severity{Info},
	Family:   FamilyJoin,
	Needs:    []string{snapshot.SourceDescribeRouteTables},
	Examines: []string{SubjectSubnet},
	Title:    "a node subnet has neither a usable default route nor the VPC endpoints nodes need to join",
	FiresWhen: "a subnet that a node, a NodeClaim without a Node or an EC2NodeClass's `status.subnets` uses has no " +
		"usable `0.0.0.0/0` route (none; `blackhole`; a NAT gateway that is not available; an internet gateway while " +
		"its instances get no public IPv4: no `PublicIp`, or `associatePublicIPAddress`/`MapPublicIpOnLaunch` off for " +
		"new nodes; `::/0` through an internet or egress-only gateway counts in an IPv6 subnet; or a NAT gateway whose " +
		"way on fails: a public one whose route table, its subnet's (its association, else the VPC's main table) or " +
		"a regional gateway's own `RouteTableId`, sends `0.0.0.0/0` to no internet gateway; a private one " +
		"(`ConnectivityType=private`) whose subnet sends `0.0.0.0/0` to an internet gateway, which drops its traffic, " +
		"or nowhere; a regional one whose zones are managed by hand (`AutoProvisionZones=disabled`) with no address " +
		"in the node subnet's zone; a zonal one whose subnet's network ACL denies TCP 443 in from the node subnet, the " +
		"replies out to the nodes' ephemeral ports (Linux 32768-60999, Windows 49152-65535), or for a public one TCP " +
		"443 out to the internet or the replies in on the NAT gateway's ports 1024-65535) and its VPC lacks a usable " +
		"endpoint for one of `ec2`, `ecr.api`, `ecr.dkr`, `sts` (Interface, available, private DNS on) and `s3` (a " +
		"Gateway endpoint on the subnet's route table, or an Interface one). " +
		"Info when the default route goes to a target karpnet cannot follow (transit gateway, Gateway Load Balancer " +
		"or Network Firewall endpoint, network interface such as a NAT instance, peering connection, virtual private " +
		"gateway, carrier gateway), or to a NAT gateway whose route table sends `0.0.0.0/0` to such a target (a " +
		"Network Firewall endpoint before the internet gateway; a private NAT gateway to a transit or virtual private " +
		"gateway, the central-egress pattern): it is assumed to be a way out",
	NotOn: "subnets whose route table or VPC endpoints were not read (a snapshot written before karpnet read them, " +
		"or a gap); a private cluster with every endpoint and no default route; the EKS API endpoint itself (karpnet " +
		"calls no EKS API, so it does not read the cluster's endpoint access, and assumes the private endpoint " +
		"is on); the endpoints' own security groups; a blackhole or broken default route when every endpoint is " +
		"there (nodes still join); a NAT gateway whose route table or network ACL was not read (assumed to route " +
		"on); a regional NAT gateway that provisions its zones itself, or whose zones were not read; a node subnet " +
		"whose CIDR was not read (the NAT subnet's ACL judged leniently); what lies past a transit or virtual " +
		"private gateway",
	Why: "a node that cannot reach ECR, STS and EC2 never pulls its pause and CNI images and never registers; " +
		"Karpenter deletes the NodeClaim after its 15-minute registration TTL and launches another into the same " +
		"subnet, while pods stay Pending",
	Remedy: "a `0.0.0.0/0` route to an available public NAT gateway (regional, or zonal in a public subnet) " +
		"(`aws ec2 create-route`); for a NAT gateway without an internet gateway route, a route table of its subnet's " +
		"own (or, for a regional one, its own table) with `0.0.0.0/0` to the internet gateway; for a regional one " +
		"missing the nodes' zone, an address there (`aws ec2 associate-nat-gateway-address --availability-zone`); for " +
		"a NAT subnet's network ACL, the entries it lacks; or the missing VPC endpoints (`aws ec2 create-vpc-endpoint`)",
	Scope: "ways out to choose from, each alone enough: a route in the NAT gateway's own route table or a network ACL entry in its subnet (which every subnet on that table or ACL shares), the subnet's MapPublicIpOnLaunch (instances launched there from now on), a 0.0.0.0/0 route of the node subnet's route table to an available NAT gateway (every subnet on that table), or the missing VPC endpoints (private DNS then answers for the service across the VPC; a gateway endpoint serves its route table's subnets); each command's Affects names the nodes, and a value karpnet cannot know (an Elastic IP, a new gateway's ID) stays in prose",
	Sources: []string{
		"https://docs.aws.amazon.com/eks/latest/userguide/private-clusters.html (required VPC endpoints)",
		"https://docs.aws.amazon.com/vpc/latest/userguide/VPC_Route_Tables.html (main table, explicit association, blackhole)",
		"https://docs.aws.amazon.com/vpc/latest/userguide/vpc-nat-gateway.html (public and private connectivity; a public NAT gateway sits in a public subnet with an Elastic IP and routes to the internet gateway)",
		"https://docs.aws.amazon.com/vpc/latest/userguide/nat-gateways-regional.html (a regional NAT gateway needs no public subnet; EC2 creates its route table with a route to the internet gateway)",
		"aws-sdk-go-v2 service/ec2 types.NatGateway (AvailabilityMode, RouteTableId, AutoProvisionZones, NatGatewayAddresses)",
		"https://docs.aws.amazon.com/vpc/latest/userguide/nacl-ephemeral-ports.html (a NAT gateway uses ports 1024-65535)",
		"https://repost.aws/questions/QUXCMnwMMtSU2FxazvMv5rKQ (network ACL of a NAT gateway's subnet: inbound TCP 1024-65535 for the replies)",
		"https://docs.aws.amazon.com/vpc/latest/privatelink/vpc-endpoints-s3.html (gateway endpoint route tables)",
		"https://docs.aws.amazon.com/vpc/latest/userguide/vpc-ip-addressing.html (public IPv4 on launch)",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/liveness.go (15-minute registration TTL)",
		"aws/karpenter-provider-aws issues #7917, #6084, #5405 (nodes never join from subnets without egress)",
	},
	Verified: []Verified{
		{UpstreamEC2API, "types/types.go (NatGateway.AvailabilityMode, RouteTableId, SubnetId)",
			"a NAT gateway is zonal (one zone) or regional (multi-AZ); RouteTableId is set for regional NAT gateways only; SubnetId is the subnet a zonal one is located in"},
		{UpstreamEC2API, "types/types.go (NatGateway.AutoProvisionZones, NatGatewayAddress.AvailabilityZone)",
			"with AutoProvisionZones enabled a regional gateway associates addresses in all AZs where the VPC has subnets and expands to new ones; disabled, the AZs it supports are managed by hand; each address names the AZ whose outbound traffic it handles"},
		{UpstreamEC2API, "api_op_AssociateNatGatewayAddress.go (AssociateNatGatewayAddressInput.AvailabilityZone)",
			"a regional NAT gateway uses a separate address in each AZ to handle outbound NAT traffic from that AZ; an address is added to an AZ by AvailabilityZone or AvailabilityZoneId"},
		{UpstreamEC2API, "api_op_CreateNatGateway.go (CreateNatGateway)",
			"with a private NAT gateway, traffic is routed across VPCs and on-premises networks through a transit gateway or virtual private gateway"},
		{UpstreamEC2API, "api_op_CreateVpcEndpoint.go (CreateVpcEndpointInput.SecurityGroupIds)",
			"an interface endpoint's network interfaces get the security groups named; without SecurityGroupIds, the VPC's default security group"},
		{UpstreamEC2API, "enums.go (AvailabilityMode, AutoProvisionZonesState, NatGatewayAddressStatus)",
			"values zonal/regional, enabled/disabled, and address status succeeded/failed and the transitional ones"},
		{UpstreamAWSDocs, "https://docs.aws.amazon.com/vpc/latest/userguide/nat-gateways-regional.html",
			"a regional NAT gateway needs no public subnet; AWS creates a route table for it with a pre-configured route to the internet gateway; private subnets in all AZs can route to its single ID"},
		{UpstreamAWSDocs, "https://docs.aws.amazon.com/vpc/latest/userguide/vpc-nat-gateway.html",
			"a public NAT gateway sits in a public subnet and routes to the internet gateway; a private NAT gateway routes through a transit or virtual private gateway, and an internet gateway drops traffic routed to it from a private NAT gateway"},
		{UpstreamAWSDocs, "https://docs.aws.amazon.com/vpc/latest/userguide/nacl-ephemeral-ports.html",
			"a NAT gateway uses ports 1024-65535; Linux kernels use 32768-61000, Windows Server 2008 and later 49152-65535"},
		{UpstreamKarpenterCore, "pkg/controllers/nodeclaim/lifecycle/liveness.go (registrationTimeout)",
			"a NodeClaim not registered 15 minutes after its Registered transition is deleted"},
	},
}

// subnetNoEgressRoute finds the subnets nodes run in or launch into that have no way out: no
// default route that gets their instances to the internet (none, blackhole, a NAT gateway
// that is not an available public one or whose own subnet does not route to an internet
// gateway, the classic NAT-in-the-wrong-subnet mistake, an internet gateway for instances
// without a public IPv4 address) and not every VPC endpoint a node needs to join. Such nodes never pull the
// pause and aws-node images or reach STS and EC2, never register, and Karpenter deletes
// their NodeClaims after 15 minutes and launches again. Routes to targets karpnet cannot
// follow (transit gateway, firewall endpoint, ...) are an info saying what is assumed.
var subnetNoEgressRoute = Check{
	Spec: specSubnetNoEgressRoute,
	Run: func(x *Index) []Finding {
		type group struct {
			subnet *snapshot.Subnet
			w      wayout.WayOut
			users  []string
		}
		groups := map[string]*group{}
		var order []string
		for _, s := range pathSubjects(x) {
			w := x.net.Decide(s.subnet, s.pub, s.windows)
			if w.Verdict != wayout.WayOutNone && w.Verdict != wayout.WayOutAssumed {
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
			if g.w.Verdict == wayout.WayOutAssumed {
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
					"reachable through the cluster's private endpoint (karpnet calls no EKS API, so it does "+
					"not read the cluster's endpoint access); %s", g.subnet.ID, table, g.w.Reason, users),
			})
			f := &out[len(out)-1]
			f.Remedy, f.Commands = egressRemedy(x, g.subnet, g.w)
		}
		return out
	},
}

// egressRemedy says how to give a subnet a way out, each way with its commands where karpnet
// knows every value they need: repair the NAT gateway its default route goes to, give the
// nodes public addresses when the route goes to an internet gateway, send 0.0.0.0/0 to an
// available public NAT gateway of its VPC (replacing an unusable route), or, for a private
// cluster, create or repair the missing VPC endpoints. The ways are alternatives: the prose
// says so, and names the commands of each.
func egressRemedy(x *Index, subnet *snapshot.Subnet, w wayout.WayOut) (string, []Command) {
	var ways []string
	var cmds []Command
	if fix, changes := x.net.NATFix(w); fix != "" {
		ways = append(ways, fix)
		cmds = append(cmds, wayOutCommands(x, changes)...)
	}
	for _, r := range w.DefaultRoutes {
		if r.Kind == wayout.RouteInternet && !r.Usable {
			ways = append(ways, "give the new nodes a public IPv4 address: spec.associatePublicIPAddress: true on the "+
				"EC2NodeClass, or the subnet's MapPublicIpOnLaunch (the modify-subnet-attribute command)")
			cmds = append(cmds, Command{Argv: []string{"aws", "ec2", "modify-subnet-attribute", "--subnet-id", subnet.ID,
				"--map-public-ip-on-launch"}, Changes: "subnet/" + subnet.ID,
				Affects: "instances launched into " + subnet.ID + " from now on; running ones keep their addresses (" +
					nodesAffected(x, "subnet/"+subnet.ID, func(n *NodeInfo) bool { return n.Subnet != nil && n.Subnet.ID == subnet.ID }) + " there now)"})
			break
		}
	}
	nat := ""
	for i := range x.Snapshot.NATGateways {
		g := &x.Snapshot.NATGateways[i]
		if g.VpcID == subnet.VpcID && x.net.PublicNATWayOut(g, w) {
			nat = g.ID
			break
		}
	}
	replace := slices.ContainsFunc(w.DefaultRoutes, func(r wayout.DefaultRoute) bool { return r.Destination == "0.0.0.0/0" })
	table := x.net.TableByID(w.RouteTable)
	switch {
	case nat != "" && table != nil:
		ways = append(ways, fmt.Sprintf("send 0.0.0.0/0 of %s to NAT gateway %s (the %s command)", w.RouteTable, nat,
			map[bool]string{false: "create-route", true: "replace-route"}[replace]))
		cmds = append(cmds, wayOutCommand(x, wayout.RouteChange(table, replace, "--nat-gateway-id", nat)))
	default:
		// No usable NAT gateway exists: its ID is known only once the user has created one.
		op := map[bool]string{false: "CreateRoute", true: "ReplaceRoute"}[replace]
		ways = append(ways, fmt.Sprintf("create a public NAT gateway in a public subnet of %s (EC2 CreateNatGateway), "+
			"then send 0.0.0.0/0 of %s to it (EC2 %s)", subnet.VpcID, w.RouteTable, op))
	}
	if len(w.MissingEndpoints) > 0 {
		fixes := wayOutCommands(x, w.Fixes())
		verbs := map[string]bool{}
		for _, c := range fixes {
			verbs[c.Argv[2]] = true
		}
		endpoints := "for a private cluster, add the missing VPC endpoints"
		if len(verbs) > 0 {
			endpoints += " (the " + strings.Join(sortedKeys(verbs), " and ") + " " +
				plural(len(fixes), "command", "commands") + ")"
		}
		var notes []string
		if slices.ContainsFunc(fixes, func(c Command) bool { return slices.Contains(c.Argv, "Interface") }) {
			if g := endpointGroup(x, subnet); g != "" {
				for i, c := range fixes {
					if slices.Contains(c.Argv, "Interface") {
						fixes[i].Argv = append(slices.Clone(c.Argv), "--security-group-ids", g)
					}
				}
				notes = append(notes, "the interface endpoints get security group "+g+", which admits TCP 443 from "+
					subnet.ID+"'s nodes")
			} else {
				notes = append(notes, "an interface endpoint needs a security group that admits TCP 443 from the node "+
					"subnets: no group karpnet read does, so the commands name none and EC2 gives the endpoints the "+
					"VPC's default security group; add --security-group-ids with yours if that one does not")
			}
		}
		if created := len(fixes); created < len(w.MissingEndpoints) {
			notes = append(notes, "the Region is not known, so some endpoints have no command: their service name is "+
				"com.amazonaws. followed by the cluster's Region and the service")
		}
		if len(notes) > 0 {
			endpoints += " (" + strings.Join(notes, "; ") + ")"
		}
		inVPC := nodesAffected(x, "vpc/"+subnet.VpcID, func(n *NodeInfo) bool { return n.Subnet != nil && n.Subnet.VpcID == subnet.VpcID })
		for i, c := range fixes {
			switch {
			case slices.Contains(c.Argv, "--private-dns-enabled"):
				fixes[i].Affects = "private DNS sends the service's name to the endpoint across " + subnet.VpcID + ": " + inVPC
			case table != nil && slices.Contains(c.Argv, "Gateway"):
				fixes[i].Affects = "S3 traffic of " + routeTableAffects(x, table)
			}
		}
		ways = append(ways, endpoints)
		cmds = append(cmds, fixes...)
	}
	out := ways[0]
	if len(ways) > 1 {
		out = "one of these ways, each with its own commands: " + strings.Join(ways, "; or ")
	}
	return out, cmds
}
