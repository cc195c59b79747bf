package diagnose

import (
	"fmt"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestSubnetPrefixFragmented: subnetA is 10.0.1.0/24, sixteen /28 blocks of which the first
// and the last hold AWS's reserved addresses; with prefix delegation the healthy m5.large's
// next twin carves one warm /28 prefix (WARM_PREFIX_TARGET=1).
func TestSubnetPrefixFragmented(t *testing.T) {
	pd := cniEnv(SettingPrefixDelegation, "true")
	read := func(s *snapshot.Snapshot) { s.AddressSubnets = []string{subnetA} }
	// scatter puts one address of an AWS Lambda interface in each block of from..to, and sets
	// the subnet's free count.
	scatter := func(from, to int, free int32) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			e := snapshot.InterfaceRecord{ID: "eni-0lambda", SubnetID: subnetA, Status: snapshot.InterfaceInUse,
				InterfaceType: "lambda", Description: "AWS Lambda VPC ENI-resize"}
			for b := from; b <= to; b++ {
				e.PrivateIPs = append(e.PrivateIPs, fmt.Sprintf("10.0.1.%d", b*16+7))
			}
			s.Interfaces = append(s.Interfaces, e)
			s.Subnets[0].AvailableIPs = free
		}
	}
	// prefixes gives the healthy node n /28 prefixes in blocks from its first.
	prefixes := func(first, n int) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			for b := first; b < first+n; b++ {
				s.Instances[0].ENIs[0].IPv4Prefixes = append(s.Instances[0].ENIs[0].IPv4Prefixes, fmt.Sprintf("10.0.1.%d/28", b*16))
			}
		}
	}
	// The node holds 10.0.1.10 (block 0) and 10.0.1.200 (block 12).
	const poolRemedy = "add subnets in us-west-2a to spec.subnetSelectorTerms of EC2NodeClass default (new nodes go to the " +
		"roomiest subnet of the zone; EC2NodeClass default serves 1 node (m5.large), which stay where they are), or give the VPC a larger or secondary CIDR; subnet discovery puts pods' ENIs in subnets " +
		"tagged kubernetes.io/role/cni=1 (VPC CNI 1.18+)"
	reserve := func(cidr string) string {
		return "keep the free blocks for prefixes so single addresses stop landing in them: reserve " + cidr + ", the " +
			"largest free run of subnet-0aaa, for prefixes (the command; a reservation may cover addresses in use, it " +
			"frees none); or " + poolRemedy
	}
	reservation := func(cidr string) []Command { return []Command{prefixReservationOf(cidr)} }
	runCheckCases(t, subnetPrefixFragmented, []checkCase{
		{name: "no subnet read in full is silent", edit: edits(pd, scatter(1, 14, 180))},
		{name: "prefix delegation off: nothing carves prefixes", edit: edits(read, scatter(1, 14, 180))},
		{name: "a roomy subnet with free blocks is silent", edit: edits(pd, read)},
		{
			name: "every block partly used is critical",
			edit: edits(pd, read, scatter(1, 14, 200)),
			want: []Finding{{ID: "subnet-prefix-fragmented", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "EC2NodeClass default in us-west-2a carves /28 prefixes from subnet-0aaa, where its next node goes (the most " +
					"free addresses): 200 addresses free (10.0.1.0/24), 14 blocks partly used: every block holds at least one " +
					`address or is reserved, e.g. 10.0.1.23 (eni-0lambda, "AWS Lambda VPC ENI-resize"), 0 free /28 blocks; the ` +
					"next node carves 1 prefix at once (1 warm /28 prefix at start on an m5.large)",
				Remedy: "no /28 block of subnet-0aaa is free: blocks come back only when every address in them is released; " +
					poolRemedy + ", and keep the new subnet's space for prefixes: once it exists, reserve its CIDR with " +
					"reservation type prefix (EC2 CreateSubnetCidrReservation)",
			}},
		},
		{
			// Few free addresses, all in whole blocks: prefixes still fit (domain.md, healthy shapes).
			name: "a packed small subnet with whole free blocks is silent",
			edit: edits(pd, read, scatter(1, 11, 40), prefixes(13, 0)),
		},
		{
			name: "too few addresses for a prefix at all is subnet-ip-exhaustion's",
			edit: edits(pd, read, scatter(1, 14, 12)),
		},
		{
			name: "free blocks for fewer than 5 nodes while addresses fit more is a warning",
			edit: edits(pd, read, scatter(1, 11, 150)), // blocks 13 and 14 free
			want: []Finding{{ID: "subnet-prefix-fragmented", Severity: Warning, Resource: "subnet/" + subnetA,
				Message: "only 2 more nodes of EC2NodeClass default in us-west-2a fit in the free /28 blocks of its subnet " +
					"(subnet-0aaa: 150 addresses free (10.0.1.0/24), 12 blocks partly used, e.g. 10.0.1.23 (eni-0lambda, " +
					`"AWS Lambda VPC ENI-resize"), 2 free /28 blocks), each carving 1 prefix (1 warm /28 prefix at start on an ` +
					"m5.large), although the free addresses would fit 9",
				Remedy: reserve("10.0.1.208/28"), Commands: reservation("10.0.1.208/28"),
			}},
		},
		{
			name: "an EC2NodeClass's ipPrefixCount carves prefixes without prefix delegation",
			edit: edits(read, scatter(1, 13, 200), func(s *snapshot.Snapshot) {
				two := int32(2)
				s.NodeClasses[0].IPPrefixCount = &two
			}),
			want: []Finding{{ID: "subnet-prefix-fragmented", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "EC2NodeClass default in us-west-2a carves /28 prefixes from subnet-0aaa, where its next node goes (the most " +
					"free addresses): 200 addresses free (10.0.1.0/24), 13 blocks partly used, e.g. 10.0.1.23 (eni-0lambda, " +
					`"AWS Lambda VPC ENI-resize"), 1 free /28 block; the next node carves 2 prefixes at once (spec.ipPrefixCount 2 ` +
					"of EC2NodeClass default)",
				Remedy: reserve("10.0.1.224/28") + ", and prefix delegation (aws-node ENABLE_PREFIX_DELEGATION=true) packs pod " +
					"addresses into /28 prefixes",
				Commands: reservation("10.0.1.224/28"),
			}},
		},
		{
			name: "a subnet of the pool not read in full leaves the warning unsaid",
			edit: edits(pd, scatter(1, 11, 150), func(s *snapshot.Snapshot) { s.AddressSubnets = []string{"subnet-0other"} }),
		},
		{
			name: "a reservation wider than the subnet (0.0.0.0/0) reserves none of its blocks",
			edit: edits(pd, read, func(s *snapshot.Snapshot) {
				s.Subnets[0].AvailableIPs = 240
				s.CIDRReservations = []snapshot.CIDRReservation{
					{ID: "scr-0all", SubnetID: subnetA, CIDR: "0.0.0.0/0", Type: snapshot.ReservationExplicit},
					{ID: "scr-0vpc", SubnetID: subnetA, CIDR: "10.0.0.0/16", Type: snapshot.ReservationExplicit},
					{ID: "scr-0next", SubnetID: subnetA, CIDR: "10.0.2.0/24", Type: snapshot.ReservationExplicit},
				}
			}),
		},
		{
			name: "its twin within the subnet reserves every block",
			edit: edits(pd, read, func(s *snapshot.Snapshot) {
				s.Subnets[0].AvailableIPs = 240
				s.CIDRReservations = []snapshot.CIDRReservation{
					{ID: "scr-0all", SubnetID: subnetA, CIDR: "10.0.1.0/24", Type: snapshot.ReservationExplicit},
				}
			}),
			want: []Finding{{ID: "subnet-prefix-fragmented", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: "EC2NodeClass default in us-west-2a carves /28 prefixes from subnet-0aaa, where its next node goes " +
					"(the most free addresses): 240 addresses free (10.0.1.0/24), 0 free /28 blocks; the next node carves 1 " +
					"prefix at once (1 warm /28 prefix at start on an m5.large)",
				Remedy: "no /28 block of subnet-0aaa is free: blocks come back only when every address in them is released; " +
					poolRemedy + ", and keep the new subnet's space for prefixes: once it exists, reserve its CIDR with " +
					"reservation type prefix (EC2 CreateSubnetCidrReservation)"}},
		},
		{
			name: "an explicit reservation takes blocks; a prefix reservation keeps them",
			edit: edits(pd, read, scatter(1, 11, 150), func(s *snapshot.Snapshot) {
				s.CIDRReservations = []snapshot.CIDRReservation{
					{ID: "scr-0a", SubnetID: subnetA, CIDR: "10.0.1.208/28", Type: snapshot.ReservationExplicit},
					{ID: "scr-0b", SubnetID: subnetA, CIDR: "10.0.1.224/28", Type: snapshot.ReservationPrefix},
				}
			}),
			want: []Finding{{ID: "subnet-prefix-fragmented", Severity: Warning, Resource: "subnet/" + subnetA,
				Message: "only 1 more node of EC2NodeClass default in us-west-2a fit in the free /28 blocks of its subnet " +
					"(subnet-0aaa: 150 addresses free (10.0.1.0/24), 12 blocks partly used, e.g. 10.0.1.23 (eni-0lambda, " +
					`"AWS Lambda VPC ENI-resize"), 1 free /28 block), each carving 1 prefix (1 warm /28 prefix at start on an ` +
					"m5.large), although the free addresses would fit 9",
				Remedy: "the free /28 blocks of subnet-0aaa are already reserved for prefixes; " +
					poolRemedy + ", and keep the new subnet's space for prefixes: once it exists, reserve its CIDR with " +
					"reservation type prefix (EC2 CreateSubnetCidrReservation)",
			}},
		},
	})
}

// TestSubnetPrefixFragmentedRemedy: the remedy reserves the largest free run for prefixes, or
// points at a new subnet when no block is free.
func TestSubnetPrefixFragmentedRemedy(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		lastBusy   int
	}{
		{"free run", "reserve 10.0.1.208/28, the largest free run of subnet-0aaa, for prefixes (the command", 12},
		{"no free block", "no /28 block of subnet-0aaa is free", 14},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := healthy()
			s.AddressSubnets = []string{subnetA}
			cniEnv(SettingPrefixDelegation, "true")(s)
			e := snapshot.InterfaceRecord{ID: "eni-0lambda", SubnetID: subnetA, Status: snapshot.InterfaceInUse}
			for b := 1; b <= tc.lastBusy; b++ {
				e.PrivateIPs = append(e.PrivateIPs, fmt.Sprintf("10.0.1.%d", b*16+7))
			}
			s.Interfaces = []snapshot.InterfaceRecord{e}
			s.Subnets[0].AvailableIPs = 150
			got := subnetPrefixFragmented.Findings(NewIndex(s))
			if len(got) != 1 || !strings.Contains(got[0].Remedy, tc.want) {
				t.Fatalf("findings %+v; want one whose remedy has %q", got, tc.want)
			}
		})
	}
}

// TestSubnetPrefixFragmentedAutoMode: EKS Auto Mode in prefix mode falls back to single
// addresses when no /28 block is free, so a fragmented node subnet is a warning, not a
// critical; in secondary-IP mode ("32") nothing is carved and the check is silent.
func TestSubnetPrefixFragmentedAutoMode(t *testing.T) {
	fragmented := func(s *snapshot.Snapshot) {
		s.AddressSubnets = []string{subnetA, subnetAutoB}
		for _, sub := range []struct{ id, base string }{{subnetA, "10.0.1."}, {subnetAutoB, "10.0.2."}} {
			e := snapshot.InterfaceRecord{ID: "eni-0lambda-" + sub.id, SubnetID: sub.id, Status: snapshot.InterfaceInUse,
				Description: "AWS Lambda VPC ENI-resize"}
			for b := 1; b <= 14; b++ {
				e.PrivateIPs = append(e.PrivateIPs, fmt.Sprintf("%s%d", sub.base, b*16+9))
			}
			s.Interfaces = append(s.Interfaces, e)
		}
	}
	got := subnetPrefixFragmented.Findings(NewIndex(edited(autoHealthy(), fragmented)))
	if len(got) != 1 || got[0].Severity != Warning || got[0].Resource != "subnet/"+subnetA ||
		!strings.Contains(got[0].Message, "Auto Mode then gives pods single addresses") {
		t.Errorf("prefix mode: findings %+v, want one warning on subnet/%s saying Auto Mode falls back", got, subnetA)
	}
	secondaryIP := edits(fragmented, func(s *snapshot.Snapshot) { autoClass(s).IPv4PrefixSize = "32" })
	if got := subnetPrefixFragmented.Findings(NewIndex(edited(autoHealthy(), secondaryIP))); len(got) != 0 {
		t.Errorf("secondary-IP mode: findings %+v, want none", got)
	}
}

// prefixReservationOf is the command that reserves cidr of the healthy fixture's subnet for
// prefixes, which reaches its one node.
func prefixReservationOf(cidr string) Command {
	return Command{Argv: []string{"aws", "ec2", "create-subnet-cidr-reservation", "--subnet-id", subnetA, "--cidr", cidr,
		"--reservation-type", "prefix"}, Changes: "subnet/" + subnetA + ": " + cidr + " reserved for prefixes",
		Affects: "every interface in " + subnetA + " takes single addresses from outside " + cidr + " from now on: 1 node (m5.large)"}
}
