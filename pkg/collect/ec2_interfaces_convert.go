package collect

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2InterfaceRecord converts a DescribeNetworkInterfaces interface: its addresses with the
// primary first, its prefixes, its security groups, the instance it is attached to, and only
// the tags snapshot.InterfaceTagKept names.
func ec2InterfaceRecord(n types.NetworkInterface) snapshot.InterfaceRecord {
	out := snapshot.InterfaceRecord{
		ID: aws.ToString(n.NetworkInterfaceId), VpcID: aws.ToString(n.VpcId), SubnetID: aws.ToString(n.SubnetId),
		Zone: aws.ToString(n.AvailabilityZone), Status: string(n.Status), InterfaceType: string(n.InterfaceType),
		Description: aws.ToString(n.Description), RequesterManaged: aws.ToBool(n.RequesterManaged),
	}
	if n.Attachment != nil {
		out.InstanceID = aws.ToString(n.Attachment.InstanceId)
	}
	out.PrivateIPs = ec2InterfaceAddresses(aws.ToString(n.PrivateIpAddress), n.PrivateIpAddresses)
	for _, p := range n.Ipv4Prefixes {
		if v := aws.ToString(p.Ipv4Prefix); v != "" {
			out.IPv4Prefixes = append(out.IPv4Prefixes, v)
		}
	}
	for _, a := range n.Ipv6Addresses {
		if v := aws.ToString(a.Ipv6Address); v != "" {
			out.IPv6Addresses = append(out.IPv6Addresses, v)
		}
	}
	for _, p := range n.Ipv6Prefixes {
		if v := aws.ToString(p.Ipv6Prefix); v != "" {
			out.IPv6Prefixes = append(out.IPv6Prefixes, v)
		}
	}
	for _, g := range n.Groups {
		if id := aws.ToString(g.GroupId); id != "" {
			out.SecurityGroups = append(out.SecurityGroups, snapshot.GroupRef{ID: id, Name: aws.ToString(g.GroupName)})
		}
	}
	for _, t := range n.TagSet {
		if k := aws.ToString(t.Key); snapshot.InterfaceTagKept(k) {
			if out.Tags == nil {
				out.Tags = map[string]string{}
			}
			out.Tags[k] = aws.ToString(t.Value)
		}
	}
	return out
}

// ec2InterfaceAddresses returns an interface's IPv4 addresses, the primary first (the one
// marked primary, else the interface's PrivateIpAddress), then the others in EC2's order.
func ec2InterfaceAddresses(primary string, all []types.NetworkInterfacePrivateIpAddress) []string {
	for _, a := range all {
		if aws.ToBool(a.Primary) && aws.ToString(a.PrivateIpAddress) != "" {
			primary = aws.ToString(a.PrivateIpAddress)
			break
		}
	}
	var out []string
	if primary != "" {
		out = append(out, primary)
	}
	for _, a := range all {
		if v := aws.ToString(a.PrivateIpAddress); v != "" && v != primary {
			out = append(out, v)
		}
	}
	return out
}

// ec2CIDRReservation converts a GetSubnetCidrReservations reservation.
func ec2CIDRReservation(r types.SubnetCidrReservation) snapshot.CIDRReservation {
	return snapshot.CIDRReservation{
		ID: aws.ToString(r.SubnetCidrReservationId), SubnetID: aws.ToString(r.SubnetId), CIDR: aws.ToString(r.Cidr),
		Type: string(r.ReservationType), Description: aws.ToString(r.Description),
	}
}
