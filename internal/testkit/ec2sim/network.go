package ec2sim

import (
	"strconv"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// The way out of a VPC: route tables, NAT gateways, VPC endpoints and network ACLs, answered
// with the element names EC2 and moto use.

// Network action names the server answers.
const (
	DescribeRouteTables  = "DescribeRouteTables"
	DescribeNatGateways  = "DescribeNatGateways"
	DescribeVpcEndpoints = "DescribeVpcEndpoints"
	DescribeNetworkAcls  = "DescribeNetworkAcls"
)

// AddRouteTables adds or replaces route tables by ID.
func (s *Server) AddRouteTables(items ...snapshot.RouteTable) {
	add(s, s.routeTables, items, func(v snapshot.RouteTable) string { return v.ID })
}

// AddNATGateways adds or replaces NAT gateways by ID.
func (s *Server) AddNATGateways(items ...snapshot.NATGateway) {
	add(s, s.natGateways, items, func(v snapshot.NATGateway) string { return v.ID })
}

// AddVPCEndpoints adds or replaces VPC endpoints by ID.
func (s *Server) AddVPCEndpoints(items ...snapshot.VPCEndpoint) {
	add(s, s.endpoints, items, func(v snapshot.VPCEndpoint) string { return v.ID })
}

// AddNetworkACLs adds or replaces network ACLs by ID.
func (s *Server) AddNetworkACLs(items ...snapshot.NetworkACL) {
	add(s, s.acls, items, func(v snapshot.NetworkACL) string { return v.ID })
}

func routeTableSelection() selection[snapshot.RouteTable] {
	return selection[snapshot.RouteTable]{
		cache: "routeTables", idFilter: "route-table-id", idList: "RouteTableId", field: routeTableField,
		missing:    notFound("InvalidRouteTableID.NotFound", "The routeTable ID '%s' does not exist"),
		minResults: 5, maxResults: 100,
	}
}

func natGatewaySelection() selection[snapshot.NATGateway] {
	return selection[snapshot.NATGateway]{
		cache: "natGateways", idFilter: "nat-gateway-id", idList: "NatGatewayId", field: natGatewayField,
		missing:    notFound("NatGatewayNotFound", "The Nat Gateway %s was not found"),
		minResults: 5, maxResults: 1000,
	}
}

func endpointSelection() selection[snapshot.VPCEndpoint] {
	return selection[snapshot.VPCEndpoint]{
		cache: "endpoints", idList: "VpcEndpointId", field: endpointField,
		missing:    notFound("InvalidVpcEndpointId.NotFound", "The Vpc Endpoint Id '%s' does not exist"),
		minResults: 1, maxResults: 1000,
	}
}

func aclSelection() selection[snapshot.NetworkACL] {
	return selection[snapshot.NetworkACL]{
		cache: "acls", idList: "NetworkAclId", field: aclField,
		missing:    notFound("InvalidNetworkAclID.NotFound", "The network ACL ID '%s' does not exist"),
		minResults: 5, maxResults: 100,
	}
}

func routeTableField(t snapshot.RouteTable, name string) ([]string, bool) {
	switch name {
	case "route-table-id":
		return []string{t.ID}, true
	case "vpc-id":
		return []string{t.VpcID}, true
	case "association.subnet-id":
		return t.SubnetIDs, true
	case "association.main":
		return []string{strconv.FormatBool(t.Main)}, true
	}
	return nil, false
}

func natGatewayField(g snapshot.NATGateway, name string) ([]string, bool) {
	switch name {
	case "nat-gateway-id":
		return []string{g.ID}, true
	case "vpc-id":
		return []string{g.VpcID}, true
	case "subnet-id":
		return []string{g.SubnetID}, true
	case "state":
		return []string{g.State}, true
	}
	return nil, false
}

func endpointField(e snapshot.VPCEndpoint, name string) ([]string, bool) {
	switch name {
	case "vpc-id":
		return []string{e.VpcID}, true
	case "service-name":
		return []string{e.ServiceName}, true
	case "vpc-endpoint-type":
		return []string{e.Type}, true
	case "vpc-endpoint-state":
		return []string{e.State}, true
	}
	return nil, false
}

func aclField(a snapshot.NetworkACL, name string) ([]string, bool) {
	switch name {
	case "vpc-id":
		return []string{a.VpcID}, true
	case "association.subnet-id":
		return a.SubnetIDs, true
	case "default":
		return []string{strconv.FormatBool(a.Default)}, true
	}
	return nil, false
}

// describeNetwork answers the four network actions; ok is false for another action.
// s.mu must be held.
func (s *Server) describeNetwork(action string, q query) (body any, err *apiError, ok bool) {
	switch action {
	case DescribeRouteTables:
		keys, next, err := selectPage(s, s.routeTables, routeTableSelection(), q)
		if err != nil {
			return nil, err, true
		}
		out := make([]xmlRouteTable, len(keys))
		for i, k := range keys {
			out[i] = toXMLRouteTable(s.routeTables[k])
		}
		return describeRouteTablesResponse{Xmlns: xmlns, RequestID: requestID, Tables: emptySet(out), NextToken: next}, nil, true
	case DescribeNatGateways:
		keys, next, err := selectPage(s, s.natGateways, natGatewaySelection(), q)
		if err != nil {
			return nil, err, true
		}
		out := make([]xmlNATGateway, len(keys))
		for i, k := range keys {
			out[i] = toXMLNATGateway(s.natGateways[k])
		}
		return describeNatGatewaysResponse{Xmlns: xmlns, RequestID: requestID, Gateways: emptySet(out), NextToken: next}, nil, true
	case DescribeVpcEndpoints:
		keys, next, err := selectPage(s, s.endpoints, endpointSelection(), q)
		if err != nil {
			return nil, err, true
		}
		out := make([]xmlVPCEndpoint, len(keys))
		for i, k := range keys {
			out[i] = toXMLVPCEndpoint(s.endpoints[k])
		}
		return describeVpcEndpointsResponse{Xmlns: xmlns, RequestID: requestID, Endpoints: emptySet(out), NextToken: next}, nil, true
	case DescribeNetworkAcls:
		keys, next, err := selectPage(s, s.acls, aclSelection(), q)
		if err != nil {
			return nil, err, true
		}
		out := make([]xmlNetworkACL, len(keys))
		for i, k := range keys {
			out[i] = toXMLNetworkACL(s.acls[k])
		}
		return describeNetworkAclsResponse{Xmlns: xmlns, RequestID: requestID, ACLs: emptySet(out), NextToken: next}, nil, true
	}
	return nil, nil, false
}
