package ec2xml

import (
	"cmp"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Instance converts an instance the SDK decoded (an answer ReadInstances gave up on) into
// what ReadInstances makes of the same instance. Nil fields give zero values.
func Instance(in types.Instance) snapshot.Instance {
	v := snapshot.Instance{
		ID: aws.ToString(in.InstanceId), Type: string(in.InstanceType),
		VpcID: aws.ToString(in.VpcId), SubnetID: aws.ToString(in.SubnetId), PrivateIP: aws.ToString(in.PrivateIpAddress),
		PublicIP: aws.ToString(in.PublicIpAddress), Lifecycle: string(in.InstanceLifecycle),
		CapacityReservationID: aws.ToString(in.CapacityReservationId),
		StateTransitionReason: aws.ToString(in.StateTransitionReason),
	}
	if m := in.MetadataOptions; m != nil {
		v.MetadataOptions = snapshot.MetadataOptions{HTTPEndpoint: string(m.HttpEndpoint), HTTPTokens: string(m.HttpTokens),
			HTTPPutResponseHopLimit: aws.ToInt32(m.HttpPutResponseHopLimit)}
	}
	if in.LaunchTime != nil {
		v.LaunchTime = in.LaunchTime.UTC()
	}
	if in.State != nil {
		v.State = string(in.State.Name)
	}
	if p := in.Placement; p != nil {
		v.Zone, v.ZoneID = aws.ToString(p.AvailabilityZone), aws.ToString(p.AvailabilityZoneId)
		v.Placement = snapshot.Placement{
			GroupName: aws.ToString(p.GroupName), GroupID: aws.ToString(p.GroupId),
			PartitionNumber: aws.ToInt32(p.PartitionNumber), Tenancy: string(p.Tenancy),
		}
	}
	v.SecurityGroups = groupsOf(in.SecurityGroups)
	sortGroups(v.SecurityGroups)
	v.Tags = Tags(in.Tags)
	for _, ni := range in.NetworkInterfaces {
		v.ENIs = append(v.ENIs, eni(ni))
	}
	sortENIs(v.ENIs)
	return v
}

// Tags converts a list of tags the SDK decoded (of an instance, a subnet, a security group) as
// ReadInstances keeps an instance's: by key, a later tag replacing an earlier one of the same
// key, tags without a key left out, nil for none.
func Tags(tags []types.Tag) map[string]string {
	if len(tags) == 0 {
		return nil
	}
	kv := make([]tag, 0, len(tags))
	for _, t := range tags {
		kv = append(kv, tag{aws.ToString(t.Key), aws.ToString(t.Value)})
	}
	return tagMap(kv)
}

// eni converts an instance's network interface.
func eni(ni types.InstanceNetworkInterface) snapshot.ENI {
	e := snapshot.ENI{
		ID: aws.ToString(ni.NetworkInterfaceId), InterfaceType: aws.ToString(ni.InterfaceType),
		SubnetID: aws.ToString(ni.SubnetId), PrimaryIP: aws.ToString(ni.PrivateIpAddress),
		SecurityGroups: groupsOf(ni.Groups),
		Description:    aws.ToString(ni.Description), Status: string(ni.Status),
	}
	if a := ni.Attachment; a != nil {
		e.NetworkCardIndex, e.DeviceIndex = aws.ToInt32(a.NetworkCardIndex), aws.ToInt32(a.DeviceIndex)
	}
	listed := make([]listedIP, 0, len(ni.PrivateIpAddresses))
	for _, ip := range ni.PrivateIpAddresses {
		listed = append(listed, listedIP{aws.ToString(ip.PrivateIpAddress), aws.ToBool(ip.Primary)})
	}
	for _, p := range ni.Ipv4Prefixes {
		e.IPv4Prefixes = appendSet(e.IPv4Prefixes, aws.ToString(p.Ipv4Prefix))
	}
	for _, p := range ni.Ipv6Prefixes {
		e.IPv6Prefixes = appendSet(e.IPv6Prefixes, aws.ToString(p.Ipv6Prefix))
	}
	for _, a := range ni.Ipv6Addresses {
		e.IPv6Addresses = appendSet(e.IPv6Addresses, aws.ToString(a.Ipv6Address))
	}
	if c := ni.ConnectionTrackingConfiguration; c != nil {
		e.ConnectionTracking = snapshot.ConnectionTracking{TCPEstablishedTimeout: aws.ToInt32(c.TcpEstablishedTimeout),
			UDPStreamTimeout: aws.ToInt32(c.UdpStreamTimeout), UDPTimeout: aws.ToInt32(c.UdpTimeout)}
	}
	finishENI(&e, listed)
	return e
}

// groupsOf converts security groups, in their order.
func groupsOf(groups []types.GroupIdentifier) []snapshot.GroupRef {
	var out []snapshot.GroupRef
	for _, g := range groups {
		out = appendGroup(out, snapshot.GroupRef{ID: aws.ToString(g.GroupId), Name: aws.ToString(g.GroupName)})
	}
	return out
}

// What both ways of reading an instance share: the order karpnet keeps its lists in, and
// which values it leaves out.

// tag is one member of an instance's tagSet.
type tag struct{ key, value string }

// tagMap returns the tags by key, a later tag replacing an earlier one of the same key; tags
// without a key are left out, and none gives nil.
func tagMap(tags []tag) map[string]string {
	var out map[string]string
	for _, t := range tags {
		if t.key == "" {
			continue
		}
		if out == nil {
			out = make(map[string]string, len(tags))
		}
		out[t.key] = t.value
	}
	return out
}

// appendGroup appends a security group that has an ID.
func appendGroup(to []snapshot.GroupRef, g snapshot.GroupRef) []snapshot.GroupRef {
	if g.ID == "" {
		return to
	}
	return append(to, g)
}

func sortGroups(gs []snapshot.GroupRef) {
	slices.SortFunc(gs, func(a, b snapshot.GroupRef) int { return strings.Compare(a.ID, b.ID) })
}

// appendSet appends a prefix or address that is not empty (sorted by finishENI).
func appendSet(to []string, v string) []string {
	if v == "" {
		return to
	}
	return append(to, v)
}

// listedIP is one member of an interface's privateIpAddressesSet.
type listedIP struct {
	addr    string
	primary bool
}

// finishENI puts an interface read whole in karpnet's order: its private addresses from
// listed, the primary first (the one marked primary, else the interface's privateIpAddress
// already in e.PrimaryIP) and the others sorted once each; prefixes and IPv6 addresses
// sorted; an interface of no type is an interface.
func finishENI(e *snapshot.ENI, listed []listedIP) {
	e.InterfaceType = cmp.Or(e.InterfaceType, "interface")
	var secondary []string
	for _, ip := range listed {
		switch {
		case ip.addr == "":
		case ip.primary:
			e.PrimaryIP = ip.addr
		default:
			secondary = append(secondary, ip.addr)
		}
	}
	slices.Sort(secondary)
	secondary = slices.Compact(secondary)
	if e.PrimaryIP != "" {
		secondary = slices.DeleteFunc(secondary, func(ip string) bool { return ip == e.PrimaryIP })
		e.PrivateIPs = append(make([]string, 0, 1+len(secondary)), e.PrimaryIP)
		e.PrivateIPs = append(e.PrivateIPs, secondary...)
	} else if len(secondary) > 0 {
		e.PrivateIPs = slices.Clip(secondary)
	}
	snapshot.Pack(e.PrivateIPs)
	sortGroups(e.SecurityGroups)
	slices.Sort(e.IPv4Prefixes)
	slices.Sort(e.IPv6Prefixes)
	slices.Sort(e.IPv6Addresses)
}

// sortENIs orders an instance's interfaces by network card, device index and ID.
func sortENIs(enis []snapshot.ENI) {
	slices.SortFunc(enis, func(a, b snapshot.ENI) int {
		return cmp.Or(cmp.Compare(a.NetworkCardIndex, b.NetworkCardIndex),
			cmp.Compare(a.DeviceIndex, b.DeviceIndex), strings.Compare(a.ID, b.ID))
	})
}
