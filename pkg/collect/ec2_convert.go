package collect

import (
	"cmp"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpnet/kubectl-karpnet/internal/ec2xml"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2Subnet converts a DescribeSubnets subnet.
func ec2Subnet(sn types.Subnet) snapshot.Subnet {
	return snapshot.Subnet{
		ID: ec2Deref(sn.SubnetId), VpcID: ec2Deref(sn.VpcId), CIDR: ec2Deref(sn.CidrBlock),
		Zone: ec2Deref(sn.AvailabilityZone), ZoneID: ec2Deref(sn.AvailabilityZoneId),
		AvailableIPs: ec2Deref(sn.AvailableIpAddressCount), Tags: ec2xml.Tags(sn.Tags),
		IPv6CIDRs:           ec2SubnetIPv6(sn.Ipv6CidrBlockAssociationSet),
		MapPublicIPOnLaunch: ec2Deref(sn.MapPublicIpOnLaunch),
	}
}

// ec2SubnetIPv6 returns the associated IPv6 CIDR blocks of a subnet, sorted.
func ec2SubnetIPv6(set []types.SubnetIpv6CidrBlockAssociation) []string {
	var out []string
	for _, a := range set {
		state := types.SubnetCidrBlockStateCodeAssociated
		if a.Ipv6CidrBlockState != nil {
			state = a.Ipv6CidrBlockState.State
		}
		if v := ec2Deref(a.Ipv6CidrBlock); v != "" && state == types.SubnetCidrBlockStateCodeAssociated {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// ec2SecurityGroup converts a DescribeSecurityGroups group with its rules.
func ec2SecurityGroup(g types.SecurityGroup) snapshot.SecurityGroup {
	return snapshot.SecurityGroup{
		ID: ec2Deref(g.GroupId), Name: ec2Deref(g.GroupName), VpcID: ec2Deref(g.VpcId),
		Inbound: ec2Rules(g.IpPermissions), Outbound: ec2Rules(g.IpPermissionsEgress), Tags: ec2xml.Tags(g.Tags),
	}
}

func ec2Rules(perms []types.IpPermission) []snapshot.Rule {
	var out []snapshot.Rule
	for _, p := range perms {
		r := snapshot.Rule{
			Protocol: ec2Deref(p.IpProtocol), FromPort: ec2Deref(p.FromPort), ToPort: ec2Deref(p.ToPort),
		}
		for _, v := range p.IpRanges {
			r.CIDRs = ec2AppendSet(r.CIDRs, ec2Deref(v.CidrIp))
		}
		for _, v := range p.Ipv6Ranges {
			r.IPv6CIDRs = ec2AppendSet(r.IPv6CIDRs, ec2Deref(v.CidrIpv6))
		}
		for _, v := range p.UserIdGroupPairs {
			r.GroupIDs = ec2AppendSet(r.GroupIDs, ec2Deref(v.GroupId))
		}
		for _, v := range p.PrefixListIds {
			r.PrefixListIDs = ec2AppendSet(r.PrefixListIDs, ec2Deref(v.PrefixListId))
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b snapshot.Rule) int {
		return cmp.Or(strings.Compare(a.Protocol, b.Protocol), cmp.Compare(a.FromPort, b.FromPort),
			cmp.Compare(a.ToPort, b.ToPort))
	})
	return out
}

// ec2AppendSet inserts v into the sorted set s, skipping empty and duplicate values.
func ec2AppendSet(s []string, v string) []string {
	if v == "" {
		return s
	}
	i, found := slices.BinarySearch(s, v)
	if found {
		return s
	}
	return slices.Insert(s, i, v)
}

// ec2PlacementGroup converts a DescribePlacementGroups group.
func ec2PlacementGroup(g types.PlacementGroup) snapshot.PlacementGroup {
	return snapshot.PlacementGroup{
		ID: ec2Deref(g.GroupId), Name: ec2Deref(g.GroupName), Strategy: string(g.Strategy),
		PartitionCount: ec2Deref(g.PartitionCount), SpreadLevel: string(g.SpreadLevel), State: string(g.State),
	}
}

// ec2InstanceType converts a DescribeInstanceTypes answer into its network limits.
func ec2InstanceType(t types.InstanceTypeInfo) snapshot.InstanceType {
	out := snapshot.InstanceType{
		Name: string(t.InstanceType), Hypervisor: string(t.Hypervisor), BareMetal: ec2Deref(t.BareMetal),
	}
	if t.VCpuInfo != nil {
		out.VCPUs = ec2Deref(t.VCpuInfo.DefaultVCpus)
	}
	n := t.NetworkInfo
	if n == nil {
		return out
	}
	out.MaxENIs = ec2Deref(n.MaximumNetworkInterfaces)
	out.DefaultNetworkCardIndex = ec2Deref(n.DefaultNetworkCardIndex)
	out.IPv4PerENI = ec2Deref(n.Ipv4AddressesPerInterface)
	out.IPv6PerENI = ec2Deref(n.Ipv6AddressesPerInterface)
	out.EFASupported = ec2Deref(n.EfaSupported)
	out.NetworkPerformance = ec2Deref(n.NetworkPerformance)
	if n.EfaInfo != nil {
		out.MaxEFAInterfaces = ec2Deref(n.EfaInfo.MaximumEfaInterfaces)
	}
	out.ENAExpress = ec2Deref(n.EnaSrdSupported)
	for _, c := range n.NetworkCards {
		out.NetworkCards = append(out.NetworkCards, snapshot.NetworkCard{
			Index: ec2Deref(c.NetworkCardIndex), MaxENIs: ec2Deref(c.MaximumNetworkInterfaces),
		})
		if ec2Deref(c.NetworkCardIndex) == out.DefaultNetworkCardIndex {
			out.BaselineGbps, out.PeakGbps = ec2Deref(c.BaselineBandwidthInGbps), ec2Deref(c.PeakBandwidthInGbps)
		}
	}
	slices.SortFunc(out.NetworkCards, func(a, b snapshot.NetworkCard) int { return cmp.Compare(a.Index, b.Index) })
	return out
}
