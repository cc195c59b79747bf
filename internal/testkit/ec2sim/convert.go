package ec2sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// stateCode returns EC2's code for an instance state name.
func stateCode(name string) int {
	switch name {
	case "running":
		return 16
	case "shutting-down":
		return 32
	case "terminated":
		return 48
	case "stopping":
		return 64
	case "stopped":
		return 80
	}
	return 0
}

func toXMLTags(tags map[string]string) *set[xmlTag] {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]xmlTag, len(keys))
	for i, k := range keys {
		out[i] = xmlTag{Key: k, Value: tags[k]}
	}
	return setOf(out)
}

func toXMLGroups(groups []snapshot.GroupRef) *set[xmlGroup] {
	out := make([]xmlGroup, len(groups))
	for i, g := range groups {
		out[i] = xmlGroup{GroupID: g.ID, GroupName: g.Name}
	}
	return setOf(out)
}

func toXMLInstance(in snapshot.Instance) xmlInstance {
	state := in.State
	if state == "" {
		state = "running"
	}
	x := xmlInstance{
		InstanceID: in.ID, InstanceType: in.Type,
		State:            xmlState{Code: stateCode(state), Name: state},
		PrivateIPAddress: in.PrivateIP, IPAddress: in.PublicIP, SubnetID: in.SubnetID, VpcID: in.VpcID,
		Placement: xmlPlacement{
			AvailabilityZone: in.Zone, AvailabilityZoneID: in.ZoneID,
			GroupName: in.Placement.GroupName, GroupID: in.Placement.GroupID, Tenancy: in.Placement.Tenancy,
		},
		Groups:    toXMLGroups(in.SecurityGroups),
		Tags:      toXMLTags(in.Tags),
		Lifecycle: in.Lifecycle, CapacityRes: in.CapacityReservationID, Reason: in.StateTransitionReason,
	}
	if m := in.MetadataOptions; m != (snapshot.MetadataOptions{}) {
		x.MetadataOptions = &xmlMetadata{State: "applied", HTTPTokens: m.HTTPTokens, HopLimit: m.HTTPPutResponseHopLimit,
			HTTPEndpoint: m.HTTPEndpoint}
	}
	if x.Placement.Tenancy == "" {
		x.Placement.Tenancy = "default"
	}
	if in.Placement.PartitionNumber != 0 {
		n := in.Placement.PartitionNumber
		x.Placement.PartitionNumber = &n
	}
	if !in.LaunchTime.IsZero() {
		x.LaunchTime = in.LaunchTime.UTC().Format(time.RFC3339Nano)
	}
	enis := make([]xmlENI, len(in.ENIs))
	for i, e := range in.ENIs {
		enis[i] = toXMLENI(e)
	}
	x.NetworkInterfaces = setOf(enis)
	return x
}

func toXMLENI(e snapshot.ENI) xmlENI {
	status := e.Status
	if status == "" {
		status = "in-use"
	}
	x := xmlENI{
		NetworkInterfaceID: e.ID, InterfaceType: e.InterfaceType, SubnetID: e.SubnetID,
		Description: e.Description, Status: status, PrivateIPAddress: e.PrimaryIP,
		Attachment: xmlAttachment{DeviceIndex: e.DeviceIndex, NetworkCardIndex: e.NetworkCardIndex, Status: "attached"},
		Groups:     toXMLGroups(e.SecurityGroups),
	}
	if c := e.ConnectionTracking; c != (snapshot.ConnectionTracking{}) {
		x.ConnectionTracking = &xmlConnectionTracking{TCPEstablishedTimeout: c.TCPEstablishedTimeout,
			UDPStreamTimeout: c.UDPStreamTimeout, UDPTimeout: c.UDPTimeout}
	}
	ips := make([]xmlPrivateIP, 0, len(e.PrivateIPs)+1)
	if e.PrimaryIP != "" {
		ips = append(ips, xmlPrivateIP{PrivateIPAddress: e.PrimaryIP, Primary: true})
	}
	for _, ip := range e.PrivateIPs {
		if ip != e.PrimaryIP {
			ips = append(ips, xmlPrivateIP{PrivateIPAddress: ip})
		}
	}
	x.PrivateIPs = setOf(ips)
	v4 := make([]xmlIPv4Prefix, len(e.IPv4Prefixes))
	for i, p := range e.IPv4Prefixes {
		v4[i] = xmlIPv4Prefix{Prefix: p}
	}
	x.IPv4Prefixes = setOf(v4)
	v6 := make([]xmlIPv6Prefix, len(e.IPv6Prefixes))
	for i, p := range e.IPv6Prefixes {
		v6[i] = xmlIPv6Prefix{Prefix: p}
	}
	x.IPv6Prefixes = setOf(v6)
	addrs := make([]xmlIPv6Addr, len(e.IPv6Addresses))
	for i, a := range e.IPv6Addresses {
		addrs[i] = xmlIPv6Addr{Address: a}
	}
	x.IPv6Addresses = setOf(addrs)
	return x
}

// reservationID derives a stable reservation ID from an instance ID.
func reservationID(instanceID string) string {
	return "r-" + strings.TrimPrefix(instanceID, "i-")
}

func toXMLSubnet(s snapshot.Subnet) xmlSubnet {
	return xmlSubnet{
		SubnetID: s.ID, State: "available", VpcID: s.VpcID, CidrBlock: s.CIDR,
		AvailableIPAddressCount: s.AvailableIPs, AvailabilityZone: s.Zone, AvailabilityZoneID: s.ZoneID,
		MapPublicIPOnLaunch: s.MapPublicIPOnLaunch,
		Tags:                toXMLTags(s.Tags), IPv6CIDRs: toXMLIPv6CIDRs(s.ID, s.IPv6CIDRs),
	}
}

func toXMLIPv6CIDRs(subnet string, cidrs []string) *set[xmlIPv6CIDR] {
	out := make([]xmlIPv6CIDR, len(cidrs))
	for i, c := range cidrs {
		out[i] = xmlIPv6CIDR{AssociationID: fmt.Sprintf("subnet-cidr-assoc-%s-%d", strings.TrimPrefix(subnet, "subnet-"), i),
			CIDR: c, State: xmlCIDRState{State: "associated"}}
	}
	return setOf(out)
}

func toXMLSecurityGroup(g snapshot.SecurityGroup) xmlSecurityGroup {
	return xmlSecurityGroup{
		GroupID: g.ID, GroupName: g.Name, Description: g.Name, VpcID: g.VpcID,
		Ingress: toXMLPermissions(g.Inbound), Egress: toXMLPermissions(g.Outbound), Tags: toXMLTags(g.Tags),
	}
}

func toXMLPermissions(rules []snapshot.Rule) *set[xmlPermission] {
	out := make([]xmlPermission, len(rules))
	for i, r := range rules {
		p := xmlPermission{IPProtocol: r.Protocol}
		if r.Protocol != "-1" {
			from, to := r.FromPort, r.ToPort
			p.FromPort, p.ToPort = &from, &to
		}
		groups := make([]xmlGroup, len(r.GroupIDs))
		for j, id := range r.GroupIDs {
			groups[j] = xmlGroup{GroupID: id}
		}
		p.Groups = setOf(groups)
		v4 := make([]xmlIPRange, len(r.CIDRs))
		for j, c := range r.CIDRs {
			v4[j] = xmlIPRange{CidrIP: c}
		}
		p.IPRanges = setOf(v4)
		v6 := make([]xmlIPv6Range, len(r.IPv6CIDRs))
		for j, c := range r.IPv6CIDRs {
			v6[j] = xmlIPv6Range{CidrIPv6: c}
		}
		p.IPv6Ranges = setOf(v6)
		pl := make([]xmlPrefixListRef, len(r.PrefixListIDs))
		for j, id := range r.PrefixListIDs {
			pl[j] = xmlPrefixListRef{PrefixListID: id}
		}
		p.PrefixLists = setOf(pl)
		out[i] = p
	}
	return setOf(out)
}

func toXMLPlacementGroup(g snapshot.PlacementGroup) xmlPlacementGroup {
	state := g.State
	if state == "" {
		state = "available"
	}
	return xmlPlacementGroup{
		GroupName: g.Name, GroupID: g.ID, Strategy: g.Strategy,
		PartitionCount: g.PartitionCount, SpreadLevel: g.SpreadLevel, State: state,
	}
}

func toXMLInstanceType(t snapshot.InstanceType) xmlInstanceType {
	cards := make([]xmlNetworkCard, len(t.NetworkCards))
	for i, c := range t.NetworkCards {
		cards[i] = xmlNetworkCard{NetworkCardIndex: c.Index, MaximumNetworkInterfaces: c.MaxENIs}
		if c.Index == t.DefaultNetworkCardIndex { // the snapshot keeps the default card's bandwidth only
			cards[i].BaselineBandwidthInGbps, cards[i].PeakBandwidthInGbps = t.BaselineGbps, t.PeakGbps
		}
	}
	x := xmlInstanceType{
		InstanceType: t.Name, Hypervisor: t.Hypervisor, BareMetal: t.BareMetal,
		VCPUInfo: xmlVCPUInfo{DefaultVCPUs: t.VCPUs},
		NetworkInfo: xmlNetworkInfo{
			NetworkPerformance: t.NetworkPerformance, MaximumNetworkInterfaces: t.MaxENIs,
			MaximumNetworkCards: int32(len(cards)), DefaultNetworkCardIndex: t.DefaultNetworkCardIndex,
			NetworkCards: setOf(cards), IPv4PerInterface: t.IPv4PerENI, IPv6PerInterface: t.IPv6PerENI,
			IPv6Supported: t.IPv6PerENI > 0, EfaSupported: t.EFASupported, EnaSrdSupported: t.ENAExpress,
		},
	}
	if t.EFASupported {
		x.NetworkInfo.EfaInfo = &xmlEfaInfo{MaximumEfaInterfaces: t.MaxEFAInterfaces}
	}
	return x
}
