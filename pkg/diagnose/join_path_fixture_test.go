package diagnose

import (
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Names used by the way-out fixtures.
const (
	vpcA      = "vpc-0abc"
	tableMain = "rtb-0main"
	natA      = "nat-0aaa"
	aclA      = "acl-0default"
	// The NAT gateway's public subnet, its route table and the VPC's internet gateway.
	subnetPublic = "subnet-0public"
	tablePublic  = "rtb-0public"
	igwA         = "igw-0a"
)

// withNATPath gives the healthy fixture's VPC a main route table with 0.0.0.0/0 to an
// available public NAT gateway, which sits in a public subnet whose own route table sends
// 0.0.0.0/0 to the internet gateway, and the default network ACL (allow all).
func withNATPath(s *snapshot.Snapshot) {
	s.Subnets[0].VpcID = vpcA
	s.RouteTables = []snapshot.RouteTable{{ID: tableMain, VpcID: vpcA, Main: true, Routes: []snapshot.Route{
		{Destination: "10.0.0.0/16", Target: "local", State: snapshot.RouteActive},
		{Destination: "0.0.0.0/0", Target: natA, State: snapshot.RouteActive},
	}}, {ID: tablePublic, VpcID: vpcA, SubnetIDs: []string{subnetPublic}, Routes: []snapshot.Route{
		{Destination: "10.0.0.0/16", Target: "local", State: snapshot.RouteActive},
		{Destination: "0.0.0.0/0", Target: igwA, State: snapshot.RouteActive},
	}}}
	s.NATGateways = []snapshot.NATGateway{{ID: natA, VpcID: vpcA, SubnetID: subnetPublic, State: "available",
		ConnectivityType: "public", PublicIP: "203.0.113.20"}}
	s.NetworkACLs = []snapshot.NetworkACL{defaultACL()}
}

// natNote is the note of the default route to the healthy fixture's NAT gateway.
const natNote = "public NAT gateway in subnet-0public (203.0.113.20), available, whose route table rtb-0public " +
	"sends 0.0.0.0/0 to igw-0a"

// natOnMainTable puts the NAT gateway's subnet back on the VPC's main table, which routes
// 0.0.0.0/0 to the NAT gateway itself: the NAT gateway has no internet gateway route.
func natOnMainTable(s *snapshot.Snapshot) {
	withNATPath(s)
	s.RouteTables = s.RouteTables[:1]
}

// natPublicRoute sets the 0.0.0.0/0 route of the NAT gateway's own route table (none when
// target is "").
func natPublicRoute(target, state string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		withNATPath(s)
		routes := s.RouteTables[1].Routes[:1]
		if target != "" {
			routes = append(routes, snapshot.Route{Destination: "0.0.0.0/0", Target: target, State: state})
		}
		s.RouteTables[1].Routes = routes
	}
}

// defaultACL is a VPC's default network ACL: allow all both ways, then the implicit deny.
func defaultACL() snapshot.NetworkACL {
	return snapshot.NetworkACL{ID: aclA, VpcID: vpcA, Default: true, Entries: []snapshot.ACLEntry{
		{RuleNumber: 100, Egress: true, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0"},
		{RuleNumber: 32767, Egress: true, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0"},
		{RuleNumber: 100, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0"},
		{RuleNumber: 32767, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0"},
	}}
}

// withoutDefaultRoute drops the NAT route: the subnet is private.
func withoutDefaultRoute(s *snapshot.Snapshot) {
	withNATPath(s)
	s.RouteTables[0].Routes = s.RouteTables[0].Routes[:1]
}

// withEndpoints adds every endpoint a node needs to join to the VPC, S3 as a gateway endpoint
// on the main table.
func withEndpoints(s *snapshot.Snapshot) {
	for _, svc := range []string{"ec2", "ecr.api", "ecr.dkr", "sts"} {
		s.VPCEndpoints = append(s.VPCEndpoints, snapshot.VPCEndpoint{ID: "vpce-" + svc, VpcID: vpcA,
			ServiceName: "com.amazonaws.us-west-2." + svc, Type: "Interface", State: "available", PrivateDNS: true,
			SubnetIDs: []string{subnetA}})
	}
	s.VPCEndpoints = append(s.VPCEndpoints, snapshot.VPCEndpoint{ID: "vpce-s3", VpcID: vpcA,
		ServiceName: "com.amazonaws.us-west-2.s3", Type: "Gateway", State: "available", RouteTableIDs: []string{tableMain}})
}

// defaultRoute sets the main table's 0.0.0.0/0 target and state.
func defaultRoute(target, state string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		withNATPath(s)
		s.RouteTables[0].Routes[1] = snapshot.Route{Destination: "0.0.0.0/0", Target: target, State: state}
	}
}

// Names used by the regional NAT gateway fixtures.
const (
	natRegionalID    = "nat-0regional"
	tableNATRegional = "rtb-0natregional"
)

// withRegionalNAT routes the healthy fixture's VPC out through a regional NAT gateway: no
// subnet, its own route table (EC2 creates it with 0.0.0.0/0 to the internet gateway) and
// zones EC2 provisions itself.
func withRegionalNAT(s *snapshot.Snapshot) {
	withNATPath(s)
	s.RouteTables[0].Routes[1].Target = natRegionalID
	s.RouteTables[1] = snapshot.RouteTable{ID: tableNATRegional, VpcID: vpcA, Routes: []snapshot.Route{
		{Destination: "10.0.0.0/16", Target: "local", State: snapshot.RouteActive},
		{Destination: "0.0.0.0/0", Target: igwA, State: snapshot.RouteActive},
	}}
	s.NATGateways = []snapshot.NATGateway{{ID: natRegionalID, VpcID: vpcA, State: "available", ConnectivityType: "public",
		PublicIP: "203.0.113.30", AvailabilityMode: snapshot.NATRegional, RouteTableID: tableNATRegional,
		AutoProvisionZones: "enabled", Zones: []string{"us-west-2a", "us-west-2b"}, ZoneIDs: []string{"usw2-az1", "usw2-az2"}}}
}

// regionalNATRoute sets the 0.0.0.0/0 route of the regional NAT gateway's own table (none when
// target is "").
func regionalNATRoute(target string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		withRegionalNAT(s)
		routes := s.RouteTables[1].Routes[:1]
		if target != "" {
			routes = append(routes, snapshot.Route{Destination: "0.0.0.0/0", Target: target, State: snapshot.RouteActive})
		}
		s.RouteTables[1].Routes = routes
	}
}

// regionalNATZones has the regional NAT gateway's zones managed by hand, with addresses in
// zones.
func regionalNATZones(zones ...string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		withRegionalNAT(s)
		s.NATGateways[0].AutoProvisionZones = snapshot.NATAutoZonesDisabled
		s.NATGateways[0].Zones, s.NATGateways[0].ZoneIDs = zones, nil
	}
}

// withPrivateNAT makes the fixture's NAT gateway a private one whose subnet routes 0.0.0.0/0
// to target (no default route when target is "").
func withPrivateNAT(target string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		natPublicRoute(target, snapshot.RouteActive)(s)
		s.NATGateways[0].ConnectivityType, s.NATGateways[0].PublicIP = "private", ""
	}
}

// natSubnetOwnACL gives the NAT gateway's subnet a network ACL of its own with entries, ending
// in the implicit deny.
func natSubnetOwnACL(entries ...snapshot.ACLEntry) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		entries = append(entries,
			snapshot.ACLEntry{RuleNumber: 32767, Egress: true, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0"},
			snapshot.ACLEntry{RuleNumber: 32767, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0"})
		s.NetworkACLs = append(s.NetworkACLs, snapshot.NetworkACL{ID: "acl-0natsubnet", VpcID: vpcA,
			SubnetIDs: []string{subnetPublic}, Entries: entries})
	}
}

// natSubnetHardened are the entries of a NAT gateway subnet's network ACL that admit both sides:
// TCP 443 in from the VPC and the replies out to it, TCP 443 out to the internet and the replies
// in on the NAT gateway's ports.
var natSubnetHardened = []snapshot.ACLEntry{
	{RuleNumber: 100, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "10.0.0.0/16", FromPort: 443, ToPort: 443},
	{RuleNumber: 110, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 1024, ToPort: 65535},
	{RuleNumber: 100, Egress: true, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 443, ToPort: 443},
	{RuleNumber: 110, Egress: true, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "10.0.0.0/16", FromPort: 1024, ToPort: 65535},
}
