package collect

import (
	"cmp"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2Instance converts a DescribeInstances instance. Nil fields give zero values.
func ec2Instance(in types.Instance) snapshot.Instance {
	out := snapshot.Instance{
		ID: ec2Deref(in.InstanceId), Type: string(in.InstanceType),
		VpcID: ec2Deref(in.VpcId), SubnetID: ec2Deref(in.SubnetId), PrivateIP: ec2Deref(in.PrivateIpAddress),
		PublicIP:       ec2Deref(in.PublicIpAddress),
		SecurityGroups: ec2GroupRefs(in.SecurityGroups),
		Tags:           ec2Tags(in.Tags),
		Lifecycle:      string(in.InstanceLifecycle), CapacityReservationID: ec2Deref(in.CapacityReservationId),
	}
	if in.LaunchTime != nil {
		out.LaunchTime = in.LaunchTime.UTC()
	}
	if in.State != nil {
		out.State = string(in.State.Name)
	}
	if p := in.Placement; p != nil {
		out.Zone, out.ZoneID = ec2Deref(p.AvailabilityZone), ec2Deref(p.AvailabilityZoneId)
		out.Placement = snapshot.Placement{
			GroupName: ec2Deref(p.GroupName), GroupID: ec2Deref(p.GroupId),
			PartitionNumber: ec2Deref(p.PartitionNumber), Tenancy: string(p.Tenancy),
		}
	}
	for _, ni := range in.NetworkInterfaces {
		out.ENIs = append(out.ENIs, ec2ENI(ni))
	}
	slices.SortFunc(out.ENIs, func(a, b snapshot.ENI) int {
		return cmp.Or(cmp.Compare(a.NetworkCardIndex, b.NetworkCardIndex),
			cmp.Compare(a.DeviceIndex, b.DeviceIndex), strings.Compare(a.ID, b.ID))
	})
	return out
}

// ec2ENI converts an instance's network interface; the primary private IP comes first.
func ec2ENI(ni types.InstanceNetworkInterface) snapshot.ENI {
	out := snapshot.ENI{
		ID: ec2Deref(ni.NetworkInterfaceId), InterfaceType: cmp.Or(ec2Deref(ni.InterfaceType), "interface"),
		SubnetID: ec2Deref(ni.SubnetId), PrimaryIP: ec2Deref(ni.PrivateIpAddress),
		SecurityGroups: ec2GroupRefs(ni.Groups),
		Description:    ec2Deref(ni.Description), Status: string(ni.Status),
	}
	if a := ni.Attachment; a != nil {
		out.NetworkCardIndex, out.DeviceIndex = ec2Deref(a.NetworkCardIndex), ec2Deref(a.DeviceIndex)
	}
	var secondary []string
	for _, ip := range ni.PrivateIpAddresses {
		addr := ec2Deref(ip.PrivateIpAddress)
		switch {
		case addr == "":
		case ec2Deref(ip.Primary):
			out.PrimaryIP = addr
		default:
			secondary = append(secondary, addr)
		}
	}
	slices.Sort(secondary)
	secondary = slices.Compact(secondary)
	if out.PrimaryIP != "" {
		secondary = slices.DeleteFunc(secondary, func(ip string) bool { return ip == out.PrimaryIP })
		out.PrivateIPs = append([]string{out.PrimaryIP}, secondary...)
	} else if len(secondary) > 0 {
		out.PrivateIPs = secondary
	}
	for _, p := range ni.Ipv4Prefixes {
		if v := ec2Deref(p.Ipv4Prefix); v != "" {
			out.IPv4Prefixes = append(out.IPv4Prefixes, v)
		}
	}
	for _, p := range ni.Ipv6Prefixes {
		if v := ec2Deref(p.Ipv6Prefix); v != "" {
			out.IPv6Prefixes = append(out.IPv6Prefixes, v)
		}
	}
	for _, a := range ni.Ipv6Addresses {
		if v := ec2Deref(a.Ipv6Address); v != "" {
			out.IPv6Addresses = append(out.IPv6Addresses, v)
		}
	}
	slices.Sort(out.IPv4Prefixes)
	slices.Sort(out.IPv6Prefixes)
	slices.Sort(out.IPv6Addresses)
	return out
}

func ec2GroupRefs(groups []types.GroupIdentifier) []snapshot.GroupRef {
	var out []snapshot.GroupRef
	for _, g := range groups {
		if id := ec2Deref(g.GroupId); id != "" {
			out = append(out, snapshot.GroupRef{ID: id, Name: ec2Deref(g.GroupName)})
		}
	}
	slices.SortFunc(out, func(a, b snapshot.GroupRef) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func ec2Tags(tags []types.Tag) map[string]string {
	var out map[string]string
	for _, t := range tags {
		if k := ec2Deref(t.Key); k != "" {
			if out == nil {
				out = make(map[string]string, len(tags))
			}
			out[k] = ec2Deref(t.Value)
		}
	}
	return out
}

// ec2Subnet converts a DescribeSubnets subnet.
func ec2Subnet(sn types.Subnet) snapshot.Subnet {
	return snapshot.Subnet{
		ID: ec2Deref(sn.SubnetId), VpcID: ec2Deref(sn.VpcId), CIDR: ec2Deref(sn.CidrBlock),
		Zone: ec2Deref(sn.AvailabilityZone), ZoneID: ec2Deref(sn.AvailabilityZoneId),
		AvailableIPs: ec2Deref(sn.AvailableIpAddressCount), Tags: ec2Tags(sn.Tags),
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
		Inbound: ec2Rules(g.IpPermissions), Outbound: ec2Rules(g.IpPermissionsEgress), Tags: ec2Tags(g.Tags),
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
	for _, c := range n.NetworkCards {
		out.NetworkCards = append(out.NetworkCards, snapshot.NetworkCard{
			Index: ec2Deref(c.NetworkCardIndex), MaxENIs: ec2Deref(c.MaximumNetworkInterfaces),
		})
	}
	slices.SortFunc(out.NetworkCards, func(a, b snapshot.NetworkCard) int { return cmp.Compare(a.Index, b.Index) })
	return out
}
