package diagnose

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestWayOut(t *testing.T) {
	noPublic := wayout.PublicIPv4{Why: "no public IPv4"}
	allMissing := []string{"ec2", "ecr.api", "ecr.dkr", "s3", "sts"}
	cases := []struct {
		name          string
		edit          func(*snapshot.Snapshot)
		pub           wayout.PublicIPv4
		verdict       string
		reason        string
		missing       []string
		defaultRoutes int
	}{
		{name: "no route table read is unknown", edit: func(*snapshot.Snapshot) {}, verdict: wayout.WayOutUnknown,
			reason: "no route table of the subnet's VPC was read"},
		{name: "route tables gap is unknown", edit: edits(withoutDefaultRoute, gap(snapshot.SourceDescribeRouteTables)),
			verdict: wayout.WayOutUnknown, reason: "the route tables were not read"},
		{name: "available public NAT gateway", edit: withNATPath, verdict: wayout.WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0aaa (" + natNote + ")"},
		{name: "a NAT gateway on the main table that routes to itself is no way out", edit: natOnMainTable,
			verdict: wayout.WayOutNone, defaultRoutes: 1, missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0aaa (public NAT gateway in subnet-0public (203.0.113.20), whose " +
				"route table rtb-0main (the VPC's main table) has no internet gateway route (0.0.0.0/0 -> nat-0aaa)) " +
				"unusable; VPC endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "a NAT gateway whose route table has no default route is no way out", edit: natPublicRoute("", ""),
			verdict: wayout.WayOutNone, defaultRoutes: 1, missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0aaa (public NAT gateway in subnet-0public (203.0.113.20), whose " +
				"route table rtb-0public has no internet gateway route) unusable; VPC endpoints missing: ec2, ecr.api, " +
				"ecr.dkr, s3, sts"},
		{name: "a NAT gateway whose internet gateway route is a blackhole is no way out",
			edit: natPublicRoute(igwA, snapshot.RouteBlackhole), verdict: wayout.WayOutNone, defaultRoutes: 1, missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0aaa (public NAT gateway in subnet-0public (203.0.113.20), whose " +
				"route table rtb-0public has no internet gateway route (0.0.0.0/0 -> igw-0a is a blackhole)) unusable; " +
				"VPC endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "a NAT gateway behind a firewall endpoint is assumed",
			edit: natPublicRoute("vpce-0fw", snapshot.RouteActive), verdict: wayout.WayOutAssumed, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0aaa: public NAT gateway in subnet-0public (203.0.113.20), whose route " +
				"table rtb-0public sends 0.0.0.0/0 to vpce-0fw (Gateway Load Balancer or Network Firewall endpoint): " +
				"karpnet cannot follow it and assumes it leads to the internet"},
		{name: "a NAT gateway whose subnet's route table was not read is kept", edit: edits(withNATPath,
			func(s *snapshot.Snapshot) {
				s.RouteTables = s.RouteTables[:1]
				s.RouteTables[0].Main, s.RouteTables[0].SubnetIDs = false, []string{subnetA}
				s.NATGateways[0].PublicIP = ""
			}), verdict: wayout.WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0aaa (public NAT gateway in subnet-0public, available; its subnet's route " +
				"table was not read (assumed to route to an internet gateway))"},
		{name: "a NAT gateway whose subnet's network ACL drops the replies is no way out", edit: edits(withNATPath,
			func(s *snapshot.Snapshot) {
				s.NetworkACLs = append(s.NetworkACLs, snapshot.NetworkACL{ID: "acl-0public", VpcID: vpcA,
					SubnetIDs: []string{subnetPublic}, Entries: []snapshot.ACLEntry{
						{RuleNumber: 100, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "10.0.0.0/16"},
						{RuleNumber: 110, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 32768, ToPort: 65535},
						{RuleNumber: 100, Egress: true, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0"},
					}})
			}), verdict: wayout.WayOutNone, defaultRoutes: 1, missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0aaa (public NAT gateway in subnet-0public (203.0.113.20), whose " +
				"subnet's network ACL acl-0public drops the traffic it forwards: inbound TCP replies from the internet " +
				"(0.0.0.0/0) to the NAT gateway's ports 1024-65535 denied on 1024-32767 by rule * (rule 100 allows all " +
				"only from 10.0.0.0/16)) unusable; VPC endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "explicit association wins over the main table", edit: edits(withoutDefaultRoute, func(s *snapshot.Snapshot) {
			s.RouteTables = append(s.RouteTables, snapshot.RouteTable{ID: "rtb-0own", VpcID: vpcA, SubnetIDs: []string{subnetA},
				Routes: []snapshot.Route{{Destination: "0.0.0.0/0", Target: natA, State: snapshot.RouteActive}}})
		}), verdict: wayout.WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0aaa (" + natNote + ")"},
		{name: "no default route and no endpoints", edit: withoutDefaultRoute, verdict: wayout.WayOutNone,
			missing: []string{"ec2", "ecr.api", "ecr.dkr", "s3", "sts"},
			reason:  "no default route; VPC endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "endpoints gap is unknown", edit: edits(withoutDefaultRoute, gap(snapshot.SourceDescribeVpcEndpoints)),
			verdict: wayout.WayOutUnknown, reason: "no usable default route, and the VPC endpoints were not read"},
		{name: "every endpoint is a way out", edit: edits(withoutDefaultRoute, withEndpoints), verdict: wayout.WayOutEndpoints,
			reason: "no default route; the VPC has an endpoint for each of ec2, ecr.api, ecr.dkr, s3, sts (EKS API " +
				"assumed reachable through the cluster's private endpoint)"},
		{name: "an s3 interface endpoint does too", edit: edits(withoutDefaultRoute, withEndpoints, func(s *snapshot.Snapshot) {
			s.VPCEndpoints[4].Type, s.VPCEndpoints[4].PrivateDNS, s.VPCEndpoints[4].RouteTableIDs = "Interface", true, nil
		}), verdict: wayout.WayOutEndpoints,
			reason: "no default route; the VPC has an endpoint for each of ec2, ecr.api, ecr.dkr, s3, sts (EKS API " +
				"assumed reachable through the cluster's private endpoint)"},
		{name: "unusable endpoints are named with why", edit: edits(withoutDefaultRoute, withEndpoints, func(s *snapshot.Snapshot) {
			s.VPCEndpoints[1].PrivateDNS = false
			s.VPCEndpoints[2].State = "pending"
			s.VPCEndpoints[3].ServiceName = "com.amazonaws.eu-west-1.sts"
			s.VPCEndpoints[4].RouteTableIDs = []string{"rtb-0other"}
		}), verdict: wayout.WayOutNone,
			missing: []string{"ecr.api (vpce-ecr.api has private DNS off)", "ecr.dkr (vpce-ecr.dkr is pending)",
				"s3 (vpce-s3 is a gateway endpoint not associated with route table rtb-0main)", "sts"},
			reason: "no default route; VPC endpoints missing: ecr.api (vpce-ecr.api has private DNS off), ecr.dkr " +
				"(vpce-ecr.dkr is pending), s3 (vpce-s3 is a gateway endpoint not associated with route table rtb-0main), sts"},
		{name: "internet gateway with a public IPv4", edit: defaultRoute("igw-0a", snapshot.RouteActive),
			pub: wayout.PublicIPv4{Has: true, Why: "public"}, verdict: wayout.WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> igw-0a (internet gateway; public)"},
		{name: "internet gateway without a public IPv4", edit: defaultRoute("igw-0a", snapshot.RouteActive), pub: noPublic,
			verdict: wayout.WayOutNone, defaultRoutes: 1, missing: []string{"ec2", "ecr.api", "ecr.dkr", "s3", "sts"},
			reason: "default route 0.0.0.0/0 -> igw-0a (internet gateway, but no public IPv4) unusable; VPC endpoints " +
				"missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "blackhole", edit: edits(defaultRoute(natA, snapshot.RouteBlackhole), withEndpoints), verdict: wayout.WayOutEndpoints,
			defaultRoutes: 1,
			reason: "default route 0.0.0.0/0 -> nat-0aaa (blackhole: its target is gone) unusable; the VPC has an " +
				"endpoint for each of ec2, ecr.api, ecr.dkr, s3, sts (EKS API assumed reachable through the cluster's private endpoint)"},
		{name: "deleted NAT gateway", edit: edits(withNATPath, func(s *snapshot.Snapshot) { s.NATGateways[0].State = "deleted" }),
			verdict: wayout.WayOutNone, defaultRoutes: 1, missing: []string{"ec2", "ecr.api", "ecr.dkr", "s3", "sts"},
			reason: "default route 0.0.0.0/0 -> nat-0aaa (NAT gateway is deleted, not available) unusable; VPC " +
				"endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "a private NAT gateway whose subnet routes to an internet gateway is no way out (the gateway drops it)",
			edit: edits(withPrivateNAT(igwA), withEndpoints), verdict: wayout.WayOutEndpoints, defaultRoutes: 1,
			reason: "default route 0.0.0.0/0 -> nat-0aaa (private NAT gateway in subnet-0public, whose route table " +
				"rtb-0public sends 0.0.0.0/0 to igw-0a: an internet gateway drops a private NAT gateway's traffic) " +
				"unusable; the VPC has an endpoint for each of ec2, ecr.api, ecr.dkr, s3, sts (EKS API assumed " +
				"reachable through the cluster's private endpoint)"},
		{name: "a private NAT gateway whose subnet routes to a transit gateway is assumed",
			edit: withPrivateNAT("tgw-0egress"), verdict: wayout.WayOutAssumed, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0aaa: private NAT gateway in subnet-0public, whose route table rtb-0public " +
				"sends 0.0.0.0/0 to tgw-0egress (transit gateway): karpnet cannot follow it and assumes it leads to a " +
				"network that reaches the internet or the endpoints (a central egress VPC, on-premises)"},
		{name: "a private NAT gateway whose subnet routes to a virtual private gateway is assumed",
			edit: withPrivateNAT("vgw-0onprem"), verdict: wayout.WayOutAssumed, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0aaa: private NAT gateway in subnet-0public, whose route table rtb-0public " +
				"sends 0.0.0.0/0 to vgw-0onprem (virtual private gateway): karpnet cannot follow it and assumes it " +
				"leads to a network that reaches the internet or the endpoints (a central egress VPC, on-premises)"},
		{name: "a private NAT gateway whose subnet has no default route is no way out",
			edit: withPrivateNAT(""), verdict: wayout.WayOutNone, defaultRoutes: 1, missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0aaa (private NAT gateway in subnet-0public, whose route table " +
				"rtb-0public has no default route to a transit or virtual private gateway) unusable; VPC endpoints " +
				"missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "a regional NAT gateway goes out through its own route table", edit: withRegionalNAT,
			verdict: wayout.WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0regional (regional public NAT gateway (203.0.113.30), available, whose " +
				"route table rtb-0natregional sends 0.0.0.0/0 to igw-0a)"},
		{name: "a regional NAT gateway whose own table lost its internet gateway route is no way out",
			edit: regionalNATRoute(""), verdict: wayout.WayOutNone, defaultRoutes: 1, missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0regional (regional public NAT gateway (203.0.113.30), whose route " +
				"table rtb-0natregional has no internet gateway route) unusable; VPC endpoints missing: ec2, ecr.api, " +
				"ecr.dkr, s3, sts"},
		{name: "a regional NAT gateway whose table was not read is kept", edit: edits(withRegionalNAT,
			func(s *snapshot.Snapshot) { s.RouteTables = s.RouteTables[:1] }), verdict: wayout.WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0regional (regional public NAT gateway (203.0.113.30), available; its route " +
				"table rtb-0natregional was not read (assumed to route to an internet gateway))"},
		{name: "a NAT gateway without a subnet in a snapshot that did not keep its mode is kept, no empty subnet",
			edit: edits(withRegionalNAT, func(s *snapshot.Snapshot) {
				g := &s.NATGateways[0]
				g.AvailabilityMode, g.RouteTableID, g.AutoProvisionZones, g.Zones, g.ZoneIDs = "", "", "", nil, nil
			}), verdict: wayout.WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0regional (public NAT gateway (203.0.113.30), available, in no subnet (a " +
				"regional NAT gateway read without its route table; assumed to route to an internet gateway))"},
		{name: "a regional NAT gateway with zones by hand serves the zones it has an address in",
			edit: regionalNATZones("us-west-2a", "us-west-2c"), verdict: wayout.WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0regional (regional public NAT gateway (203.0.113.30), available, whose " +
				"route table rtb-0natregional sends 0.0.0.0/0 to igw-0a)"},
		{name: "a regional NAT gateway with zones by hand does not serve another zone",
			edit: regionalNATZones("us-west-2b", "us-west-2c"), verdict: wayout.WayOutNone, defaultRoutes: 1, missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0regional (regional public NAT gateway (203.0.113.30), whose zones " +
				"are managed by hand (AutoProvisionZones disabled), has no address in us-west-2a: it serves us-west-2b, " +
				"us-west-2c only) unusable; VPC endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "a regional NAT gateway with zones by hand known only by ID serves a subnet known only by name",
			edit: edits(regionalNATZones(), func(s *snapshot.Snapshot) {
				s.NATGateways[0].ZoneIDs = []string{"usw2-az2"}
				s.Subnets[0].ZoneID = ""
			}), verdict: wayout.WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0regional (regional public NAT gateway (203.0.113.30), available, whose " +
				"route table rtb-0natregional sends 0.0.0.0/0 to igw-0a)"},
		{name: "a regional NAT gateway with zones by hand compared by ID",
			edit: edits(regionalNATZones(), func(s *snapshot.Snapshot) {
				s.NATGateways[0].ZoneIDs = []string{"usw2-az2"}
				s.Subnets[0].Zone = ""
			}), verdict: wayout.WayOutNone, defaultRoutes: 1, missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0regional (regional public NAT gateway (203.0.113.30), whose zones " +
				"are managed by hand (AutoProvisionZones disabled), has no address in usw2-az1: it serves usw2-az2 " +
				"only) unusable; VPC endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "a NAT gateway whose subnet's network ACL admits both sides is a way out",
			edit: edits(withNATPath, natSubnetOwnACL(natSubnetHardened...)), verdict: wayout.WayOutRoute, defaultRoutes: 1,
			reason: "route 0.0.0.0/0 -> nat-0aaa (" + natNote + ")"},
		{name: "a NAT gateway whose subnet's network ACL does not admit the nodes' 443 is no way out",
			edit: edits(withNATPath, natSubnetOwnACL(natSubnetHardened[1:]...)), verdict: wayout.WayOutNone, defaultRoutes: 1,
			missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0aaa (public NAT gateway in subnet-0public (203.0.113.20), whose " +
				"subnet's network ACL acl-0natsubnet drops the traffic it forwards: inbound TCP 443 from the nodes' " +
				"subnet subnet-0aaa (10.0.1.0/24) denied by rule 32767) unusable; VPC endpoints missing: ec2, ecr.api, " +
				"ecr.dkr, s3, sts"},
		{name: "a NAT gateway whose subnet's network ACL does not let the replies out to the nodes is no way out",
			edit: edits(withNATPath, natSubnetOwnACL(natSubnetHardened[:3]...)), verdict: wayout.WayOutNone, defaultRoutes: 1,
			missing: allMissing,
			reason: "default route 0.0.0.0/0 -> nat-0aaa (public NAT gateway in subnet-0public (203.0.113.20), whose " +
				"subnet's network ACL acl-0natsubnet drops the traffic it forwards: outbound TCP replies to the nodes' " +
				"subnet subnet-0aaa (10.0.1.0/24) on the Linux ephemeral ports 32768-60999 denied on 32768-60999 by " +
				"rule 32767) unusable; VPC endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts"},
		{name: "transit gateway is assumed", edit: defaultRoute("tgw-0a", snapshot.RouteActive), verdict: wayout.WayOutAssumed,
			defaultRoutes: 1, reason: "route 0.0.0.0/0 -> tgw-0a: transit gateway: karpnet cannot follow it and " +
				"assumes it leads to the internet or to the endpoints"},
		{name: "IPv6 subnet out through an egress-only gateway", edit: edits(withoutDefaultRoute, func(s *snapshot.Snapshot) {
			s.Subnets[0].IPv6CIDRs = []string{"2600:1f14::/64"}
			s.RouteTables[0].Routes = append(s.RouteTables[0].Routes, snapshot.Route{Destination: "::/0", Target: "eigw-0a"})
		}), verdict: wayout.WayOutRoute, defaultRoutes: 1, reason: "route ::/0 -> eigw-0a (egress-only internet gateway, IPv6 only)"},
		{name: "an IPv4 subnet ignores ::/0", edit: edits(withoutDefaultRoute, withEndpoints, func(s *snapshot.Snapshot) {
			s.RouteTables[0].Routes = append(s.RouteTables[0].Routes, snapshot.Route{Destination: "::/0", Target: "eigw-0a"})
		}), verdict: wayout.WayOutEndpoints,
			reason: "no default route; the VPC has an endpoint for each of ec2, ecr.api, ecr.dkr, s3, sts (EKS API " +
				"assumed reachable through the cluster's private endpoint)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := healthy()
			tc.edit(s)
			x := NewIndex(s)
			sub := x.Subnets[subnetA]
			got := x.net.Decide(sub, tc.pub, false)
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

func TestDescribeWayOut(t *testing.T) {
	t.Run("nil without route tables", func(t *testing.T) {
		x := NewIndex(healthy())
		if got := Describe(x, x.Nodes[0]).WayOut; got != nil {
			t.Errorf("got %+v, want nil", got)
		}
	})
	t.Run("the node subnet's route, endpoints and ACL", func(t *testing.T) {
		s := edited(healthy(), edits(withoutDefaultRoute, withEndpoints, func(s *snapshot.Snapshot) {
			s.NetworkACLs[0].Entries = s.NetworkACLs[0].Entries[:2]
		}))
		x := NewIndex(s)
		want := &wayout.WayOut{SubnetID: subnetA, RouteTable: tableMain, MainTable: true, Verdict: wayout.WayOutEndpoints,
			Reason: "no default route; the VPC has an endpoint for each of ec2, ecr.api, ecr.dkr, s3, sts (EKS API " +
				"assumed reachable through the cluster's private endpoint)",
			Endpoints: []string{"ec2", "ecr.api", "ecr.dkr", "s3", "sts"}, NetworkACL: aclA, NACLVerdict: wayout.NACLBlocks,
			NACLReason: "inbound TCP replies from the VPC endpoints in subnet-0aaa (10.0.1.0/24) to the Linux ephemeral " +
				"ports 32768-60999 denied on 32768-60999 by rule *"}
		if diff := cmp.Diff(want, Describe(x, x.Nodes[0]).WayOut, cmp.AllowUnexported(wayout.WayOut{})); diff != "" {
			t.Errorf("way out (-want +got):\n%s", diff)
		}
	})
}

// TestFollowNATWindowsReplies checks that a NAT gateway's subnet's network ACL is judged on
// the ephemeral ports of the nodes it forwards for: Windows' 49152-65535, not Linux's.
func TestFollowNATWindowsReplies(t *testing.T) {
	linuxOnly := snapshot.ACLEntry{RuleNumber: 110, Egress: true, Protocol: "6", Action: snapshot.ACLAllow,
		CIDR: "10.0.0.0/16", FromPort: 32768, ToPort: 60999}
	s := edited(healthy(), edits(withNATPath, natSubnetOwnACL(append(slices.Clone(natSubnetHardened[:3]), linuxOnly)...)))
	x := NewIndex(s)
	nat := func(windows bool) wayout.DefaultRoute {
		t.Helper()
		w := x.net.Decide(x.Subnets[subnetA], wayout.PublicIPv4{Why: "no public IPv4"}, windows)
		if len(w.DefaultRoutes) != 1 || w.DefaultRoutes[0].Target != natA {
			t.Fatalf("default routes %+v, want one to %s", w.DefaultRoutes, natA)
		}
		return w.DefaultRoutes[0]
	}
	if on := nat(false); !on.Usable {
		t.Errorf("Linux nodes: NAT gateway unusable (%s), want usable", on.Note)
	}
	on := nat(true)
	want := "public NAT gateway in subnet-0public (203.0.113.20), whose subnet's network ACL acl-0natsubnet drops the " +
		"traffic it forwards: outbound TCP replies to the nodes' subnet subnet-0aaa (10.0.1.0/24) on the Windows " +
		"ephemeral ports 49152-65535 denied on 61000-65535 by rule 32767"
	if on.Usable || on.Note != want {
		t.Errorf("Windows nodes: usable %v, note\n %q\nwant unusable,\n %q", on.Usable, on.Note, want)
	}
}
