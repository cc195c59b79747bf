package ec2sim

import (
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// What else holds addresses: DescribeNetworkInterfaces answers every interface, the
// instances' own (in-use, attached to their instance) and those added with AddInterfaces;
// GetSubnetCidrReservations answers one subnet's reservations, IPv4 and IPv6 apart.

// Address action names the server answers.
const (
	DescribeNetworkInterfaces = "DescribeNetworkInterfaces"
	GetSubnetCidrReservations = "GetSubnetCidrReservations"
)

// AddInterfaces adds or replaces interfaces by ID, beside the instances' own.
func (s *Server) AddInterfaces(items ...snapshot.InterfaceRecord) {
	add(s, s.interfaces, items, func(v snapshot.InterfaceRecord) string { return v.ID })
}

// AddCIDRReservations adds or replaces subnet CIDR reservations by ID.
func (s *Server) AddCIDRReservations(items ...snapshot.CIDRReservation) {
	add(s, s.reservations, items, func(v snapshot.CIDRReservation) string { return v.ID })
}

// allInterfaces returns every interface: the instances' ENIs, then those added, which
// replace an instance's of the same ID. s.mu must be held.
func (s *Server) allInterfaces() map[string]snapshot.InterfaceRecord {
	if s.enis != nil {
		return s.enis
	}
	out := make(map[string]snapshot.InterfaceRecord, len(s.interfaces))
	for _, in := range s.instances {
		for _, e := range in.ENIs {
			out[e.ID] = instanceInterface(in, e)
		}
	}
	for id, v := range s.interfaces {
		out[id] = v
	}
	s.enis = out
	return out
}

// instanceInterface is an instance's ENI as DescribeNetworkInterfaces answers it.
func instanceInterface(in snapshot.Instance, e snapshot.ENI) snapshot.InterfaceRecord {
	ips := e.PrivateIPs
	if e.PrimaryIP != "" && (len(ips) == 0 || ips[0] != e.PrimaryIP) {
		ips = append([]string{e.PrimaryIP}, ips...)
	}
	return snapshot.InterfaceRecord{
		ID: e.ID, VpcID: in.VpcID, SubnetID: e.SubnetID, Zone: in.Zone, Status: cmpOr(e.Status, snapshot.InterfaceInUse),
		InterfaceType: e.InterfaceType, Description: e.Description, InstanceID: in.ID, PrivateIPs: ips,
		IPv4Prefixes: e.IPv4Prefixes, IPv6Addresses: e.IPv6Addresses, IPv6Prefixes: e.IPv6Prefixes,
		SecurityGroups: e.SecurityGroups,
	}
}

func interfaceSelection() selection[snapshot.InterfaceRecord] {
	return selection[snapshot.InterfaceRecord]{
		cache: "interfaces", idFilter: "network-interface-id", idList: "NetworkInterfaceId", field: interfaceField,
		missing:    notFound("InvalidNetworkInterfaceID.NotFound", "The networkInterface ID '%s' does not exist"),
		minResults: 5, maxResults: 1000,
	}
}

func reservationSelection() selection[snapshot.CIDRReservation] {
	return selection[snapshot.CIDRReservation]{
		cache: "reservations", field: reservationField, minResults: 5, maxResults: 1000,
		missing: notFound("InvalidSubnetCidrReservationID.NotFound", "The subnet CIDR reservation '%s' does not exist"),
	}
}

func interfaceField(n snapshot.InterfaceRecord, name string) ([]string, bool) {
	switch name {
	case "network-interface-id":
		return []string{n.ID}, true
	case "subnet-id":
		return []string{n.SubnetID}, true
	case "vpc-id":
		return []string{n.VpcID}, true
	case "availability-zone":
		return []string{n.Zone}, true
	case "status":
		return []string{n.Status}, true
	case "interface-type":
		return []string{n.InterfaceType}, true
	case "description":
		return []string{n.Description}, true
	case "attachment.instance-id":
		return []string{n.InstanceID}, true
	case "requester-managed":
		return []string{strconv.FormatBool(n.RequesterManaged)}, true
	}
	return tagField(n.Tags, name)
}

func reservationField(r snapshot.CIDRReservation, name string) ([]string, bool) {
	switch name {
	case "reservationType":
		return []string{r.Type}, true
	case "subnet-id":
		return []string{r.SubnetID}, true
	}
	return nil, false
}

// describeAddresses answers the two address actions; ok is false for another action.
// s.mu must be held.
func (s *Server) describeAddresses(action string, q query) (body any, err *apiError, ok bool) {
	switch action {
	case DescribeNetworkInterfaces:
		all := s.allInterfaces()
		keys, next, err := selectPage(s, all, interfaceSelection(), q)
		if err != nil {
			return nil, err, true
		}
		out := make([]xmlNetworkInterface, len(keys))
		for i, k := range keys {
			out[i] = toXMLNetworkInterface(all[k])
		}
		return describeNetworkInterfacesResponse{Xmlns: xmlns, RequestID: requestID, Interfaces: emptySet(out), NextToken: next}, nil, true
	case GetSubnetCidrReservations:
		subnet := q.scalars["SubnetId"]
		if subnet == "" {
			return nil, badRequest("MissingParameter", "The request must contain the parameter SubnetId"), true
		}
		if _, known := s.subnets[subnet]; !known {
			return nil, badRequest("InvalidSubnetID.NotFound", "The subnet ID '"+subnet+"' does not exist"), true
		}
		q.filters = append(q.filters, filter{name: "subnet-id", values: []string{subnet}})
		keys, next, err := selectPage(s, s.reservations, reservationSelection(), q)
		if err != nil {
			return nil, err, true
		}
		var v4, v6 []xmlCIDRReservation
		for _, k := range keys {
			r := s.reservations[k]
			if strings.Contains(r.CIDR, ":") {
				v6 = append(v6, toXMLCIDRReservation(r))
			} else {
				v4 = append(v4, toXMLCIDRReservation(r))
			}
		}
		return getSubnetCidrReservationsResponse{Xmlns: xmlns, RequestID: requestID,
			IPv4: emptySet(v4), IPv6: emptySet(v6), NextToken: next}, nil, true
	}
	return nil, nil, false
}
