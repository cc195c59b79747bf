package wayout

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/fixture"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// newNet keys s for the way-out analysis, as pkg/diagnose's Index does.
func newNet(s *snapshot.Snapshot) *Net {
	subnets := map[string]*snapshot.Subnet{}
	for i := range s.Subnets {
		subnets[s.Subnets[i].ID] = &s.Subnets[i]
	}
	return New(s, subnets)
}

func TestWayOut(t *testing.T) {
	noPublic := PublicIPv4{Why: "no public IPv4"}
	allMissing := []string{"ec2", "ecr.api", "ecr.dkr", "s3", "sts"}
	cases := []struct {
		name          string
		edit          func(*snapshot.Snapshot)
		pub           PublicIPv4
		verdict       string
		reason        string
		missing       []string
		defaultRoutes int
	}{
		{name: "no route table read is unknown", edit: func(*snapshot.Snapshot) {}, verdict: WayOutUnknown,
			reason: "no route table of the subnet's VPC was read"},
		{name: "route tables gap is unknown", edit: fixture.Edits(fixture.WithoutDefaultRoute, fixture.Gap(snapshot.SourceDescribeRouteTables)),
			verdict: WayOutUnknown, reason: "the route tables were not read"},
		{name: "available public NAT gateway", edit: fixture.WithNATPath, verdict: WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0aaa (" + fixture.NATNote + ")"},
		{name: "a NAT gateway on the main table that routes to itself is no way out", edit: fixture.NATOnMainTable,
			verdict: WayOutNone, defaultRoutes: 1, missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0aaa (public NAT gateway in subnet-0public (203.0.113.20), whose " +
				"route table rtb-0main (the VPC's main table) has no internet gateway route (0.0.0.0/0 -> nat-0aaa)) " +
				"unusable; VPC endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "a NAT gateway whose route table has no default route is no way out", edit: fixture.NATPublicRoute("", ""),
			verdict: WayOutNone, defaultRoutes: 1, missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0aaa (public NAT gateway in subnet-0public (203.0.113.20), whose " +
				"route table rtb-0public has no internet gateway route) unusable; VPC endpoints missing: ec2, ecr.api, " +
				"ecr.dkr, s3, sts"},
		{name: "a NAT gateway whose internet gateway route is a blackhole is no way out",
			edit: fixture.NATPublicRoute(fixture.IGWA, snapshot.RouteBlackhole), verdict: WayOutNone, defaultRoutes: 1, missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0aaa (public NAT gateway in subnet-0public (203.0.113.20), whose " +
				"route table rtb-0public has no internet gateway route (0.0.0.0/0 -> igw-0a is a blackhole)) unusable; " +
				"VPC endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "a NAT gateway behind a firewall endpoint is assumed",
			edit: fixture.NATPublicRoute("vpce-0fw", snapshot.RouteActive), verdict: WayOutAssumed, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0aaa: public NAT gateway in subnet-0public (203.0.113.20), whose route " +
				"table rtb-0public sends 0.0.0.0/0 to vpce-0fw (Gateway Load Balancer or Network Firewall endpoint): " +
				"karpnet cannot follow it and assumes it leads to the internet"},
		{name: "a NAT gateway whose subnet's route table was not read is kept", edit: fixture.Edits(fixture.WithNATPath,
			func(s *snapshot.Snapshot) {
				s.RouteTables = s.RouteTables[:1]
				s.RouteTables[0].Main, s.RouteTables[0].SubnetIDs = false, []string{fixture.SubnetA}
				s.NATGateways[0].PublicIP = ""
			}), verdict: WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0aaa (public NAT gateway in subnet-0public, available; its subnet's route " +
				"table was not read (assumed to route to an internet gateway))"},
		{name: "a NAT gateway whose subnet's network ACL drops the replies is no way out", edit: fixture.Edits(fixture.WithNATPath,
			func(s *snapshot.Snapshot) {
				s.NetworkACLs = append(s.NetworkACLs, snapshot.NetworkACL{ID: "acl-0public", VpcID: fixture.VPCA,
					SubnetIDs: []string{fixture.SubnetPublic}, Entries: []snapshot.ACLEntry{
						{RuleNumber: 100, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "10.0.0.0/16"},
						{RuleNumber: 110, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 32768, ToPort: 65535},
						{RuleNumber: 100, Egress: true, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0"},
					}})
			}), verdict: WayOutNone, defaultRoutes: 1, missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0aaa (public NAT gateway in subnet-0public (203.0.113.20), whose " +
				"subnet's network ACL acl-0public drops the traffic it forwards: inbound TCP replies from the internet " +
				"(0.0.0.0/0) to the NAT gateway's ports 1024-65535 denied on 1024-32767 by rule * (rule 100 allows all " +
				"only from 10.0.0.0/16)) unusable; VPC endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "explicit association wins over the main table", edit: fixture.Edits(fixture.WithoutDefaultRoute, func(s *snapshot.Snapshot) {
			s.RouteTables = append(s.RouteTables, snapshot.RouteTable{ID: "rtb-0own", VpcID: fixture.VPCA, SubnetIDs: []string{fixture.SubnetA},
				Routes: []snapshot.Route{{Destination: "0.0.0.0/0", Target: fixture.NATA, State: snapshot.RouteActive}}})
		}), verdict: WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0aaa (" + fixture.NATNote + ")"},
		{name: "no default route and no endpoints", edit: fixture.WithoutDefaultRoute, verdict: WayOutNone,
			missing: []string{"ec2", "ecr.api", "ecr.dkr", "s3", "sts"},
			reason:  "no default route; VPC endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "endpoints gap is unknown", edit: fixture.Edits(fixture.WithoutDefaultRoute, fixture.Gap(snapshot.SourceDescribeVpcEndpoints)),
			verdict: WayOutUnknown, reason: "no usable default route, and the VPC endpoints were not read"},
		{name: "every endpoint is a way out", edit: fixture.Edits(fixture.WithoutDefaultRoute, fixture.WithEndpoints), verdict: WayOutEndpoints,
			reason: "no default route; the VPC has an endpoint for each of ec2, ecr.api, ecr.dkr, s3, sts (EKS API " +
				"assumed reachable through the cluster's private endpoint)"},
		{name: "an s3 interface endpoint does too", edit: fixture.Edits(fixture.WithoutDefaultRoute, fixture.WithEndpoints, func(s *snapshot.Snapshot) {
			s.VPCEndpoints[4].Type, s.VPCEndpoints[4].PrivateDNS, s.VPCEndpoints[4].RouteTableIDs = "Interface", true, nil
		}), verdict: WayOutEndpoints,
			reason: "no default route; the VPC has an endpoint for each of ec2, ecr.api, ecr.dkr, s3, sts (EKS API " +
				"assumed reachable through the cluster's private endpoint)"},
		{name: "unusable endpoints are named with why", edit: fixture.Edits(fixture.WithoutDefaultRoute, fixture.WithEndpoints, func(s *snapshot.Snapshot) {
			s.VPCEndpoints[1].PrivateDNS = false
			s.VPCEndpoints[2].State = "pending"
			s.VPCEndpoints[3].ServiceName = "com.amazonaws.eu-west-1.sts"
			s.VPCEndpoints[4].RouteTableIDs = []string{"rtb-0other"}
		}), verdict: WayOutNone,
			missing: []string{"ecr.api (vpce-ecr.api has private DNS off)", "ecr.dkr (vpce-ecr.dkr is pending)",
				"s3 (vpce-s3 is a gateway endpoint not associated with route table rtb-0main)", "sts"},
			reason: "no default route; VPC endpoints missing: ecr.api (vpce-ecr.api has private DNS off), ecr.dkr " +
				"(vpce-ecr.dkr is pending), s3 (vpce-s3 is a gateway endpoint not associated with route table rtb-0main), sts"},
		{name: "internet gateway with a public IPv4", edit: fixture.DefaultRoute("igw-0a", snapshot.RouteActive),
			pub: PublicIPv4{Has: true, Why: "public"}, verdict: WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> igw-0a (internet gateway; public)"},
		{name: "internet gateway without a public IPv4", edit: fixture.DefaultRoute("igw-0a", snapshot.RouteActive), pub: noPublic,
			verdict: WayOutNone, defaultRoutes: 1, missing: []string{"ec2", "ecr.api", "ecr.dkr", "s3", "sts"},
			reason: "default route 0.0.0.0/0 -> igw-0a (internet gateway, but no public IPv4) unusable; VPC endpoints " +
				"missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "blackhole", edit: fixture.Edits(fixture.DefaultRoute(fixture.NATA, snapshot.RouteBlackhole), fixture.WithEndpoints), verdict: WayOutEndpoints,
			defaultRoutes: 1,
			reason: "default route 0.0.0.0/0 -> nat-0aaa (blackhole: its target is gone) unusable; the VPC has an " +
				"endpoint for each of ec2, ecr.api, ecr.dkr, s3, sts (EKS API assumed reachable through the cluster's private endpoint)"},
		{name: "deleted NAT gateway", edit: fixture.Edits(fixture.WithNATPath, func(s *snapshot.Snapshot) { s.NATGateways[0].State = "deleted" }),
			verdict: WayOutNone, defaultRoutes: 1, missing: []string{"ec2", "ecr.api", "ecr.dkr", "s3", "sts"},
			reason: "default route 0.0.0.0/0 -> nat-0aaa (NAT gateway is deleted, not available) unusable; VPC " +
				"endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "a private NAT gateway whose subnet routes to an internet gateway is no way out (the gateway drops it)",
			edit: fixture.Edits(fixture.WithPrivateNAT(fixture.IGWA), fixture.WithEndpoints), verdict: WayOutEndpoints, defaultRoutes: 1,
			reason: "default route 0.0.0.0/0 -> nat-0aaa (private NAT gateway in subnet-0public, whose route table " +
				"rtb-0public sends 0.0.0.0/0 to igw-0a: an internet gateway drops a private NAT gateway's traffic) " +
				"unusable; the VPC has an endpoint for each of ec2, ecr.api, ecr.dkr, s3, sts (EKS API assumed " +
				"reachable through the cluster's private endpoint)"},
		{name: "a private NAT gateway whose subnet routes to a transit gateway is assumed",
			edit: fixture.WithPrivateNAT("tgw-0egress"), verdict: WayOutAssumed, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0aaa: private NAT gateway in subnet-0public, whose route table rtb-0public " +
				"sends 0.0.0.0/0 to tgw-0egress (transit gateway): karpnet cannot follow it and assumes it leads to a " +
				"network that reaches the internet or the endpoints (a central egress VPC, on-premises)"},
		{name: "a private NAT gateway whose subnet routes to a virtual private gateway is assumed",
			edit: fixture.WithPrivateNAT("vgw-0onprem"), verdict: WayOutAssumed, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0aaa: private NAT gateway in subnet-0public, whose route table rtb-0public " +
				"sends 0.0.0.0/0 to vgw-0onprem (virtual private gateway): karpnet cannot follow it and assumes it " +
				"leads to a network that reaches the internet or the endpoints (a central egress VPC, on-premises)"},
		{name: "a private NAT gateway whose subnet has no default route is no way out",
			edit: fixture.WithPrivateNAT(""), verdict: WayOutNone, defaultRoutes: 1, missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0aaa (private NAT gateway in subnet-0public, whose route table " +
				"rtb-0public has no default route to a transit or virtual private gateway) unusable; VPC endpoints " +
				"missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "a regional NAT gateway goes out through its own route table", edit: fixture.WithRegionalNAT,
			verdict: WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0regional (regional public NAT gateway (203.0.113.30), available, whose " +
				"route table rtb-0natregional sends 0.0.0.0/0 to igw-0a)"},
		{name: "a regional NAT gateway whose own table lost its internet gateway route is no way out",
			edit: fixture.RegionalNATRoute(""), verdict: WayOutNone, defaultRoutes: 1, missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0regional (regional public NAT gateway (203.0.113.30), whose route " +
				"table rtb-0natregional has no internet gateway route) unusable; VPC endpoints missing: ec2, ecr.api, " +
				"ecr.dkr, s3, sts"},
		{name: "a regional NAT gateway whose table was not read is kept", edit: fixture.Edits(fixture.WithRegionalNAT,
			func(s *snapshot.Snapshot) { s.RouteTables = s.RouteTables[:1] }), verdict: WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0regional (regional public NAT gateway (203.0.113.30), available; its route " +
				"table rtb-0natregional was not read (assumed to route to an internet gateway))"},
		{name: "a NAT gateway without a subnet in a snapshot that did not keep its mode is kept, no empty subnet",
			edit: fixture.Edits(fixture.WithRegionalNAT, func(s *snapshot.Snapshot) {
				g := &s.NATGateways[0]
				g.AvailabilityMode, g.RouteTableID, g.AutoProvisionZones, g.Zones, g.ZoneIDs = "", "", "", nil, nil
			}), verdict: WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0regional (public NAT gateway (203.0.113.30), available, in no subnet (a " +
				"regional NAT gateway read without its route table; assumed to route to an internet gateway))"},
		{name: "a regional NAT gateway with zones by hand serves the zones it has an address in",
			edit: fixture.RegionalNATZones("us-west-2a", "us-west-2c"), verdict: WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0regional (regional public NAT gateway (203.0.113.30), available, whose " +
				"route table rtb-0natregional sends 0.0.0.0/0 to igw-0a)"},
		{name: "a regional NAT gateway with zones by hand does not serve another zone",
			edit: fixture.RegionalNATZones("us-west-2b", "us-west-2c"), verdict: WayOutNone, defaultRoutes: 1, missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0regional (regional public NAT gateway (203.0.113.30), whose zones " +
				"are managed by hand (AutoProvisionZones disabled), has no address in us-west-2a: it serves us-west-2b, " +
				"us-west-2c only) unusable; VPC endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "a regional NAT gateway with zones by hand known only by ID serves a subnet known only by name",
			edit: fixture.Edits(fixture.RegionalNATZones(), func(s *snapshot.Snapshot) {
				s.NATGateways[0].ZoneIDs = []string{"usw2-az2"}
				s.Subnets[0].ZoneID = ""
			}), verdict: WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0regional (regional public NAT gateway (203.0.113.30), available, whose " +
				"route table rtb-0natregional sends 0.0.0.0/0 to igw-0a)"},
		{name: "a regional NAT gateway with zones by hand compared by ID",
			edit: fixture.Edits(fixture.RegionalNATZones(), func(s *snapshot.Snapshot) {
				s.NATGateways[0].ZoneIDs = []string{"usw2-az2"}
				s.Subnets[0].Zone = ""
			}), verdict: WayOutNone, defaultRoutes: 1, missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0regional (regional public NAT gateway (203.0.113.30), whose zones " +
				"are managed by hand (AutoProvisionZones disabled), has no address in usw2-az1: it serves usw2-az2 " +
				"only) unusable; VPC endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "a NAT gateway whose subnet's network ACL admits both sides is a way out",
			edit: fixture.Edits(fixture.WithNATPath, fixture.NATSubnetOwnACL(fixture.NATSubnetHardened...)), verdict: WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0aaa (" + fixture.NATNote + ")"},
		{name: "a NAT gateway whose subnet's network ACL does not admit the nodes' 443 is no way out",
			edit: fixture.Edits(fixture.WithNATPath, fixture.NATSubnetOwnACL(fixture.NATSubnetHardened[1:]...)), verdict: WayOutNone, defaultRoutes: 1,
			missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0aaa (public NAT gateway in subnet-0public (203.0.113.20), whose " +
				"subnet's network ACL acl-0natsubnet drops the traffic it forwards: inbound TCP 443 from the nodes' " +
				"subnet subnet-0aaa (10.0.1.0/24) denied by rule 32767) unusable; VPC endpoints missing: ec2, ecr.api, " +
				"ecr.dkr, s3, sts"},
		{name: "a NAT gateway whose subnet's network ACL does not let the replies out to the nodes is no way out",
			edit: fixture.Edits(fixture.WithNATPath, fixture.NATSubnetOwnACL(fixture.NATSubnetHardened[:3]...)), verdict: WayOutNone, defaultRoutes: 1,
			missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0aaa (public NAT gateway in subnet-0public (203.0.113.20), whose " +
				"subnet's network ACL acl-0natsubnet drops the traffic it forwards: outbound TCP replies to the nodes' " +
				"subnet subnet-0aaa (10.0.1.0/24) on the Linux ephemeral ports 32768-60999 denied on 32768-60999 by " +
				"rule 32767) unusable; VPC endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "transit gateway is assumed", edit: fixture.DefaultRoute("tgw-0a", snapshot.RouteActive), verdict: WayOutAssumed,
			defaultRoutes: 1, reason: "route 0.0.0.0/0 -> tgw-0a: transit gateway: karpnet cannot follow it and " +
				"assumes it leads to the internet or to the endpoints"},
		{name: "IPv6 subnet out through an egress-only gateway", edit: fixture.Edits(fixture.WithoutDefaultRoute, func(s *snapshot.Snapshot) {
			s.Subnets[0].IPv6CIDRs = []string{"2600:1f14::/64"}
			s.RouteTables[0].Routes = append(s.RouteTables[0].Routes, snapshot.Route{Destination: "::/0", Target: "eigw-0a"})
		}), verdict: WayOutRoute, defaultRoutes: 1, reason: "route ::/0 -> eigw-0a (egress-only internet gateway, IPv6 only)"},
		{name: "an IPv4 subnet ignores ::/0", edit: fixture.Edits(fixture.WithoutDefaultRoute, fixture.WithEndpoints, func(s *snapshot.Snapshot) {
			s.RouteTables[0].Routes = append(s.RouteTables[0].Routes, snapshot.Route{Destination: "::/0", Target: "eigw-0a"})
		}), verdict: WayOutEndpoints,
			reason: "no default route; the VPC has an endpoint for each of ec2, ecr.api, ecr.dkr, s3, sts (EKS API " +
				"assumed reachable through the cluster's private endpoint)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := fixture.Healthy()
			tc.edit(s)
			n := newNet(s)
			got := n.Decide(n.subnets[fixture.SubnetA], tc.pub, false)
			if got.Verdict != tc.verdict || got.Reason != tc.reason {
				t.Errorf("got verdict %s, reason\n %q\nwant %s,\n %q", got.Verdict, got.Reason, tc.verdict, tc.reason)
			}
			if diff := cmp.Diff(tc.missing, got.MissingEndpoints); diff != "" {
				t.Errorf("missing endpoints (-want +got):\n%s", diff)
			}
			if len(got.DefaultRoutes) != tc.defaultRoutes {
				t.Errorf("got %d default routes, want %d", len(got.DefaultRoutes), tc.defaultRoutes)
			}
		})
	}
}

// TestFollowNATWindowsReplies checks that a NAT gateway's subnet's network ACL is judged on
// the ephemeral ports of the nodes it forwards for: Windows' 49152-65535, not Linux's.
func TestFollowNATWindowsReplies(t *testing.T) {
	linuxOnly := snapshot.ACLEntry{RuleNumber: 110, Egress: true, Protocol: "6", Action: snapshot.ACLAllow,
		CIDR: "10.0.0.0/16", FromPort: 32768, ToPort: 60999}
	s := fixture.Healthy()
	fixture.Edits(fixture.WithNATPath, fixture.NATSubnetOwnACL(append(slices.Clone(fixture.NATSubnetHardened[:3]), linuxOnly)...))(s)
	n := newNet(s)
	g := n.nat[fixture.NATA]
	if on := n.followNAT(g, natClient{subnet: n.subnets[fixture.SubnetA]}); !on.usable {
		t.Errorf("Linux nodes: NAT gateway unusable (%s), want usable", on.note)
	}
	on := n.followNAT(g, natClient{subnet: n.subnets[fixture.SubnetA], windows: true})
	want := "public NAT gateway in subnet-0public (203.0.113.20), whose subnet's network ACL acl-0natsubnet drops the " +
		"traffic it forwards: outbound TCP replies to the nodes' subnet subnet-0aaa (10.0.1.0/24) on the Windows " +
		"ephemeral ports 49152-65535 denied on 61000-65535 by rule 32767"
	if on.usable || on.note != want {
		t.Errorf("Windows nodes: usable %v, note\n %q\nwant unusable,\n %q", on.usable, on.note, want)
	}
}
