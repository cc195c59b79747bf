package diagnose

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// hardenedGroups gives the node security group hardened rules: all traffic in from and out to
// itself, TCP 443 out anywhere and DNS to the VPC CIDR. DNS to the Route 53 Resolver and NTP to
// 169.254.169.123 need no rule: security groups and network ACLs do not filter them.
func hardenedGroups(s *snapshot.Snapshot) {
	s.SecurityGroups[0].Inbound = []snapshot.Rule{{Protocol: "-1", GroupIDs: []string{sgNodes}}}
	s.SecurityGroups[0].Outbound = []snapshot.Rule{
		{Protocol: "-1", GroupIDs: []string{sgNodes}},
		{Protocol: "6", FromPort: 443, ToPort: 443, CIDRs: []string{"0.0.0.0/0"}},
		{Protocol: "17", FromPort: 53, ToPort: 53, CIDRs: []string{"10.0.0.0/16"}},
		{Protocol: "6", FromPort: 53, ToPort: 53, CIDRs: []string{"10.0.0.0/16"}},
	}
}

// nodeSubnetACL gives the node subnet a network ACL of its own with entries, ending in the
// implicit deny.
func nodeSubnetACL(entries ...snapshot.ACLEntry) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		entries = append(entries,
			snapshot.ACLEntry{RuleNumber: 32767, Egress: true, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0"},
			snapshot.ACLEntry{RuleNumber: 32767, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0"})
		s.NetworkACLs = append(s.NetworkACLs, snapshot.NetworkACL{ID: "acl-0nodes", VpcID: vpcA,
			SubnetIDs: []string{subnetA}, Entries: entries})
	}
}

// TestWayOutHealthyShapes runs every check over the healthy shapes of a node subnet's way out
// (domain reference, section h) and their broken twins: the healthy ones raise nothing above
// info, the broken ones the finding that names them.
func TestWayOutHealthyShapes(t *testing.T) {
	allowVPC := []snapshot.ACLEntry{
		{RuleNumber: 100, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "10.0.0.0/16"},
		{RuleNumber: 100, Egress: true, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "10.0.0.0/16"},
	}
	hardenedACL := append([]snapshot.ACLEntry{
		{RuleNumber: 110, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 1024, ToPort: 65535},
		{RuleNumber: 110, Egress: true, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 443, ToPort: 443},
	}, allowVPC...)
	for _, tc := range []struct {
		name string
		edit func(*snapshot.Snapshot)
		want []string
	}{
		{name: "NAT gateway in a public subnet, default ACL, hardened security groups",
			edit: edits(withNATPath, hardenedGroups)},
		{name: "NAT gateway, an ACL allowing replies from anywhere, 443 out and all within the VPC",
			edit: edits(withNATPath, hardenedGroups, nodeSubnetACL(hardenedACL...))},
		{name: "broken twin: the ACL admits replies from the VPC only",
			edit: edits(withNATPath, hardenedGroups, nodeSubnetACL(append([]snapshot.ACLEntry{
				{RuleNumber: 110, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 443, ToPort: 443},
				{RuleNumber: 110, Egress: true, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0"},
			}, allowVPC...)...)),
			want: []string{"critical network-acl-blocks-node-traffic  subnet/subnet-0aaa"}},
		{name: "broken twin: the NAT gateway's subnet has no internet gateway route",
			edit: edits(natOnMainTable, hardenedGroups),
			want: []string{"critical subnet-no-egress-route  subnet/subnet-0aaa"}},
		{name: "NAT instance (fck-nat): assumed, an info",
			edit: edits(defaultRoute("eni-0fcknat", snapshot.RouteActive), hardenedGroups, nodeSubnetACL(hardenedACL...)),
			want: []string{"info subnet-no-egress-route  subnet/subnet-0aaa"}},
		{name: "Network Firewall endpoint: assumed, an info",
			edit: edits(defaultRoute("vpce-0fw", snapshot.RouteActive), hardenedGroups, nodeSubnetACL(allowVPC...)),
			want: []string{"info subnet-no-egress-route  subnet/subnet-0aaa"}},
		{name: "NAT gateway behind a Network Firewall endpoint: assumed, an info",
			edit: edits(natPublicRoute("vpce-0fw", snapshot.RouteActive), hardenedGroups),
			want: []string{"info subnet-no-egress-route  subnet/subnet-0aaa"}},
		{name: "regional NAT gateway: no public subnet, its own route table to the internet gateway",
			edit: edits(withRegionalNAT, hardenedGroups, nodeSubnetACL(hardenedACL...))},
		{name: "broken twin: the regional NAT gateway's own table has no internet gateway route",
			edit: edits(regionalNATRoute(""), hardenedGroups),
			want: []string{"critical subnet-no-egress-route  subnet/subnet-0aaa"}},
		{name: "regional NAT gateway with zones by hand, one of them the nodes' zone",
			edit: edits(regionalNATZones("us-west-2a"), hardenedGroups)},
		{name: "broken twin: a regional NAT gateway with zones by hand, none of them the nodes' zone",
			edit: edits(regionalNATZones("us-west-2b"), hardenedGroups),
			want: []string{"critical subnet-no-egress-route  subnet/subnet-0aaa"}},
		{name: "private NAT gateway whose subnet routes to a transit gateway: assumed, an info",
			edit: edits(withPrivateNAT("tgw-0egress"), hardenedGroups, nodeSubnetACL(allowVPC...)),
			want: []string{"info subnet-no-egress-route  subnet/subnet-0aaa"}},
		{name: "broken twin: a private NAT gateway whose subnet routes to an internet gateway",
			edit: edits(withPrivateNAT(igwA), hardenedGroups),
			want: []string{"critical subnet-no-egress-route  subnet/subnet-0aaa"}},
		{name: "zonal public NAT gateway in a public subnet whose ACL admits both sides",
			edit: edits(withNATPath, hardenedGroups, nodeSubnetACL(hardenedACL...), natSubnetOwnACL(natSubnetHardened...))},
		{name: "broken twin: the NAT gateway's subnet's ACL does not let the replies out to the nodes",
			edit: edits(withNATPath, hardenedGroups, nodeSubnetACL(hardenedACL...), natSubnetOwnACL(natSubnetHardened[:3]...)),
			want: []string{"critical subnet-no-egress-route  subnet/subnet-0aaa"}},
		{name: "private cluster: every endpoint and an ACL allowing only the VPC",
			edit: edits(withoutDefaultRoute, withEndpoints, hardenedGroups, nodeSubnetACL(allowVPC...))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := keys(Analyze(edited(healthy(), tc.edit), Options{}).Findings)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}
