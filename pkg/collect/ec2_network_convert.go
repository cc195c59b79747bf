package collect

import (
	"cmp"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2RouteTable converts a DescribeRouteTables table: whether it is the VPC's main table,
// its explicitly associated subnets (sorted) and its routes in EC2's order.
func ec2RouteTable(t types.RouteTable) snapshot.RouteTable {
	out := snapshot.RouteTable{ID: ec2Deref(t.RouteTableId), VpcID: ec2Deref(t.VpcId)}
	for _, a := range t.Associations {
		if a.AssociationState != nil && a.AssociationState.State != "" &&
			a.AssociationState.State != types.RouteTableAssociationStateCodeAssociated {
			continue
		}
		if ec2Deref(a.Main) {
			out.Main = true
		}
		if sn := ec2Deref(a.SubnetId); sn != "" {
			out.SubnetIDs = append(out.SubnetIDs, sn)
		}
	}
	slices.Sort(out.SubnetIDs)
	out.SubnetIDs = slices.Compact(out.SubnetIDs)
	for _, r := range t.Routes {
		out.Routes = append(out.Routes, ec2Route(r))
	}
	return out
}

// ec2Route converts a route: its destination (IPv4, else IPv6 CIDR) or prefix list, the ID of
// its target from whichever target field is set, and its state.
func ec2Route(r types.Route) snapshot.Route {
	return snapshot.Route{
		Destination:           cmp.Or(ec2Deref(r.DestinationCidrBlock), ec2Deref(r.DestinationIpv6CidrBlock)),
		DestinationPrefixList: ec2Deref(r.DestinationPrefixListId),
		Target: cmp.Or(ec2Deref(r.GatewayId), ec2Deref(r.NatGatewayId), ec2Deref(r.TransitGatewayId),
			ec2Deref(r.NetworkInterfaceId), ec2Deref(r.VpcPeeringConnectionId),
			ec2Deref(r.EgressOnlyInternetGatewayId), ec2Deref(r.CarrierGatewayId),
			ec2Deref(r.LocalGatewayId), ec2Deref(r.InstanceId)),
		State: string(r.State),
	}
}

// ec2NATGateway converts a DescribeNatGateways gateway: its public address is the primary
// address's public IP, else the first public IP listed; a regional gateway keeps its route
// table, whether EC2 provisions its zones and the zones its addresses serve (those that did
// not fail).
func ec2NATGateway(g types.NatGateway) snapshot.NATGateway {
	out := snapshot.NATGateway{
		ID: ec2Deref(g.NatGatewayId), VpcID: ec2Deref(g.VpcId), SubnetID: ec2Deref(g.SubnetId),
		State: string(g.State), ConnectivityType: string(g.ConnectivityType),
		AvailabilityMode: string(g.AvailabilityMode), RouteTableID: ec2Deref(g.RouteTableId),
		AutoProvisionZones: string(g.AutoProvisionZones),
	}
	var zones, zoneIDs []string
	for _, a := range g.NatGatewayAddresses {
		ip := ec2Deref(a.PublicIp)
		if ip != "" && (out.PublicIP == "" || ec2Deref(a.IsPrimary)) {
			out.PublicIP = ip
		}
		if a.Status != types.NatGatewayAddressStatusFailed {
			zones = append(zones, ec2Deref(a.AvailabilityZone))
			zoneIDs = append(zoneIDs, ec2Deref(a.AvailabilityZoneId))
		}
	}
	out.Zones, out.ZoneIDs = ec2SortedIDs(zones), ec2SortedIDs(zoneIDs)
	return out
}

// ec2VPCEndpoint converts a DescribeVpcEndpoints endpoint; its ID lists are sorted.
func ec2VPCEndpoint(e types.VpcEndpoint) snapshot.VPCEndpoint {
	out := snapshot.VPCEndpoint{
		ID: ec2Deref(e.VpcEndpointId), VpcID: ec2Deref(e.VpcId), ServiceName: ec2Deref(e.ServiceName),
		Type: string(e.VpcEndpointType), State: string(e.State), PrivateDNS: ec2Deref(e.PrivateDnsEnabled),
		SubnetIDs: ec2SortedIDs(e.SubnetIds), RouteTableIDs: ec2SortedIDs(e.RouteTableIds),
	}
	var groups []string
	for _, g := range e.Groups {
		groups = append(groups, ec2Deref(g.GroupId))
	}
	out.SecurityGroups = ec2SortedIDs(groups)
	return out
}

// ec2NetworkACL converts a DescribeNetworkAcls ACL: its associated subnets (sorted) and its
// entries ordered by direction and rule number, without the final "*" rule (32767) that
// every ACL ends with.
func ec2NetworkACL(a types.NetworkAcl) snapshot.NetworkACL {
	out := snapshot.NetworkACL{ID: ec2Deref(a.NetworkAclId), VpcID: ec2Deref(a.VpcId), Default: ec2Deref(a.IsDefault)}
	var subnets []string
	for _, as := range a.Associations {
		subnets = append(subnets, ec2Deref(as.SubnetId))
	}
	out.SubnetIDs = ec2SortedIDs(subnets)
	for _, e := range a.Entries {
		n := ec2Deref(e.RuleNumber)
		if n == ec2ACLLastRule {
			continue
		}
		entry := snapshot.ACLEntry{
			RuleNumber: n, Egress: ec2Deref(e.Egress), Protocol: ec2ACLProtocol(ec2Deref(e.Protocol)),
			Action: string(e.RuleAction), CIDR: ec2Deref(e.CidrBlock), IPv6CIDR: ec2Deref(e.Ipv6CidrBlock),
		}
		if p := e.PortRange; p != nil && (entry.Protocol == "6" || entry.Protocol == "17") {
			entry.FromPort, entry.ToPort = ec2Deref(p.From), ec2Deref(p.To)
		}
		out.Entries = append(out.Entries, entry)
	}
	slices.SortStableFunc(out.Entries, func(a, b snapshot.ACLEntry) int {
		if a.Egress != b.Egress {
			if a.Egress {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.RuleNumber, b.RuleNumber)
	})
	return out
}

// ec2ACLLastRule is the number EC2 gives the final "*" rule of a network ACL.
const ec2ACLLastRule = 32767

// ec2ACLProtocol returns an ACL entry's protocol as EC2 answers it, an IP protocol number
// string ("-1" for all): an endpoint that answers the name (moto keeps "tcp" as given) is
// read the same.
func ec2ACLProtocol(p string) string {
	switch strings.ToLower(strings.TrimSpace(p)) {
	case "all", "":
		return "-1"
	case "tcp":
		return "6"
	case "udp":
		return "17"
	case "icmp":
		return "1"
	case "icmpv6", "ipv6-icmp":
		return "58"
	}
	return p
}

// ec2SortedIDs returns ids sorted and unique without empty ones; nil for none.
func ec2SortedIDs(ids []string) []string {
	set := ec2IDSet{}
	set.add(ids...)
	if len(set) == 0 {
		return nil
	}
	return set.sorted()
}
