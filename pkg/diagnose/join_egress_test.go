package diagnose

import (
	"strconv"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// unregisteredClaim adds a NodeClaim without a Node whose instance runs in subnetA.
func unregisteredClaim(s *snapshot.Snapshot) {
	in := instance("i-0cccc000000000001", "10.0.1.50")
	s.Instances = append(s.Instances, in)
	s.NodeClaims = append(s.NodeClaims, snapshot.NodeClaim{Name: "default-zzzzz",
		Labels:       map[string]string{snapshot.LabelNodePool: "default"},
		NodeClassRef: snapshot.NodeClassRef{Group: snapshot.AWSGroup, Kind: snapshot.KindEC2NodeClass, Name: "default"},
		ProviderID:   "aws:///us-west-2a/" + in.ID})
}

func TestSubnetNoEgressRoute(t *testing.T) {
	// With no usable NAT gateway, its ID is the user's to make: the route is said in prose.
	const newNAT = "create a public NAT gateway in a public subnet of vpc-0abc (EC2 CreateNatGateway), then send " +
		"0.0.0.0/0 of rtb-0main to it (EC2 ReplaceRoute)"
	const oneNode = "1 node (m5.large)"
	iface := func(svc string) Command {
		return Command{Argv: []string{"aws", "ec2", "create-vpc-endpoint", "--vpc-id", "vpc-0abc", "--vpc-endpoint-type",
			"Interface", "--service-name", "com.amazonaws.us-west-2." + svc, "--subnet-ids", "subnet-0aaa",
			"--private-dns-enabled"}, Changes: "vpc/vpc-0abc: an interface endpoint for com.amazonaws.us-west-2." + svc +
			" in subnet-0aaa", Affects: "private DNS sends the service's name to the endpoint across vpc-0abc: " + oneNode}
	}
	s3 := Command{Argv: []string{"aws", "ec2", "create-vpc-endpoint", "--vpc-id", "vpc-0abc", "--vpc-endpoint-type",
		"Gateway", "--service-name", "com.amazonaws.us-west-2.s3", "--route-table-ids", "rtb-0main"},
		Changes: "vpc/vpc-0abc: a gateway endpoint for com.amazonaws.us-west-2.s3 on route table rtb-0main",
		Affects: "S3 traffic of every subnet of route table rtb-0main: " + oneNode}
	allEndpointFixes := []Command{iface("ec2"), iface("ecr.api"), iface("ecr.dkr"), s3, iface("sts")}
	// route is the command that points a table's 0.0.0.0/0 at a target.
	route := func(verb, table, flag, target, affects string) Command {
		return Command{Argv: []string{"aws", "ec2", verb, "--route-table-id", table, "--destination-cidr-block", "0.0.0.0/0",
			flag, target}, Changes: "route-table/" + table, Affects: "every subnet of route table " + table + ": " + affects}
	}
	// The ways out are alternatives, each named with its commands.
	const ways = "one of these ways, each with its own commands: "
	const natRoute = "send 0.0.0.0/0 of rtb-0main to NAT gateway nat-0aaa (the create-route command)"
	// endpoints names the endpoint commands; the security group an interface endpoint needs is
	// said in prose when no group karpnet read admits the nodes.
	endpoints := func(verbs string, n int) string {
		return "; or for a private cluster, add the missing VPC endpoints (the " + verbs + " " +
			plural(n, "command", "commands") + ")"
	}
	const sgNote = " (an interface endpoint needs a security group that admits TCP 443 from the node subnets: no " +
		"group karpnet read does, so the commands name none and EC2 gives the endpoints the VPC's default security " +
		"group; add --security-group-ids with yours if that one does not)"
	users := "used by EC2NodeClass default, node " + nodeA
	eks := "; the EKS API is assumed reachable through the cluster's private endpoint (karpnet calls no EKS API, so it " +
		"does not read the cluster's endpoint access); "
	// natEntry is the command that adds an allow entry for the node subnet to the NAT subnet's ACL.
	natEntry := func(dir, ports string) Command {
		return Command{Argv: []string{"aws", "ec2", "create-network-acl-entry", "--network-acl-id", "acl-0natsubnet", dir,
			"--rule-number", "32766", "--protocol", "6", "--port-range", ports, "--cidr-block", "10.0.1.0/24",
			"--rule-action", "allow"}, Changes: "network-acl/acl-0natsubnet",
			Affects: "every subnet of network ACL acl-0natsubnet: no node now"}
	}
	runCheckCases(t, subnetNoEgressRoute, []checkCase{
		{name: "a snapshot without route tables is silent"},
		{name: "an available public NAT gateway is silent", edit: withNATPath},
		{name: "a private cluster with every endpoint is silent", edit: edits(withoutDefaultRoute, withEndpoints)},
		{name: "an internet gateway with public IPs is silent", edit: edits(defaultRoute("igw-0a", snapshot.RouteActive),
			func(s *snapshot.Snapshot) {
				s.Instances[0].PublicIP = "203.0.113.10"
				s.Subnets[0].MapPublicIPOnLaunch = true
			})},
		{name: "endpoints not read are silent", edit: edits(withoutDefaultRoute, gap(snapshot.SourceDescribeVpcEndpoints))},
		{
			name: "no route and two endpoints missing fire, with the commands",
			edit: edits(withoutDefaultRoute, withEndpoints, func(s *snapshot.Snapshot) {
				s.VPCEndpoints = s.VPCEndpoints[1:4]
			}),
			want: []Finding{{ID: "subnet-no-egress-route", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "subnet subnet-0aaa (route table rtb-0main (the VPC's main table)) has no way out for nodes to " +
					"join: no default route; VPC endpoints missing: ec2, s3" + eks + users,
				Remedy:   ways + natRoute + endpoints("create-vpc-endpoint", 2) + sgNote,
				Commands: []Command{route("create-route", "rtb-0main", "--nat-gateway-id", "nat-0aaa", oneNode), iface("ec2"), s3}}},
		},
		{
			name: "without the Region the endpoints are said in prose, with no command",
			edit: edits(withoutDefaultRoute, withEndpoints, func(s *snapshot.Snapshot) {
				s.VPCEndpoints = s.VPCEndpoints[1:4]
				s.Region = ""
				s.Subnets[0].Zone = ""
			}),
			want: []Finding{{ID: "subnet-no-egress-route", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "subnet subnet-0aaa (route table rtb-0main (the VPC's main table)) has no way out for nodes to " +
					"join: no default route; VPC endpoints missing: ec2, s3" + eks + users,
				Remedy: ways + natRoute + "; or for a private cluster, add the missing VPC endpoints (the Region is not " +
					"known, so some endpoints have no command: their service name is com.amazonaws. followed by the " +
					"cluster's Region and the service)",
				Commands: []Command{route("create-route", "rtb-0main", "--nat-gateway-id", "nat-0aaa", oneNode)}}},
		},
		{
			name: "a deleted NAT gateway fires for the node and the unregistered NodeClaim",
			edit: edits(withNATPath, unregisteredClaim, func(s *snapshot.Snapshot) {
				s.NATGateways[0].State = "deleted"
				s.NATGateways = append(s.NATGateways, snapshot.NATGateway{ID: "nat-0bbb", VpcID: vpcA, SubnetID: subnetPublic,
					State: "available"})
				withEndpoints(s)
				s.VPCEndpoints[0].PrivateDNS = false
				s.VPCEndpoints = s.VPCEndpoints[:4]
			}),
			want: []Finding{{ID: "subnet-no-egress-route", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "subnet subnet-0aaa (route table rtb-0main (the VPC's main table)) has no way out for nodes to " +
					"join: default route 0.0.0.0/0 -> nat-0aaa (NAT gateway is deleted, not available) unusable; VPC " +
					"endpoints missing: ec2 (vpce-ec2 has private DNS off), s3" + eks +
					"used by EC2NodeClass default, NodeClaim default-zzzzz, node " + nodeA,
				Remedy: ways + "send 0.0.0.0/0 of rtb-0main to NAT gateway nat-0bbb (the replace-route command)" +
					endpoints("create-vpc-endpoint and modify-vpc-endpoint", 2),
				Commands: []Command{route("replace-route", "rtb-0main", "--nat-gateway-id", "nat-0bbb", oneNode),
					{Argv: []string{"aws", "ec2", "modify-vpc-endpoint", "--vpc-endpoint-id", "vpce-ec2", "--private-dns-enabled"},
						Changes: "vpc-endpoint/vpce-ec2", Affects: "private DNS sends the service's name to the endpoint across vpc-0abc: " + oneNode},
					s3}}},
		},
		{
			name: "a NAT gateway without an internet gateway route fires with the fix of its subnet",
			edit: natOnMainTable,
			want: []Finding{{ID: "subnet-no-egress-route", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "subnet subnet-0aaa (route table rtb-0main (the VPC's main table)) has no way out for nodes to " +
					"join: default route 0.0.0.0/0 -> nat-0aaa (public NAT gateway in subnet-0public (203.0.113.20), " +
					"whose route table rtb-0main (the VPC's main table) has no internet gateway route (0.0.0.0/0 -> " +
					"nat-0aaa)) unusable; VPC endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts" + eks + users,
				Remedy: ways + "give subnet-0public, where NAT gateway nat-0aaa sits, a route table of its own that sends " +
					"0.0.0.0/0 to the internet gateway: create one in vpc-0abc (the command), then, with the ID of the table " +
					"it creates (unknown until then), a 0.0.0.0/0 route to the internet gateway attached to vpc-0abc (no " +
					"route table of it names one) (EC2 CreateRoute) and the table's association with subnet-0public (EC2 " +
					"AssociateRouteTable); or " + newNAT + endpoints("create-vpc-endpoint", 5) + sgNote,
				Commands: append([]Command{{Argv: []string{"aws", "ec2", "create-route-table", "--vpc-id", "vpc-0abc"},
					Changes: "vpc/vpc-0abc: a new route table, used by no subnet until it is associated", Affects: "no node now"}},
					allEndpointFixes...)}},
		},
		{
			name: "a NAT gateway whose own table lost its internet gateway route names the gateway to route to",
			edit: edits(natPublicRoute("", ""), withEndpoints, func(s *snapshot.Snapshot) {
				s.VPCEndpoints = s.VPCEndpoints[:4]
				s.RouteTables = append(s.RouteTables, snapshot.RouteTable{ID: "rtb-0edge", VpcID: vpcA,
					Routes: []snapshot.Route{{Destination: "0.0.0.0/0", Target: "igw-0edge", State: snapshot.RouteActive}}})
			}),
			want: []Finding{{ID: "subnet-no-egress-route", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "subnet subnet-0aaa (route table rtb-0main (the VPC's main table)) has no way out for nodes to " +
					"join: default route 0.0.0.0/0 -> nat-0aaa (public NAT gateway in subnet-0public (203.0.113.20), " +
					"whose route table rtb-0public has no internet gateway route) unusable; VPC endpoints missing: s3" +
					eks + users,
				Remedy: ways + "route subnet-0public, where NAT gateway nat-0aaa sits, to internet gateway igw-0edge (the " +
					"command); or " + newNAT + endpoints("create-vpc-endpoint", 1),
				Commands: []Command{route("create-route", "rtb-0public", "--gateway-id", "igw-0edge", "no node now"), s3}}},
		},
		{name: "a regional NAT gateway whose own table routes to the internet gateway is silent", edit: withRegionalNAT},
		{
			name: "a regional NAT gateway whose own table lost its internet gateway route names that table, no subnet",
			edit: edits(regionalNATRoute(""), withEndpoints, func(s *snapshot.Snapshot) { s.VPCEndpoints = s.VPCEndpoints[:4] }),
			want: []Finding{{ID: "subnet-no-egress-route", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "subnet subnet-0aaa (route table rtb-0main (the VPC's main table)) has no way out for nodes to " +
					"join: default route 0.0.0.0/0 -> nat-0regional (regional public NAT gateway (203.0.113.30), whose " +
					"route table rtb-0natregional has no internet gateway route) unusable; VPC endpoints missing: s3" +
					eks + users,
				Remedy: ways + "route regional NAT gateway nat-0regional's route table rtb-0natregional to the internet gateway " +
					"attached to vpc-0abc: a 0.0.0.0/0 route of rtb-0natregional to it (EC2 CreateRoute; no route table of " +
					"vpc-0abc names one); or " + newNAT + endpoints("create-vpc-endpoint", 1), Commands: []Command{s3}}},
		},
		{
			name: "a regional NAT gateway without an address in the nodes' zone says how to add one",
			edit: edits(regionalNATZones("us-west-2b"), withEndpoints, func(s *snapshot.Snapshot) { s.VPCEndpoints = s.VPCEndpoints[:4] }),
			want: []Finding{{ID: "subnet-no-egress-route", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "subnet subnet-0aaa (route table rtb-0main (the VPC's main table)) has no way out for nodes to " +
					"join: default route 0.0.0.0/0 -> nat-0regional (regional public NAT gateway (203.0.113.30), whose " +
					"zones are managed by hand (AutoProvisionZones disabled), has no address in us-west-2a: it serves " +
					"us-west-2b only) unusable; VPC endpoints missing: s3" + eks + users,
				Remedy: ways + "give NAT gateway nat-0regional an address in us-west-2a: associate an Elastic IP you allocate " +
					"with it in us-west-2a (EC2 AssociateNatGatewayAddress with the Elastic IP's allocation ID and " +
					"AvailabilityZone us-west-2a); or " + newNAT + endpoints("create-vpc-endpoint", 1),
				Commands: []Command{s3}}},
		},
		{
			name: "a private NAT gateway without a default route says to route it to a transit gateway, unnamed",
			edit: edits(withPrivateNAT(""), withEndpoints, func(s *snapshot.Snapshot) { s.VPCEndpoints = s.VPCEndpoints[:4] }),
			want: []Finding{{ID: "subnet-no-egress-route", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "subnet subnet-0aaa (route table rtb-0main (the VPC's main table)) has no way out for nodes to " +
					"join: default route 0.0.0.0/0 -> nat-0aaa (private NAT gateway in subnet-0public, whose route table " +
					"rtb-0public has no default route to a transit or virtual private gateway) unusable; VPC endpoints " +
					"missing: s3" + eks + users,
				Remedy: ways + "route subnet-0public, where NAT gateway nat-0aaa sits, to the transit gateway (or virtual private " +
					"gateway) that leads to your egress VPC or on-premises network: a 0.0.0.0/0 route of rtb-0public to it " +
					"(EC2 CreateRoute; no route table of vpc-0abc names one); or " + newNAT + endpoints("create-vpc-endpoint", 1),
				Commands: []Command{s3}}},
		},
		{
			name: "a private NAT gateway without a default route names the transit gateway the VPC routes to",
			edit: edits(withPrivateNAT(""), withEndpoints, func(s *snapshot.Snapshot) {
				s.VPCEndpoints = s.VPCEndpoints[:4]
				s.RouteTables = append(s.RouteTables, snapshot.RouteTable{ID: "rtb-0shared", VpcID: vpcA,
					Routes: []snapshot.Route{{Destination: "10.1.0.0/16", Target: "tgw-0egress", State: snapshot.RouteActive}}})
			}),
			want: []Finding{{ID: "subnet-no-egress-route", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "subnet subnet-0aaa (route table rtb-0main (the VPC's main table)) has no way out for nodes to " +
					"join: default route 0.0.0.0/0 -> nat-0aaa (private NAT gateway in subnet-0public, whose route table " +
					"rtb-0public has no default route to a transit or virtual private gateway) unusable; VPC endpoints " +
					"missing: s3" + eks + users,
				Remedy: ways + "route subnet-0public, where NAT gateway nat-0aaa sits, to the transit gateway (or virtual private " +
					"gateway) that leads to your egress VPC or on-premises network (the command; tgw-0egress is the transit " +
					"gateway other route tables of vpc-0abc use); or " + newNAT + endpoints("create-vpc-endpoint", 1),
				Commands: []Command{route("create-route", "rtb-0public", "--transit-gateway-id", "tgw-0egress", "no node now"), s3}}},
		},
		{
			name: "a private NAT gateway behind a transit gateway is an info",
			edit: withPrivateNAT("tgw-0egress"),
			want: []Finding{{ID: "subnet-no-egress-route", Severity: Info, Resource: "subnet/" + subnetA,
				Message: "subnet subnet-0aaa (route table rtb-0main (the VPC's main table)) gets out only by route " +
					"0.0.0.0/0 -> nat-0aaa: private NAT gateway in subnet-0public, whose route table rtb-0public sends " +
					"0.0.0.0/0 to tgw-0egress (transit gateway): karpnet cannot follow it and assumes it leads to a " +
					"network that reaches the internet or the endpoints (a central egress VPC, on-premises); " + users,
				Remedy: "make sure that target reaches the internet (a NAT gateway behind it) or the VPC endpoints of ec2, " +
					"ecr.api, ecr.dkr, s3 and sts, and that the EKS API endpoint is reachable"}},
		},
		{
			name: "a NAT gateway whose subnet's ACL drops the nodes' side names each direction and its rule",
			edit: edits(withNATPath, withEndpoints, natSubnetOwnACL(natSubnetHardened[1:3]...), func(s *snapshot.Snapshot) {
				s.VPCEndpoints = s.VPCEndpoints[:4]
			}),
			want: []Finding{{ID: "subnet-no-egress-route", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "subnet subnet-0aaa (route table rtb-0main (the VPC's main table)) has no way out for nodes to " +
					"join: default route 0.0.0.0/0 -> nat-0aaa (public NAT gateway in subnet-0public (203.0.113.20), whose " +
					"subnet's network ACL acl-0natsubnet drops the traffic it forwards: inbound TCP 443 from the nodes' " +
					"subnet subnet-0aaa (10.0.1.0/24) denied by rule 32767; outbound TCP replies to the nodes' subnet " +
					"subnet-0aaa (10.0.1.0/24) on the Linux ephemeral ports 32768-60999 denied on 32768-60999 by rule " +
					"32767) unusable; VPC endpoints missing: s3" + eks + users,
				Remedy: ways + "allow it in network ACL acl-0natsubnet of subnet-0public with entries numbered below the " +
					"denying rules (the commands); or " + newNAT + endpoints("create-vpc-endpoint", 1),
				Commands: []Command{natEntry("--ingress", "From=443,To=443"), natEntry("--egress", "From=32768,To=60999"), s3}}},
		},
		{
			name: "a NAT gateway behind a firewall endpoint is an info",
			edit: natPublicRoute("vpce-0fw", snapshot.RouteActive),
			want: []Finding{{ID: "subnet-no-egress-route", Severity: Info, Resource: "subnet/" + subnetA,
				Message: "subnet subnet-0aaa (route table rtb-0main (the VPC's main table)) gets out only by route " +
					"0.0.0.0/0 -> nat-0aaa: public NAT gateway in subnet-0public (203.0.113.20), whose route table " +
					"rtb-0public sends 0.0.0.0/0 to vpce-0fw (Gateway Load Balancer or Network Firewall endpoint): karpnet " +
					"cannot follow it and assumes it leads to the internet; " + users,
				Remedy: "make sure that target reaches the internet (a NAT gateway behind it) or the VPC endpoints of ec2, " +
					"ecr.api, ecr.dkr, s3 and sts, and that the EKS API endpoint is reachable"}},
		},
		{name: "a NAT instance (fck-nat) is an info at most", edit: defaultRoute("eni-0fcknat", snapshot.RouteActive),
			want: []Finding{{ID: "subnet-no-egress-route", Severity: Info, Resource: "subnet/" + subnetA,
				Message: "subnet subnet-0aaa (route table rtb-0main (the VPC's main table)) gets out only by route " +
					"0.0.0.0/0 -> eni-0fcknat: network interface (an appliance or NAT instance): karpnet cannot follow it " +
					"and assumes it leads to the internet or to the endpoints; " + users,
				Remedy: "make sure that target reaches the internet (a NAT gateway behind it) or the VPC endpoints of ec2, " +
					"ecr.api, ecr.dkr, s3 and sts, and that the EKS API endpoint is reachable"}},
		},
		{
			name: "an internet gateway fires for new nodes without a public IP only",
			edit: edits(defaultRoute("igw-0a", snapshot.RouteActive), withEndpoints, func(s *snapshot.Snapshot) {
				s.Instances[0].PublicIP = "203.0.113.10"
				s.VPCEndpoints = s.VPCEndpoints[:4]
			}),
			want: []Finding{{ID: "subnet-no-egress-route", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "subnet subnet-0aaa (route table rtb-0main (the VPC's main table)) has no way out for nodes to " +
					"join: default route 0.0.0.0/0 -> igw-0a (internet gateway, but new instances get no public IPv4 " +
					"address (MapPublicIPOnLaunch off)) unusable; VPC endpoints missing: s3" + eks +
					"used by EC2NodeClass default",
				Remedy: ways + "give the new nodes a public IPv4 address: spec.associatePublicIPAddress: true on the " +
					"EC2NodeClass, or the subnet's MapPublicIpOnLaunch (the modify-subnet-attribute command); or send " +
					"0.0.0.0/0 of rtb-0main to NAT gateway nat-0aaa (the replace-route command)" + endpoints("create-vpc-endpoint", 1),
				Commands: []Command{{Argv: []string{"aws", "ec2", "modify-subnet-attribute", "--subnet-id", "subnet-0aaa",
					"--map-public-ip-on-launch"}, Changes: "subnet/subnet-0aaa", Affects: "instances launched into subnet-0aaa " +
					"from now on; running ones keep their addresses (1 node (m5.large) there now)"},
					route("replace-route", "rtb-0main", "--nat-gateway-id", "nat-0aaa", oneNode), s3}}},
		},
		{
			name: "associatePublicIPAddress true makes the internet gateway usable",
			edit: edits(defaultRoute("igw-0a", snapshot.RouteActive), func(s *snapshot.Snapshot) {
				s.Instances[0].PublicIP = "203.0.113.10"
				s.NodeClasses[0].AssociatePublicIPAddress = ptr(true)
			}),
		},
		{
			name: "a transit gateway route is an info saying what is assumed",
			edit: defaultRoute("tgw-0a", snapshot.RouteActive),
			want: []Finding{{ID: "subnet-no-egress-route", Severity: Info, Resource: "subnet/" + subnetA,
				Message: "subnet subnet-0aaa (route table rtb-0main (the VPC's main table)) gets out only by route " +
					"0.0.0.0/0 -> tgw-0a: transit gateway: karpnet cannot follow it and assumes it leads to the internet " +
					"or to the endpoints; " + users,
				Remedy: "make sure that target reaches the internet (a NAT gateway behind it) or the VPC endpoints of ec2, " +
					"ecr.api, ecr.dkr, s3 and sts, and that the EKS API endpoint is reachable"}},
		},
		{name: "a subnet that was not read is silent", edit: edits(withoutDefaultRoute, func(s *snapshot.Snapshot) {
			s.Subnets = nil
		})},
	})
}

func TestSecurityGroupEgressBlocked(t *testing.T) {
	noEgress := func(s *snapshot.Snapshot) {
		s.SecurityGroups[0].Inbound = []snapshot.Rule{{Protocol: "-1", GroupIDs: []string{sgNodes}}}
	}
	remedy := "restore the default egress rule on sg-0nodes (the command; at least TCP 443 to the endpoints' and the " +
		"cluster's addresses)"
	restore := []Command{{Argv: []string{"aws", "ec2", "authorize-security-group-egress", "--group-id", "sg-0nodes",
		"--ip-permissions", `[{"IpProtocol":"-1","IpRanges":[{"CidrIp":"0.0.0.0/0"}]}]`},
		Changes: "securitygroup/sg-0nodes", Affects: "every interface in sg-0nodes: 1 node (m5.large)"}}
	runCheckCases(t, securityGroupEgressBlocked, []checkCase{
		{name: "a group without any rule recorded is silent"},
		{name: "the default allow-all egress rule is silent", edit: edits(noEgress, func(s *snapshot.Snapshot) {
			s.SecurityGroups[0].Outbound = []snapshot.Rule{{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}}}
		})},
		{name: "TCP 443 to a prefix list is silent", edit: edits(noEgress, func(s *snapshot.Snapshot) {
			s.SecurityGroups[0].Outbound = []snapshot.Rule{{Protocol: "tcp", FromPort: 0, ToPort: 1024, PrefixListIDs: []string{"pl-0s3"}}}
		})},
		{name: "443 in a second group is silent", edit: edits(noEgress, func(s *snapshot.Snapshot) {
			s.SecurityGroups = append(s.SecurityGroups, snapshot.SecurityGroup{ID: "sg-0extra",
				Outbound: []snapshot.Rule{{Protocol: "6", FromPort: 443, ToPort: 443, CIDRs: []string{"10.0.0.0/16"}}}})
			s.Instances[0].SecurityGroups = append(s.Instances[0].SecurityGroups, snapshot.GroupRef{ID: "sg-0extra"})
			s.NodeClasses[0].StatusSecurityGroups = append(s.NodeClasses[0].StatusSecurityGroups, snapshot.SecurityGroupStatus{ID: "sg-0extra"})
		})},
		{name: "a group that was not read is silent", edit: edits(noEgress, func(s *snapshot.Snapshot) {
			s.Instances[0].SecurityGroups = append(s.Instances[0].SecurityGroups, snapshot.GroupRef{ID: "sg-0unknown"})
			s.NodeClasses[0].StatusSecurityGroups = append(s.NodeClasses[0].StatusSecurityGroups, snapshot.SecurityGroupStatus{ID: "sg-0unknown"})
		})},
		{name: "a security groups gap is silent", edit: edits(noEgress, gap(snapshot.SourceDescribeSecurityGroups))},
		{
			name: "no egress fires for the class and the node; UDP 53 and TCP 80 do not admit 443",
			edit: edits(noEgress, func(s *snapshot.Snapshot) {
				s.SecurityGroups[0].Outbound = []snapshot.Rule{
					{Protocol: "17", FromPort: 53, ToPort: 53, CIDRs: []string{"0.0.0.0/0"}},
					{Protocol: "tcp", FromPort: 80, ToPort: 80, CIDRs: []string{"0.0.0.0/0"}},
					{Protocol: "-1"},
				}
			}),
			want: []Finding{
				{ID: "security-group-egress-blocked", Severity: Critical, Resource: "ec2nodeclass/default",
					Message: "the security group sg-0nodes of EC2NodeClass default has no outbound rule admitting TCP 443 " +
						"(3 outbound rules in all): its instances cannot reach the EKS API, ECR, STS or EC2 and never join",
					Remedy: remedy, Commands: restore},
				{ID: "security-group-egress-blocked", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA,
					Message: "the security group sg-0nodes of node " + nodeA + " has no outbound rule admitting TCP 443 " +
						"(3 outbound rules in all): its instances cannot reach the EKS API, ECR, STS or EC2 and never join",
					Remedy: remedy, Commands: restore},
			},
		},
		{
			name: "an unregistered NodeClaim's instance fires too",
			edit: edits(noEgress, unregisteredClaim, func(s *snapshot.Snapshot) {
				s.NodeClasses[0].StatusSecurityGroups = nil
				s.Instances[0].SecurityGroups = []snapshot.GroupRef{{ID: "sg-0ok"}}
				s.SecurityGroups = append(s.SecurityGroups, snapshot.SecurityGroup{ID: "sg-0ok",
					Outbound: []snapshot.Rule{{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}}}})
			}),
			want: []Finding{{ID: "security-group-egress-blocked", Severity: Critical, Resource: "nodeclaim/default-zzzzz",
				Message: "the security group sg-0nodes of NodeClaim default-zzzzz has no outbound rule admitting TCP 443 " +
					"(0 outbound rules in all): its instances cannot reach the EKS API, ECR, STS or EC2 and never join",
				Remedy: remedy, Commands: restore}},
		},
	})
}

func TestNetworkACLBlocksNodeTraffic(t *testing.T) {
	// ownACL gives the node subnet a network ACL of its own; acl does so on the NAT path.
	ownACL := func(entries ...snapshot.ACLEntry) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			s.NetworkACLs = append(s.NetworkACLs, snapshot.NetworkACL{ID: "acl-0own", VpcID: vpcA,
				SubnetIDs: []string{subnetA}, Entries: entries})
		}
	}
	acl := func(entries ...snapshot.ACLEntry) func(*snapshot.Snapshot) {
		return edits(withNATPath, ownACL(entries...))
	}
	deny := []snapshot.ACLEntry{
		{RuleNumber: 32767, Egress: true, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0"},
		{RuleNumber: 32767, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0"},
	}
	out443 := snapshot.ACLEntry{RuleNumber: 100, Egress: true, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 443, ToPort: 443}
	inEphemeral := snapshot.ACLEntry{RuleNumber: 120, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 1024, ToPort: 65535}
	vpcIn := snapshot.ACLEntry{RuleNumber: 100, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "10.0.0.0/16"}
	vpcOut := snapshot.ACLEntry{RuleNumber: 100, Egress: true, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "10.0.0.0/16"}
	remedy := "allow the traffic in network ACL acl-0own with entries numbered below the denying rules (the " +
		"commands: TCP 443 out, and the replies in on 1024-65535, the ephemeral ports of every client)"
	// entry is the command that adds an allow entry to acl-0own.
	entry := func(dir string, rule int, ports, cidr string) []Command {
		return []Command{{Argv: []string{"aws", "ec2", "create-network-acl-entry", "--network-acl-id", "acl-0own", dir,
			"--rule-number", strconv.Itoa(rule), "--protocol", "6", "--port-range", ports, "--cidr-block", cidr,
			"--rule-action", "allow"}, Changes: "network-acl/acl-0own",
			Affects: "every subnet of network ACL acl-0own: 1 node (m5.large)"}}
	}
	replies := entry("--ingress", 32766, "From=1024,To=65535", "0.0.0.0/0")
	out := entry("--egress", 32766, "From=443,To=443", "0.0.0.0/0")
	runCheckCases(t, networkACLBlocksNodeTraffic, []checkCase{
		{name: "no ACL read is silent"},
		{name: "the default ACL is silent", edit: withNATPath},
		{name: "a hardened ACL is silent", edit: acl(append([]snapshot.ACLEntry{out443,
			{RuleNumber: 100, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 1024, ToPort: 65535}}, deny...)...)},
		{name: "an ACL gap is silent", edit: edits(acl(deny...), gap(snapshot.SourceDescribeNetworkAcls))},
		{name: "replies from anywhere, 443 out and all within the VPC are silent", edit: acl(append([]snapshot.ACLEntry{
			out443, inEphemeral, vpcIn, vpcOut}, deny...)...)},
		{
			name: "all from the VPC and 443 from anywhere drop the replies through a NAT gateway",
			edit: acl(append([]snapshot.ACLEntry{vpcIn, vpcOut,
				{RuleNumber: 110, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 443, ToPort: 443},
				{RuleNumber: 110, Egress: true, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0"}}, deny...)...),
			want: []Finding{{ID: "network-acl-blocks-node-traffic", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "network ACL acl-0own of subnet subnet-0aaa blocks the nodes' HTTPS traffic (stateless: replies " +
					"need their own inbound rule): inbound TCP replies from the internet (0.0.0.0/0) to the Linux ephemeral " +
					"ports 32768-60999 denied on 32768-60999 by rule 32767 (rule 100 allows all only from 10.0.0.0/16); " +
					"used by EC2NodeClass default, node " + nodeA,
				Remedy: remedy, Commands: replies}},
		},
		{
			name: "all to the VPC and 1024-65535 to anywhere drop outbound 443 through a NAT gateway",
			edit: acl(append([]snapshot.ACLEntry{vpcIn, vpcOut, inEphemeral,
				{RuleNumber: 110, Egress: true, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 1024, ToPort: 65535}},
				deny...)...),
			want: []Finding{{ID: "network-acl-blocks-node-traffic", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "network ACL acl-0own of subnet subnet-0aaa blocks the nodes' HTTPS traffic (stateless: replies " +
					"need their own inbound rule): outbound TCP 443 to the internet (0.0.0.0/0) denied by rule 32767 " +
					"(rule 100 allows all only to 10.0.0.0/16); used by EC2NodeClass default, node " + nodeA,
				Remedy: remedy, Commands: out}},
		},
		{name: "all within the VPC is silent when the endpoints are the way out", edit: edits(
			withoutDefaultRoute, withEndpoints, ownACL(append([]snapshot.ACLEntry{vpcIn, vpcOut}, deny...)...))},
		{name: "all within the VPC is silent behind a transit gateway (peers unknown: lenient)", edit: edits(
			acl(append([]snapshot.ACLEntry{vpcIn, vpcOut}, deny...)...), func(s *snapshot.Snapshot) {
				s.RouteTables[0].Routes[1].Target = "tgw-0a"
			})},
		{
			name: "an ACL without the endpoints' subnet fires when the endpoints are the way out",
			edit: edits(withoutDefaultRoute, withEndpoints, ownACL(append([]snapshot.ACLEntry{
				{RuleNumber: 100, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "10.0.9.0/24"}, vpcOut}, deny...)...)),
			want: []Finding{{ID: "network-acl-blocks-node-traffic", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "network ACL acl-0own of subnet subnet-0aaa blocks the nodes' HTTPS traffic (stateless: replies " +
					"need their own inbound rule): inbound TCP replies from the VPC endpoints in subnet-0aaa (10.0.1.0/24) " +
					"to the Linux ephemeral ports 32768-60999 denied on 32768-60999 by rule 32767 (rule 100 allows all only " +
					"from 10.0.9.0/24); used by EC2NodeClass default, node " + nodeA,
				Remedy: remedy, Commands: entry("--ingress", 32766, "From=1024,To=65535", "10.0.1.0/24")}},
		},
		{
			name: "return traffic denied on part of the ephemeral range fires with the rules",
			edit: acl(append([]snapshot.ACLEntry{out443,
				{RuleNumber: 100, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 1024, ToPort: 50000},
				{RuleNumber: 90, Protocol: "6", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0", FromPort: 40000, ToPort: 40100}}, deny...)...),
			want: []Finding{{ID: "network-acl-blocks-node-traffic", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "network ACL acl-0own of subnet subnet-0aaa blocks the nodes' HTTPS traffic (stateless: replies " +
					"need their own inbound rule): inbound TCP replies from the internet (0.0.0.0/0) to the Linux ephemeral ports " +
					"32768-60999 denied on 40000-40100 by rule 90, 50001-60999 by rule 32767; used by EC2NodeClass " +
					"default, node " + nodeA,
				Remedy: remedy, Commands: entry("--ingress", 89, "From=1024,To=65535", "0.0.0.0/0")}},
		},
		{
			name: "a Windows node's range is checked apart from the Linux one",
			edit: edits(acl(append([]snapshot.ACLEntry{out443,
				{RuleNumber: 100, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 32768, ToPort: 60999}}, deny...)...),
				func(s *snapshot.Snapshot) { s.Nodes[0].Labels["kubernetes.io/os"] = OSWindows }),
			want: []Finding{{ID: "network-acl-blocks-node-traffic", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "network ACL acl-0own of subnet subnet-0aaa blocks the nodes' HTTPS traffic (stateless: replies " +
					"need their own inbound rule): inbound TCP replies from the internet (0.0.0.0/0) to the Windows ephemeral ports " +
					"49152-65535 denied on 61000-65535 by rule 32767; used by node " + nodeA,
				Remedy: remedy, Commands: replies}},
		},
		{
			name: "outbound 443 denied fires",
			edit: acl(append([]snapshot.ACLEntry{
				{RuleNumber: 100, Egress: true, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 80, ToPort: 80},
				{RuleNumber: 100, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0"}}, deny...)...),
			want: []Finding{{ID: "network-acl-blocks-node-traffic", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "network ACL acl-0own of subnet subnet-0aaa blocks the nodes' HTTPS traffic (stateless: replies " +
					"need their own inbound rule): outbound TCP 443 to the internet (0.0.0.0/0) denied by rule 32767; used by " +
					"EC2NodeClass default, node " + nodeA,
				Remedy: remedy, Commands: out}},
		},
	})
}
