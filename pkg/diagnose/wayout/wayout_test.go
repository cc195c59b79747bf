package wayout

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/fixture"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestSubnetRegion(t *testing.T) {
	for zone, want := range map[string]string{
		"us-west-2a":              "us-west-2",
		"us-west-2-lax-1a":        "us-west-2",
		"us-east-1-wl1-bos-wlz-1": "us-east-1",
		"us-gov-west-1a":          "us-gov-west-1",
		"cn-north-1a":             "cn-north-1",
		"":                        "eu-west-1",
		"weird":                   "eu-west-1",
	} {
		if got := subnetRegion(&snapshot.Subnet{Zone: zone}, "eu-west-1"); got != want {
			t.Errorf("subnetRegion(%q) = %q, want %q", zone, got, want)
		}
	}
}

func TestServiceIs(t *testing.T) {
	for _, tc := range []struct {
		name, region, svc string
		want              bool
	}{
		{"com.amazonaws.us-west-2.ecr.api", "us-west-2", "ecr.api", true},
		{"cn.com.amazonaws.cn-north-1.ecr.dkr", "cn-north-1", "ecr.dkr", true},
		{"com.amazonaws.us-west-2.ecr.api", "us-east-1", "ecr.api", false},
		{"com.amazonaws.us-west-2.ecr.api", "", "ecr.api", true},
		{"com.amazonaws.us-west-2.api", "us-west-2", "ecr.api", false},
		{"com.amazonaws.us-west-2.s3-global.accesspoint", "us-west-2", "s3", false},
		{"com.amazonaws.vpce.us-west-2.vpce-svc-0123", "us-west-2", "sts", false},
	} {
		if got := serviceIs(tc.name, tc.region, tc.svc); got != tc.want {
			t.Errorf("serviceIs(%q, %q, %q) = %v, want %v", tc.name, tc.region, tc.svc, got, tc.want)
		}
	}
}

func TestACLDenied(t *testing.T) {
	hardened := []snapshot.ACLEntry{
		{RuleNumber: 100, Egress: true, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 443, ToPort: 443},
		{RuleNumber: 100, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 1024, ToPort: 65535},
		{RuleNumber: 32767, Egress: true, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0"},
		{RuleNumber: 32767, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0"},
	}
	// vpcAnd443 is the common mistake: inbound all from the VPC CIDR and TCP 443 from anywhere.
	vpcAnd443 := []snapshot.ACLEntry{
		{RuleNumber: 100, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "10.0.0.0/16"},
		{RuleNumber: 110, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 443, ToPort: 443},
	}
	endpointPeer := aclPeer{name: "endpoints", kind: peerCIDR, cidr: netip.MustParsePrefix("10.0.3.0/24")}
	cases := []struct {
		name    string
		entries []snapshot.ACLEntry
		peer    aclPeer // the zero peer is judged leniently
		egress  bool
		lo, hi  int32
		want    []string
		passed  []int32
	}{
		{name: "default ACL out", entries: fixture.DefaultACL().Entries, egress: true, lo: 443, hi: 443},
		{name: "default ACL in", entries: fixture.DefaultACL().Entries, lo: 32768, hi: 60999},
		{name: "hardened out", entries: hardened, egress: true, lo: 443, hi: 443},
		{name: "hardened in", entries: hardened, lo: 32768, hi: 60999},
		{name: "no entries deny by the last rule", egress: true, lo: 443, hi: 443, want: []string{"443 by rule *"}},
		{name: "a lower deny wins over a later allow", entries: append([]snapshot.ACLEntry{
			{RuleNumber: 50, Protocol: "6", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0", FromPort: 40000, ToPort: 50000},
		}, hardened...), lo: 32768, hi: 60999, want: []string{"40000-50000 by rule 50"}},
		{name: "a narrow allow leaves the rest to the last rule", entries: []snapshot.ACLEntry{
			{RuleNumber: 200, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 32768, ToPort: 40000},
			{RuleNumber: 32767, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0"},
		}, lo: 32768, hi: 60999, want: []string{"40001-60999 by rule 32767"}},
		{name: "a deny of one CIDR does not count (lenient)", entries: append([]snapshot.ACLEntry{
			{RuleNumber: 10, Egress: true, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "192.0.2.0/24"},
		}, hardened...), egress: true, lo: 443, hi: 443},
		{name: "an allow of one CIDR counts (lenient)", entries: []snapshot.ACLEntry{
			{RuleNumber: 10, Egress: true, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "10.0.0.0/16", FromPort: 443, ToPort: 443},
		}, egress: true, lo: 443, hi: 443},
		{name: "UDP and IPv6 entries do not admit TCP", entries: []snapshot.ACLEntry{
			{RuleNumber: 10, Egress: true, Protocol: "17", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0"},
			{RuleNumber: 20, Egress: true, Protocol: "-1", Action: snapshot.ACLAllow, IPv6CIDR: "::/0"},
		}, egress: true, lo: 443, hi: 443, want: []string{"443 by rule *"}},

		// The internet as the peer: only wide public CIDRs count.
		{name: "internet: the default ACL admits replies", entries: fixture.DefaultACL().Entries, peer: peerInternet,
			lo: 32768, hi: 60999},
		{name: "internet: 1024-65535 from 0.0.0.0/0 admits replies", entries: hardened, peer: peerInternet,
			lo: 32768, hi: 60999},
		{name: "internet: allow all from the VPC and 443 from anywhere drop the replies", entries: vpcAnd443,
			peer: peerInternet, lo: 32768, hi: 60999, want: []string{"32768-60999 by rule *"}, passed: []int32{100}},
		{name: "internet: RFC 1918 and narrow public ranges do not admit it", entries: []snapshot.ACLEntry{
			{RuleNumber: 100, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "10.0.0.0/8"},
			{RuleNumber: 110, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "172.16.0.0/12"},
			{RuleNumber: 120, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "52.94.0.0/16", FromPort: 1024, ToPort: 65535},
		}, peer: peerInternet, lo: 32768, hi: 60999, want: []string{"32768-60999 by rule *"}, passed: []int32{100, 110, 120}},
		{name: "internet: two public halves admit it", entries: []snapshot.ACLEntry{
			{RuleNumber: 100, Egress: true, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/1", FromPort: 443, ToPort: 443},
		}, peer: peerInternet, egress: true, lo: 443, hi: 443},
		{name: "internet: a /24 blocklist does not block it", entries: append([]snapshot.ACLEntry{
			{RuleNumber: 10, Egress: true, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "198.51.100.0/24"},
		}, hardened...), peer: peerInternet, egress: true, lo: 443, hi: 443},
		{name: "internet: a deny of 0.0.0.0/0 blocks it", entries: append([]snapshot.ACLEntry{
			{RuleNumber: 10, Egress: true, Protocol: "6", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0", FromPort: 443, ToPort: 443},
		}, hardened...), peer: peerInternet, egress: true, lo: 443, hi: 443, want: []string{"443 by rule 10"}},
		{name: "internet: outbound to the VPC and 1024-65535 anywhere drop 443", entries: []snapshot.ACLEntry{
			{RuleNumber: 100, Egress: true, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "10.0.0.0/16"},
			{RuleNumber: 110, Egress: true, Protocol: "6", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0", FromPort: 1024, ToPort: 65535},
		}, peer: peerInternet, egress: true, lo: 443, hi: 443, want: []string{"443 by rule *"}, passed: []int32{100}},

		// An endpoint subnet as the peer: an allow overlapping it counts, a deny only holding it.
		{name: "endpoints: allow all from the VPC admits replies", entries: vpcAnd443, peer: endpointPeer,
			lo: 32768, hi: 60999},
		{name: "endpoints: an allow of another subnet does not", entries: []snapshot.ACLEntry{
			{RuleNumber: 100, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "10.0.9.0/24"},
		}, peer: endpointPeer, lo: 32768, hi: 60999, want: []string{"32768-60999 by rule *"}, passed: []int32{100}},
		{name: "endpoints: a deny of part of the subnet does not count, of all of it does", entries: []snapshot.ACLEntry{
			{RuleNumber: 10, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "10.0.3.128/25"},
			{RuleNumber: 20, Protocol: "6", Action: snapshot.ACLDeny, CIDR: "10.0.0.0/16", FromPort: 40000, ToPort: 40010},
			{RuleNumber: 100, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0"},
		}, peer: endpointPeer, lo: 32768, hi: 60999, want: []string{"40000-40010 by rule 20"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			denied, passed := aclDenied(&snapshot.NetworkACL{Entries: tc.entries}, tc.egress, tc.lo, tc.hi, tc.peer)
			for _, d := range denied {
				got = append(got, d.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("denied (-want +got):\n%s", diff)
			}
			var rules []int32
			for _, e := range passed {
				rules = append(rules, e.RuleNumber)
			}
			if diff := cmp.Diff(tc.passed, rules); diff != "" {
				t.Errorf("allow rules passed over (-want +got):\n%s", diff)
			}
		})
	}
}
