package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/subnetcap"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specSubnetPrefixFragmented = &Spec{
	ID:       "subnet-prefix-fragmented",
	Severity: Critical,
	Lower:    []Severity{Warning},
	Family:   FamilyCore,
	Needs:    []string{snapshot.SourceDescribeSubnets},
	Examines: []string{SubjectSubnet},
	Title:    "a subnet prefixes are carved from has free addresses but too few free /28 blocks",
	FiresWhen: "judged per pool of subnets as `subnet-ip-exhaustion` is, for the pools whose next node carves " +
		"/28 prefixes: an EC2NodeClass's `ipPrefixCount`, ipamd's warm prefixes with prefix delegation " +
		"(`ENABLE_PREFIX_DELEGATION=true`, Nitro types) in the node, ENIConfig or discovered pod subnet, and " +
		"EKS Auto Mode in prefix mode. karpnet reads every interface of those subnets and their CIDR " +
		"reservations and maps the subnet's aligned /28 blocks: a block is free when none of its addresses is " +
		"held, AWS's five reserved addresses and explicit reservations are not. Critical when the subnet the " +
		"next node goes to (the one with the most free addresses, as Karpenter and the VPC CNI choose) has " +
		"addresses enough for its prefixes but fewer free blocks than it carves at once; warning when the " +
		"pool's free blocks fit fewer than 5 more nodes while its free addresses would fit them, or when Auto " +
		"Mode falls back to single addresses. The message shows both figures and a holder of a partly used " +
		"block",
	NotOn: "subnets nothing carves prefixes from (no reads happen there), a packed small subnet whose free " +
		"addresses lie in whole blocks, subnets too short of addresses for the prefixes at all " +
		"(`subnet-ip-exhaustion` speaks), IPv6 /80 prefixes (a /64 holds 65,536 of them), subnets whose " +
		"interfaces were not all read; a CIDR reservation not within the subnet (0.0.0.0/0, the VPC's CIDR: a " +
		"reservation is a range of the subnet's own addresses) reserves none of its blocks, and the block map names it " +
		"as ignored",
	Why: "ipamd cannot attach a prefix (`InsufficientCidrBlocks`) although the subnet shows free addresses: " +
		"pods stick in ContainerCreating and launches with `ipPrefixCount` fail",
	Remedy: "keep free blocks for prefixes with a prefix CIDR reservation " +
		"(`aws ec2 create-subnet-cidr-reservation --reservation-type prefix`), or a new subnet for the pool",
	Scope: "a prefix reservation of the subnet's largest free aligned run, which keeps every interface in the subnet from taking single addresses there from now on (addresses in use stay); a new subnet is the user's to create and stays in prose",
	Sources: []string{
		"EC2 User Guide, Assign prefixes to Amazon EC2 network interfaces (automatic assignment, prefix reservations)",
		"VPC User Guide, Subnet CIDR reservations",
		"EKS Best Practices, Prefix mode for Linux (subnet fragmentation)",
		"aws/amazon-vpc-cni-k8s#2749",
		"aws/amazon-vpc-cni-k8s pkg/ipamd/ipamd.go (InsufficientCidrBlocks back-off)",
		"awslabs/aws-support-tools#257",
	},
	Verified: []Verified{
		{UpstreamEC2API, "types/enums.go (SubnetCidrReservationType); api_op_CreateSubnetCidrReservation.go (ReservationType)",
			"A subnet CIDR reservation is prefix (AWS assigns its addresses to interfaces as prefixes) or explicit (only you assign them)."},
		{UpstreamEC2API, "types/types.go (LaunchTemplateInstanceNetworkInterfaceSpecificationRequest.Ipv4PrefixCount)",
			"A launch template interface may ask for Ipv4PrefixCount prefixes assigned automatically at launch."},
		{UpstreamKarpenter, "pkg/apis/v1/ec2nodeclass.go (IPPrefixCount); pkg/providers/launchtemplate/launchtemplate.go",
			"The EC2NodeClass's ipPrefixCount becomes the launch template's Ipv4PrefixCount (Ipv6PrefixCount on IPv6 clusters)."},
		{UpstreamVPCCNI, "pkg/ipamd/datastore/data_store.go (GetPrefixDelegationDefaults)",
			"ipamd's IPv4 prefixes are /28s of 16 addresses."},
		{UpstreamVPCCNI, "pkg/ipamd/ipamd.go (INSUFFICIENT_CIDR_BLOCKS, tryAllocateENI)",
			"When EC2 answers InsufficientCidrBlocks ipamd logs that the subnet has no room for the prefixes, suggests a CIDR reservation, and backs off 120 s."},
	},
}

// subnetPrefixFragmented finds the subnets prefixes are carved from that have free addresses
// but too few free aligned /28 blocks for the next nodes. It judges the pools of
// subnet-ip-exhaustion's model whose growth carves prefixes, against each subnet's block map
// (pkg/diagnose/blocks), which exists only for subnets whose every interface was read.
var subnetPrefixFragmented = Check{
	Spec: specSubnetPrefixFragmented,
	Run: func(x *Index) []Finding {
		if len(x.Snapshot.AddressSubnets) == 0 {
			return nil
		}
		var out []Finding
		seen := map[string]int{} // subnet reference -> index in out
		for _, p := range subnetPools(x) {
			if len(p.Subnets) == 0 || p.BlocksFirst <= 0 {
				continue
			}
			f, ok := poolFragmented(x, p)
			if !ok {
				continue
			}
			if i, dup := seen[f.Resource]; dup {
				if f.Severity > out[i].Severity {
					out[i] = f
				}
				continue
			}
			seen[f.Resource] = len(out)
			out = append(out, f)
		}
		return out
	},
}

// fragmented judges a prefix-carving pool by its subnets' block maps: critical when the
// subnet its next node goes to has room for the node's prefixes in addresses but not in free
// blocks; warning when its free blocks fit fewer than subnetcap.PoolWarnNodes more nodes while its
// addresses would fit them, or when the growth falls back to single addresses (Auto Mode).
func poolFragmented(x *Index, p subnetcap.Pool) (Finding, bool) {
	next := p.Subnets[0]
	if m, ok := x.BlockMap(next); ok && int64(m.Free) < p.BlocksFirst &&
		int64(max(next.AvailableIPs, 0)) >= p.BlocksFirst*prefixIPs {
		f := Finding{Resource: subnetRef(next.ID), Severity: Critical}
		if p.Fallback {
			f.Severity = Warning
		}
		f.Message = fmt.Sprintf("%s carves /28 prefixes from %s, where its next node goes (the most free addresses): %s, "+
			"%s; the next node carves %s at once (%s)", p.What, next.ID, blockFigures(next, m),
			countText(m.Free, "free /28 block", "free /28 blocks"), countText(p.BlocksFirst, "prefix", "prefixes"), p.BlocksFrom)
		if p.Fallback {
			f.Message += "; Auto Mode then gives pods single addresses, fewer per ENI"
		}
		f.Remedy, f.Commands = fragmentRemedy(x, next, m, p.Remedy)
		return f, true
	}
	var blocks, fitAddrs int64
	var maps []string
	var worst *snapshot.Subnet
	var worstMap BlockMap
	for _, s := range p.Subnets {
		m, ok := x.BlockMap(s)
		if !ok {
			return Finding{}, false // a subnet not read in full: its blocks are unknown
		}
		blocks += int64(m.Free)
		fitAddrs += int64(max(s.AvailableIPs, 0)) / max(p.BlocksEach*prefixIPs, 1)
		maps = append(maps, fmt.Sprintf("%s: %s, %s", s.ID, blockFigures(s, m), countText(m.Free, "free /28 block", "free /28 blocks")))
		if worst == nil || m.Free < worstMap.Free {
			worst, worstMap = s, m
		}
	}
	fit := blocks / max(p.BlocksEach, 1)
	if fit >= subnetcap.PoolWarnNodes || fitAddrs < subnetcap.PoolWarnNodes {
		return Finding{}, false
	}
	f := Finding{Resource: subnetRef(worst.ID), Severity: Warning}
	f.Message = fmt.Sprintf("only %s of %s fit in the free /28 blocks of %s (%s), each carving %s (%s), although "+
		"the free addresses would fit %d", countText(fit, "more node", "more nodes"), p.What, plural(len(p.Subnets), "its subnet", "its subnets"),
		strings.Join(maps, "; "), countText(p.BlocksEach, "prefix", "prefixes"), p.BlocksFrom, fitAddrs)
	f.Remedy, f.Commands = fragmentRemedy(x, worst, worstMap, p.Remedy)
	return f, true
}

// blockFigures says how many addresses of a subnet are free and what holds its partly used
// blocks, e.g. "935 addresses free; 0 blocks whole: every block holds at least one address,
// e.g. 10.20.64.7 (eni-0a1, 'AWS Lambda VPC ENI-fn')".
func blockFigures(s *snapshot.Subnet, m BlockMap) string {
	out := fmt.Sprintf("%s free (%s)", countText(max(s.AvailableIPs, 0), "address", "addresses"), s.CIDR)
	if m.Partly > 0 {
		out += fmt.Sprintf(", %s partly used", countText(m.Partly, "block", "blocks"))
		if m.Free == 0 {
			out += ": every block holds at least one address or is reserved"
		}
		if e := m.Example; e != nil {
			out += fmt.Sprintf(", e.g. %s (%s", e.Address, e.ENI)
			if e.Description != "" {
				out += fmt.Sprintf(", %q", e.Description)
			}
			out += ")"
		}
	}
	return out
}

// fragmentRemedy keeps a subnet's largest free run for prefixes with a prefix reservation,
// or, with no free block left, points at a new subnet, said in prose since the user creates it;
// the pool's own remedy follows.
func fragmentRemedy(x *Index, s *snapshot.Subnet, m BlockMap, poolRemedy string) (string, []Command) {
	if m.LargestFreeCIDR != "" {
		return fmt.Sprintf("keep the free blocks for prefixes so single addresses stop landing in them: reserve %s, "+
			"the largest free run of %s, for prefixes (the command; a reservation may cover addresses in use, it frees "+
			"none); or %s", m.LargestFreeCIDR, s.ID, poolRemedy), []Command{prefixReservation(x, s, m.LargestFreeCIDR)}
	}
	state := "no /28 block of " + s.ID + " is free: blocks come back only when every address in them is released"
	if m.Free > 0 {
		state = "the free /28 blocks of " + s.ID + " are already reserved for prefixes"
	}
	// The new subnet is the user's to create: its ID and CIDR are not known until then.
	return fmt.Sprintf("%s; %s, and keep the new subnet's space for prefixes: once it exists, reserve its CIDR "+
		"with reservation type prefix (EC2 CreateSubnetCidrReservation)", state, poolRemedy), nil
}

// prefixReservation is the AWS CLI command that reserves cidr of subnet s for prefixes, and
// whom it reaches: every interface in the subnet takes no more single addresses from it.
func prefixReservation(x *Index, s *snapshot.Subnet, cidr string) Command {
	return Command{Argv: []string{"aws", "ec2", "create-subnet-cidr-reservation", "--subnet-id", s.ID, "--cidr", cidr,
		"--reservation-type", "prefix"}, Changes: "subnet/" + s.ID + ": " + cidr + " reserved for prefixes",
		Affects: "every interface in " + s.ID + " takes single addresses from outside " + cidr + " from now on: " +
			nodesAffected(x, "interfaces-in/"+s.ID, func(n *NodeInfo) bool {
				return slices.ContainsFunc(n.instanceENIs(), func(e snapshot.ENI) bool { return e.SubnetID == s.ID })
			})}
}
