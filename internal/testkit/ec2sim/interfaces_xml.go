package ec2sim

import (
	"encoding/xml"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// The element names are those of the EC2 API reference and the SDK's deserializers
// (DescribeNetworkInterfacesResponse/networkInterfaceSet; GetSubnetCidrReservationsResponse/
// subnetIpv4CidrReservationSet and subnetIpv6CidrReservationSet).

type describeNetworkInterfacesResponse struct {
	XMLName    xml.Name                  `xml:"DescribeNetworkInterfacesResponse"`
	Xmlns      string                    `xml:"xmlns,attr"`
	RequestID  string                    `xml:"requestId"`
	Interfaces *set[xmlNetworkInterface] `xml:"networkInterfaceSet"`
	NextToken  string                    `xml:"nextToken,omitempty"`
}

type xmlNetworkInterface struct {
	NetworkInterfaceID string                  `xml:"networkInterfaceId"`
	SubnetID           string                  `xml:"subnetId"`
	VpcID              string                  `xml:"vpcId,omitempty"`
	AvailabilityZone   string                  `xml:"availabilityZone,omitempty"`
	Description        string                  `xml:"description"`
	OwnerID            string                  `xml:"ownerId"`
	RequesterManaged   bool                    `xml:"requesterManaged"`
	Status             string                  `xml:"status"`
	InterfaceType      string                  `xml:"interfaceType,omitempty"`
	PrivateIPAddress   string                  `xml:"privateIpAddress,omitempty"`
	Groups             *set[xmlGroup]          `xml:"groupSet"`
	Attachment         *xmlInterfaceAttachment `xml:"attachment"`
	Tags               *set[xmlTag]            `xml:"tagSet"`
	PrivateIPs         *set[xmlPrivateIP]      `xml:"privateIpAddressesSet"`
	IPv4Prefixes       *set[xmlIPv4Prefix]     `xml:"ipv4PrefixSet"`
	IPv6Addresses      *set[xmlIPv6Addr]       `xml:"ipv6AddressesSet"`
	IPv6Prefixes       *set[xmlIPv6Prefix]     `xml:"ipv6PrefixSet"`
}

type xmlInterfaceAttachment struct {
	InstanceID string `xml:"instanceId"`
	Status     string `xml:"status"`
}

type getSubnetCidrReservationsResponse struct {
	XMLName   xml.Name                 `xml:"GetSubnetCidrReservationsResponse"`
	Xmlns     string                   `xml:"xmlns,attr"`
	RequestID string                   `xml:"requestId"`
	IPv4      *set[xmlCIDRReservation] `xml:"subnetIpv4CidrReservationSet"`
	IPv6      *set[xmlCIDRReservation] `xml:"subnetIpv6CidrReservationSet"`
	NextToken string                   `xml:"nextToken,omitempty"`
}

type xmlCIDRReservation struct {
	ID              string `xml:"subnetCidrReservationId"`
	SubnetID        string `xml:"subnetId"`
	Cidr            string `xml:"cidr"`
	ReservationType string `xml:"reservationType"`
	OwnerID         string `xml:"ownerId"`
	Description     string `xml:"description,omitempty"`
}

func toXMLNetworkInterface(n snapshot.InterfaceRecord) xmlNetworkInterface {
	x := xmlNetworkInterface{
		NetworkInterfaceID: n.ID, SubnetID: n.SubnetID, VpcID: n.VpcID, AvailabilityZone: n.Zone,
		Description: n.Description, OwnerID: "123456789012", RequesterManaged: n.RequesterManaged,
		Status: n.Status, InterfaceType: n.InterfaceType, Groups: toXMLGroups(n.SecurityGroups), Tags: toXMLTags(n.Tags),
	}
	if n.InstanceID != "" {
		x.Attachment = &xmlInterfaceAttachment{InstanceID: n.InstanceID, Status: "attached"}
	}
	ips := make([]xmlPrivateIP, len(n.PrivateIPs))
	for i, ip := range n.PrivateIPs {
		ips[i] = xmlPrivateIP{PrivateIPAddress: ip, Primary: i == 0}
	}
	if len(ips) > 0 {
		x.PrivateIPAddress = ips[0].PrivateIPAddress
	}
	x.PrivateIPs = setOf(ips)
	v4 := make([]xmlIPv4Prefix, len(n.IPv4Prefixes))
	for i, p := range n.IPv4Prefixes {
		v4[i] = xmlIPv4Prefix{Prefix: p}
	}
	x.IPv4Prefixes = setOf(v4)
	addrs := make([]xmlIPv6Addr, len(n.IPv6Addresses))
	for i, a := range n.IPv6Addresses {
		addrs[i] = xmlIPv6Addr{Address: a}
	}
	x.IPv6Addresses = setOf(addrs)
	v6 := make([]xmlIPv6Prefix, len(n.IPv6Prefixes))
	for i, p := range n.IPv6Prefixes {
		v6[i] = xmlIPv6Prefix{Prefix: p}
	}
	x.IPv6Prefixes = setOf(v6)
	return x
}

func toXMLCIDRReservation(r snapshot.CIDRReservation) xmlCIDRReservation {
	return xmlCIDRReservation{ID: r.ID, SubnetID: r.SubnetID, Cidr: r.CIDR, ReservationType: r.Type,
		OwnerID: "123456789012", Description: r.Description}
}
