package snapshot

import (
	"slices"
	"testing"
)

func TestPrefixCarving(t *testing.T) {
	two := int32(2)
	zero := int32(0)
	classes := []EC2NodeClass{
		{Name: "plain", StatusSubnets: []SubnetStatus{{ID: "subnet-a"}}},
		{Name: "prefixes", IPPrefixCount: &two, StatusSubnets: []SubnetStatus{{ID: "subnet-c"}, {ID: "subnet-b"}}},
		{Name: "none", IPPrefixCount: &zero, StatusSubnets: []SubnetStatus{{ID: "subnet-d"}}},
		{Name: "again", IPPrefixCount: &two, StatusSubnets: []SubnetStatus{{ID: "subnet-b"}}},
	}
	auto := EC2NodeClass{Name: "auto", Group: AutoModeGroup, Kind: KindNodeClass}
	secondaryIP := auto
	secondaryIP.IPv4PrefixSize = "32"
	for _, tc := range []struct {
		name    string
		s       Snapshot
		all     bool
		subnets []string
	}{
		{name: "no aws-node, no class", s: Snapshot{}},
		{name: "prefix delegation off", s: Snapshot{AWSNode: &AWSNode{Env: map[string]string{EnvPrefixDelegation: "false"}}, NodeClasses: classes[:1]}},
		{name: "prefix delegation on", s: Snapshot{AWSNode: &AWSNode{Env: map[string]string{EnvPrefixDelegation: " True "}}}, all: true},
		{name: "classes with ipPrefixCount", s: Snapshot{NodeClasses: classes}, subnets: []string{"subnet-b", "subnet-c"}},
		{name: "Auto Mode prefix mode", s: Snapshot{NodeClasses: []EC2NodeClass{auto}}, all: true},
		{name: "Auto Mode secondary-IP mode", s: Snapshot{NodeClasses: []EC2NodeClass{secondaryIP}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all, subnets := tc.s.PrefixCarving()
			if all != tc.all || !slices.Equal(subnets, tc.subnets) {
				t.Errorf("PrefixCarving() = %v, %q; want %v, %q", all, subnets, tc.all, tc.subnets)
			}
		})
	}
}
