package ec2sim

import (
	"encoding/xml"
	"strconv"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// The DNS of a VPC: DescribeVpcs (its DHCP options set), DescribeVpcAttribute (enableDnsSupport,
// enableDnsHostnames) and DescribeDhcpOptions, answered with the element names EC2 and moto
// use. A VPC that only the subnets or instances name is answered as moto creates one: DNS support and DNS
// hostnames on (as EKS's templates set them), no DHCP options set ("default").

// DNS action names the server answers.
const (
	DescribeVpcs         = "DescribeVpcs"
	DescribeVpcAttribute = "DescribeVpcAttribute"
	DescribeDhcpOptions  = "DescribeDhcpOptions"
)

// AddVPCs adds or replaces VPCs by ID; a nil attribute is answered as on.
func (s *Server) AddVPCs(items ...snapshot.VPC) {
	add(s, s.vpcs, items, func(v snapshot.VPC) string { return v.ID })
}

// AddDHCPOptions adds or replaces DHCP options sets by ID.
func (s *Server) AddDHCPOptions(items ...snapshot.DHCPOptions) {
	add(s, s.dhcp, items, func(v snapshot.DHCPOptions) string { return v.ID })
}

// allVPCs returns the VPCs added and those the subnets and instances name; s.mu must be held.
func (s *Server) allVPCs() map[string]snapshot.VPC {
	out := make(map[string]snapshot.VPC, len(s.vpcs)+1)
	for _, sn := range s.subnets {
		if sn.VpcID != "" {
			out[sn.VpcID] = snapshot.VPC{ID: sn.VpcID, DHCPOptionsID: snapshot.DefaultDHCPOptions}
		}
	}
	for _, in := range s.instances {
		if in.VpcID != "" {
			out[in.VpcID] = snapshot.VPC{ID: in.VpcID, DHCPOptionsID: snapshot.DefaultDHCPOptions}
		}
	}
	for id, v := range s.vpcs {
		if v.DHCPOptionsID == "" {
			v.DHCPOptionsID = snapshot.DefaultDHCPOptions
		}
		out[id] = v
	}
	return out
}

func vpcSelection() selection[snapshot.VPC] {
	return selection[snapshot.VPC]{
		cache: "vpcs", idFilter: "vpc-id", idList: "VpcId", field: vpcField,
		missing:    notFound("InvalidVpcID.NotFound", "VpcID {'%s'} does not exist."),
		minResults: 5, maxResults: 1000,
	}
}

func dhcpSelection() selection[snapshot.DHCPOptions] {
	return selection[snapshot.DHCPOptions]{
		cache: "dhcp", idFilter: "dhcp-options-id", idList: "DhcpOptionsId", field: dhcpField,
		missing:    notFound("InvalidDhcpOptionID.NotFound", "DhcpOptionID %s does not exist."),
		minResults: 5, maxResults: 1000,
	}
}

func vpcField(v snapshot.VPC, name string) ([]string, bool) {
	switch name {
	case "vpc-id":
		return []string{v.ID}, true
	case "dhcp-options-id":
		return []string{v.DHCPOptionsID}, true
	}
	return nil, false
}

func dhcpField(o snapshot.DHCPOptions, name string) ([]string, bool) {
	switch name {
	case "dhcp-options-id":
		return []string{o.ID}, true
	}
	return nil, false
}

// describeDNS answers the three DNS actions; ok is false for another action. s.mu must be held.
func (s *Server) describeDNS(action string, q query) (body any, err *apiError, ok bool) {
	switch action {
	case DescribeVpcs:
		vpcs := s.allVPCs()
		keys, next, err := selectPage(s, vpcs, vpcSelection(), q)
		if err != nil {
			return nil, err, true
		}
		out := make([]xmlVPC, len(keys))
		for i, k := range keys {
			out[i] = xmlVPC{VpcID: k, State: "available", CIDRBlock: vpcs[k].CIDR, DHCPOptionsID: vpcs[k].DHCPOptionsID,
				InstanceTenancy: "default"}
		}
		return describeVpcsResponse{Xmlns: xmlns, RequestID: requestID, VPCs: emptySet(out), NextToken: next}, nil, true
	case DescribeVpcAttribute:
		id, attr := q.scalars["VpcId"], q.scalars["Attribute"]
		v, found := s.allVPCs()[id]
		if !found {
			e := notFound("InvalidVpcID.NotFound", "VpcID {'%s'} does not exist.")([]string{id})
			return nil, &e, true
		}
		resp := describeVpcAttributeResponse{Xmlns: xmlns, RequestID: requestID, VpcID: id}
		switch attr {
		case "enableDnsSupport":
			resp.DNSSupport = &xmlBoolValue{Value: on(v.DNSSupport)}
		case "enableDnsHostnames":
			resp.DNSHostnames = &xmlBoolValue{Value: on(v.DNSHostnames)}
		default:
			return nil, badRequest("InvalidParameterValue", "Value ("+attr+") for parameter attribute is invalid."), true
		}
		return resp, nil, true
	case DescribeDhcpOptions:
		keys, next, err := selectPage(s, s.dhcp, dhcpSelection(), q)
		if err != nil {
			return nil, err, true
		}
		out := make([]xmlDHCPOptions, len(keys))
		for i, k := range keys {
			o := s.dhcp[k]
			var values []xmlValue
			for _, v := range o.DomainNameServers {
				values = append(values, xmlValue{Value: v})
			}
			out[i] = xmlDHCPOptions{ID: o.ID, Configurations: setOf([]xmlDHCPConfiguration{{Key: "domain-name-servers", Values: setOf(values)}})}
		}
		return describeDhcpOptionsResponse{Xmlns: xmlns, RequestID: requestID, Options: emptySet(out), NextToken: next}, nil, true
	}
	return nil, nil, false
}

// on answers a nil attribute as on.
func on(b *bool) string { return strconv.FormatBool(b == nil || *b) }

type describeVpcsResponse struct {
	XMLName   xml.Name     `xml:"DescribeVpcsResponse"`
	Xmlns     string       `xml:"xmlns,attr"`
	RequestID string       `xml:"requestId"`
	VPCs      *set[xmlVPC] `xml:"vpcSet"`
	NextToken string       `xml:"nextToken,omitempty"`
}

type xmlVPC struct {
	VpcID           string `xml:"vpcId"`
	State           string `xml:"state"`
	CIDRBlock       string `xml:"cidrBlock,omitempty"`
	DHCPOptionsID   string `xml:"dhcpOptionsId"`
	InstanceTenancy string `xml:"instanceTenancy"`
}

type describeVpcAttributeResponse struct {
	XMLName      xml.Name      `xml:"DescribeVpcAttributeResponse"`
	Xmlns        string        `xml:"xmlns,attr"`
	RequestID    string        `xml:"requestId"`
	VpcID        string        `xml:"vpcId"`
	DNSSupport   *xmlBoolValue `xml:"enableDnsSupport,omitempty"`
	DNSHostnames *xmlBoolValue `xml:"enableDnsHostnames,omitempty"`
}

type xmlBoolValue struct {
	Value string `xml:"value"`
}

type xmlValue struct {
	Value string `xml:"value"`
}

type describeDhcpOptionsResponse struct {
	XMLName   xml.Name             `xml:"DescribeDhcpOptionsResponse"`
	Xmlns     string               `xml:"xmlns,attr"`
	RequestID string               `xml:"requestId"`
	Options   *set[xmlDHCPOptions] `xml:"dhcpOptionsSet"`
	NextToken string               `xml:"nextToken,omitempty"`
}

type xmlDHCPOptions struct {
	ID             string                     `xml:"dhcpOptionsId"`
	Configurations *set[xmlDHCPConfiguration] `xml:"dhcpConfigurationSet"`
}

type xmlDHCPConfiguration struct {
	Key    string         `xml:"key"`
	Values *set[xmlValue] `xml:"valueSet"`
}
