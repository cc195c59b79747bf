package ec2sim

import (
	"encoding/xml"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

type describeRouteTablesResponse struct {
	XMLName   xml.Name            `xml:"DescribeRouteTablesResponse"`
	Xmlns     string              `xml:"xmlns,attr"`
	RequestID string              `xml:"requestId"`
	Tables    *set[xmlRouteTable] `xml:"routeTableSet"`
	NextToken string              `xml:"nextToken,omitempty"`
}

type xmlRouteTable struct {
	RouteTableID string                    `xml:"routeTableId"`
	VpcID        string                    `xml:"vpcId"`
	OwnerID      string                    `xml:"ownerId"`
	Associations *set[xmlRouteAssociation] `xml:"associationSet"`
	Routes       *set[xmlRoute]            `xml:"routeSet"`
}

type xmlRouteAssociation struct {
	Main          bool         `xml:"main"`
	AssociationID string       `xml:"routeTableAssociationId"`
	RouteTableID  string       `xml:"routeTableId"`
	SubnetID      string       `xml:"subnetId,omitempty"`
	State         xmlCIDRState `xml:"associationState"`
}

type xmlRoute struct {
	DestinationCidrBlock        string `xml:"destinationCidrBlock,omitempty"`
	DestinationIpv6CidrBlock    string `xml:"destinationIpv6CidrBlock,omitempty"`
	DestinationPrefixListID     string `xml:"destinationPrefixListId,omitempty"`
	GatewayID                   string `xml:"gatewayId,omitempty"`
	NatGatewayID                string `xml:"natGatewayId,omitempty"`
	TransitGatewayID            string `xml:"transitGatewayId,omitempty"`
	NetworkInterfaceID          string `xml:"networkInterfaceId,omitempty"`
	VpcPeeringConnectionID      string `xml:"vpcPeeringConnectionId,omitempty"`
	EgressOnlyInternetGatewayID string `xml:"egressOnlyInternetGatewayId,omitempty"`
	CarrierGatewayID            string `xml:"carrierGatewayId,omitempty"`
	LocalGatewayID              string `xml:"localGatewayId,omitempty"`
	InstanceID                  string `xml:"instanceId,omitempty"`
	Origin                      string `xml:"origin"`
	State                       string `xml:"state"`
}

type describeNatGatewaysResponse struct {
	XMLName   xml.Name            `xml:"DescribeNatGatewaysResponse"`
	Xmlns     string              `xml:"xmlns,attr"`
	RequestID string              `xml:"requestId"`
	Gateways  *set[xmlNATGateway] `xml:"natGatewaySet"`
	NextToken string              `xml:"nextToken,omitempty"`
}

type xmlNATGateway struct {
	NatGatewayID     string `xml:"natGatewayId"`
	VpcID            string `xml:"vpcId"`
	SubnetID         string `xml:"subnetId"`
	State            string `xml:"state"`
	ConnectivityType string `xml:"connectivityType,omitempty"`
	CreateTime       string `xml:"createTime"`
	// AvailabilityMode, RouteTableID and AutoProvisionZones are a regional gateway's.
	AvailabilityMode   string `xml:"availabilityMode,omitempty"`
	RouteTableID       string `xml:"routeTableId,omitempty"`
	AutoProvisionZones string `xml:"autoProvisionZones,omitempty"`
	// Addresses holds the public address of a public gateway, and a regional gateway's address
	// in each of its zones.
	Addresses *set[xmlNATAddress] `xml:"natGatewayAddressSet"`
}

type xmlNATAddress struct {
	PublicIP           string `xml:"publicIp,omitempty"`
	IsPrimary          bool   `xml:"isPrimary"`
	AvailabilityZone   string `xml:"availabilityZone,omitempty"`
	AvailabilityZoneID string `xml:"availabilityZoneId,omitempty"`
	Status             string `xml:"status,omitempty"`
}

type describeVpcEndpointsResponse struct {
	XMLName   xml.Name             `xml:"DescribeVpcEndpointsResponse"`
	Xmlns     string               `xml:"xmlns,attr"`
	RequestID string               `xml:"requestId"`
	Endpoints *set[xmlVPCEndpoint] `xml:"vpcEndpointSet"`
	NextToken string               `xml:"nextToken,omitempty"`
}

type xmlVPCEndpoint struct {
	VpcEndpointID     string         `xml:"vpcEndpointId"`
	VpcEndpointType   string         `xml:"vpcEndpointType,omitempty"`
	VpcID             string         `xml:"vpcId"`
	ServiceName       string         `xml:"serviceName"`
	State             string         `xml:"state"`
	RouteTableIDs     *set[string]   `xml:"routeTableIdSet"`
	SubnetIDs         *set[string]   `xml:"subnetIdSet"`
	Groups            *set[xmlGroup] `xml:"groupSet"`
	PrivateDNSEnabled bool           `xml:"privateDnsEnabled"`
}

type describeNetworkAclsResponse struct {
	XMLName   xml.Name            `xml:"DescribeNetworkAclsResponse"`
	Xmlns     string              `xml:"xmlns,attr"`
	RequestID string              `xml:"requestId"`
	ACLs      *set[xmlNetworkACL] `xml:"networkAclSet"`
	NextToken string              `xml:"nextToken,omitempty"`
}

type xmlNetworkACL struct {
	NetworkACLID string                  `xml:"networkAclId"`
	VpcID        string                  `xml:"vpcId"`
	Default      bool                    `xml:"default"`
	Associations *set[xmlACLAssociation] `xml:"associationSet"`
	Entries      *set[xmlACLEntry]       `xml:"entrySet"`
	OwnerID      string                  `xml:"ownerId"`
}

type xmlACLAssociation struct {
	AssociationID string `xml:"networkAclAssociationId"`
	NetworkACLID  string `xml:"networkAclId"`
	SubnetID      string `xml:"subnetId"`
}

type xmlACLEntry struct {
	RuleNumber    int32         `xml:"ruleNumber"`
	Protocol      string        `xml:"protocol"`
	RuleAction    string        `xml:"ruleAction"`
	Egress        bool          `xml:"egress"`
	CidrBlock     string        `xml:"cidrBlock,omitempty"`
	Ipv6CidrBlock string        `xml:"ipv6CidrBlock,omitempty"`
	PortRange     *xmlPortRange `xml:"portRange"`
}

type xmlPortRange struct {
	From int32 `xml:"from"`
	To   int32 `xml:"to"`
}

// toXMLRouteTable answers a table: the main association has no subnet, each explicit one
// names its subnet, and each route names its target in the element its prefix calls for.
func toXMLRouteTable(t snapshot.RouteTable) xmlRouteTable {
	var assocs []xmlRouteAssociation
	suffix := strings.TrimPrefix(t.ID, "rtb-")
	if t.Main {
		assocs = append(assocs, xmlRouteAssociation{Main: true, AssociationID: "rtbassoc-m" + suffix,
			RouteTableID: t.ID, State: xmlCIDRState{State: "associated"}})
	}
	for _, sn := range t.SubnetIDs {
		assocs = append(assocs, xmlRouteAssociation{AssociationID: "rtbassoc-" + strings.TrimPrefix(sn, "subnet-"),
			RouteTableID: t.ID, SubnetID: sn, State: xmlCIDRState{State: "associated"}})
	}
	routes := make([]xmlRoute, len(t.Routes))
	for i, r := range t.Routes {
		routes[i] = toXMLRoute(r)
	}
	return xmlRouteTable{RouteTableID: t.ID, VpcID: t.VpcID, OwnerID: "123456789012",
		Associations: setOf(assocs), Routes: setOf(routes)}
}

func toXMLRoute(r snapshot.Route) xmlRoute {
	x := xmlRoute{DestinationPrefixListID: r.DestinationPrefixList, State: cmpOr(r.State, snapshot.RouteActive),
		Origin: "CreateRoute"}
	if strings.Contains(r.Destination, ":") {
		x.DestinationIpv6CidrBlock = r.Destination
	} else {
		x.DestinationCidrBlock = r.Destination
	}
	prefix, _, _ := strings.Cut(r.Target, "-")
	switch prefix {
	case "nat":
		x.NatGatewayID = r.Target
	case "tgw":
		x.TransitGatewayID = r.Target
	case "eni":
		x.NetworkInterfaceID = r.Target
	case "pcx":
		x.VpcPeeringConnectionID = r.Target
	case "eigw":
		x.EgressOnlyInternetGatewayID = r.Target
	case "cagw":
		x.CarrierGatewayID = r.Target
	case "lgw":
		x.LocalGatewayID = r.Target
	case "i":
		x.InstanceID = r.Target
	default: // local, igw-, vgw-, vpce-
		x.GatewayID = r.Target
	}
	if r.Target == "local" {
		x.Origin = "CreateRouteTable"
	}
	return x
}

func toXMLNATGateway(g snapshot.NATGateway) xmlNATGateway {
	x := xmlNATGateway{NatGatewayID: g.ID, VpcID: g.VpcID, SubnetID: g.SubnetID, State: g.State,
		ConnectivityType: g.ConnectivityType, CreateTime: "2026-01-01T00:00:00.000Z",
		AvailabilityMode: g.AvailabilityMode, RouteTableID: g.RouteTableID, AutoProvisionZones: g.AutoProvisionZones}
	var addrs []xmlNATAddress
	if g.PublicIP != "" {
		addrs = append(addrs, xmlNATAddress{PublicIP: g.PublicIP, IsPrimary: true})
	}
	// A regional gateway has an address in each of its zones; the first carries the public IP.
	for i := range max(len(g.Zones), len(g.ZoneIDs)) {
		if i >= len(addrs) {
			addrs = append(addrs, xmlNATAddress{})
		}
		addrs[i].Status = "succeeded"
		if i < len(g.Zones) {
			addrs[i].AvailabilityZone = g.Zones[i]
		}
		if i < len(g.ZoneIDs) {
			addrs[i].AvailabilityZoneID = g.ZoneIDs[i]
		}
	}
	if len(addrs) > 0 {
		x.Addresses = setOf(addrs)
	}
	return x
}

func toXMLVPCEndpoint(e snapshot.VPCEndpoint) xmlVPCEndpoint {
	groups := make([]xmlGroup, len(e.SecurityGroups))
	for i, g := range e.SecurityGroups {
		groups[i] = xmlGroup{GroupID: g, GroupName: g}
	}
	return xmlVPCEndpoint{VpcEndpointID: e.ID, VpcEndpointType: e.Type, VpcID: e.VpcID, ServiceName: e.ServiceName,
		State: e.State, RouteTableIDs: setOf(e.RouteTableIDs), SubnetIDs: setOf(e.SubnetIDs), Groups: setOf(groups),
		PrivateDNSEnabled: e.PrivateDNS}
}

// toXMLNetworkACL answers an ACL with its entries and, as EC2 does, the final "*" rule of each
// direction (rule 32767, deny all), which the snapshot leaves out.
func toXMLNetworkACL(a snapshot.NetworkACL) xmlNetworkACL {
	assocs := make([]xmlACLAssociation, len(a.SubnetIDs))
	for i, sn := range a.SubnetIDs {
		assocs[i] = xmlACLAssociation{AssociationID: "aclassoc-" + strings.TrimPrefix(sn, "subnet-"),
			NetworkACLID: a.ID, SubnetID: sn}
	}
	entries := make([]xmlACLEntry, 0, len(a.Entries)+2)
	for _, e := range a.Entries {
		x := xmlACLEntry{RuleNumber: e.RuleNumber, Protocol: e.Protocol, RuleAction: e.Action, Egress: e.Egress,
			CidrBlock: e.CIDR, Ipv6CidrBlock: e.IPv6CIDR}
		if e.FromPort != 0 || e.ToPort != 0 {
			x.PortRange = &xmlPortRange{From: e.FromPort, To: e.ToPort}
		}
		entries = append(entries, x)
	}
	for _, egress := range []bool{true, false} {
		entries = append(entries, xmlACLEntry{RuleNumber: 32767, Protocol: "-1", RuleAction: snapshot.ACLDeny,
			Egress: egress, CidrBlock: "0.0.0.0/0"})
	}
	return xmlNetworkACL{NetworkACLID: a.ID, VpcID: a.VpcID, Default: a.Default, Associations: setOf(assocs),
		Entries: setOf(entries), OwnerID: "123456789012"}
}
