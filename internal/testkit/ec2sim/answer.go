package ec2sim

import (
	"fmt"
	"net/http"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// maxInstanceTypes is EC2's limit on InstanceType.N values in one DescribeInstanceTypes call.
const maxInstanceTypes = 100

func instanceSelection() selection[snapshot.Instance] {
	return selection[snapshot.Instance]{
		cache: "instances", idFilter: "instance-id", idList: "InstanceId", field: instanceField,
		missing:    notFound("InvalidInstanceID.NotFound", "The instance IDs '%s' do not exist"),
		minResults: 5, maxResults: 1000,
	}
}

func subnetSelection() selection[snapshot.Subnet] {
	return selection[snapshot.Subnet]{
		cache: "subnets", idFilter: "subnet-id", idList: "SubnetId", field: subnetField,
		missing:    notFound("InvalidSubnetID.NotFound", "The subnet ID '%s' does not exist"),
		minResults: 5, maxResults: 1000,
	}
}

func securityGroupSelection() selection[snapshot.SecurityGroup] {
	return selection[snapshot.SecurityGroup]{
		cache: "groups", idFilter: "group-id", idList: "GroupId", field: securityGroupField,
		missing:    notFound("InvalidGroup.NotFound", "The security group '%s' does not exist"),
		minResults: 5, maxResults: 1000,
	}
}

func placementGroupSelection() selection[snapshot.PlacementGroup] {
	return selection[snapshot.PlacementGroup]{
		cache: "placement", idList: "GroupId", field: placementGroupField,
		missing:    notFound("InvalidPlacementGroup.Unknown", "The Placement Group '%s' is unknown."),
		minResults: 1, maxResults: 1,
	}
}

func instanceTypeSelection() selection[snapshot.InstanceType] {
	return selection[snapshot.InstanceType]{
		cache: "types", idList: "InstanceType", field: instanceTypeField,
		missing:    notFound("InvalidInstanceType", "The following supplied instance types do not exist: [%s]"),
		minResults: 5, maxResults: 100,
	}
}

// answer serves one Describe action from the server's state.
func (s *Server) answer(w http.ResponseWriter, action string, q query, form string) {
	next := s.hostileQuery(action, &q)
	s.mu.Lock()
	if replayed, ok := s.answers[form]; ok && next == "" {
		s.mu.Unlock()
		writeBody(w, replayed)
		return
	}
	body, err := s.describe(action, q)
	replay := s.replay && next == ""
	s.mu.Unlock()
	if err != nil {
		writeError(w, err.status, err.code, err.message)
		return
	}
	if next != "" {
		body = withNextToken(body, next)
	}
	if resp, ok := body.(describeInstancesResponse); ok {
		if extra := s.extraInstances(); extra > 0 {
			writeInstances(w, resp, extra)
			return
		}
	}
	out, merr := marshalXML(body)
	if merr != nil {
		writeError(w, http.StatusInternalServerError, "InternalError", merr.Error())
		return
	}
	if replay {
		s.mu.Lock()
		if s.replay {
			if s.answers == nil {
				s.answers = map[string][]byte{}
			}
			s.answers[form] = out
		}
		s.mu.Unlock()
	}
	writeBody(w, out)
}

// describe builds the answer to action. s.mu must be held.
func (s *Server) describe(action string, q query) (any, *apiError) {
	switch action {
	case DescribeInstances:
		keys, next, err := selectPage(s, s.instances, instanceSelection(), q)
		if err != nil {
			return nil, err
		}
		out := make([]xmlReservation, len(keys))
		for i, k := range keys {
			out[i] = xmlReservation{
				ReservationID: reservationID(k), OwnerID: "123456789012",
				Instances: setOf([]xmlInstance{toXMLInstance(s.instances[k])}),
			}
		}
		return describeInstancesResponse{Xmlns: xmlns, RequestID: requestID, Reservations: emptySet(out), NextToken: next}, nil
	case DescribeSubnets:
		keys, next, err := selectPage(s, s.subnets, subnetSelection(), q)
		if err != nil {
			return nil, err
		}
		out := make([]xmlSubnet, len(keys))
		for i, k := range keys {
			out[i] = toXMLSubnet(s.subnets[k])
		}
		return describeSubnetsResponse{Xmlns: xmlns, RequestID: requestID, Subnets: emptySet(out), NextToken: next}, nil
	case DescribeSecurityGroups:
		keys, next, err := selectPage(s, s.groups, securityGroupSelection(), q)
		if err != nil {
			return nil, err
		}
		out := make([]xmlSecurityGroup, len(keys))
		for i, k := range keys {
			out[i] = toXMLSecurityGroup(s.groups[k])
		}
		return describeSecurityGroupsResponse{Xmlns: xmlns, RequestID: requestID, Groups: emptySet(out), NextToken: next}, nil
	case DescribePlacementGroups:
		return s.describePlacementGroups(q)
	case DescribeInstanceTypes:
		if n := len(q.lists["InstanceType"]); n > maxInstanceTypes {
			return nil, badRequest("InvalidParameterValue",
				fmt.Sprintf("at most %d instance types may be given, got %d", maxInstanceTypes, n))
		}
		keys, next, err := selectPage(s, s.types, instanceTypeSelection(), q)
		if err != nil {
			return nil, err
		}
		out := make([]xmlInstanceType, len(keys))
		for i, k := range keys {
			out[i] = toXMLInstanceType(s.types[k])
		}
		return describeInstanceTypesResponse{Xmlns: xmlns, RequestID: requestID, Types: emptySet(out), NextToken: next}, nil
	}
	if body, err, ok := s.describeNetwork(action, q); ok {
		return body, err
	}
	if body, err, ok := s.describeDNS(action, q); ok {
		return body, err
	}
	if body, err, ok := s.describeAddresses(action, q); ok {
		return body, err
	}
	return nil, badRequest("InvalidAction", fmt.Sprintf("The action %s is not valid for this web service.", action))
}

// describePlacementGroups answers DescribePlacementGroups, which takes GroupName.N and
// GroupId.N (unknown ones fail the call) and filters, and does not paginate.
func (s *Server) describePlacementGroups(q query) (any, *apiError) {
	if q.maxResults != 0 || q.nextToken != "" {
		return nil, badRequest("InvalidParameterValue", "DescribePlacementGroups does not paginate")
	}
	if names, ok := q.lists["GroupName"]; ok {
		byName := make(map[string]string, len(s.placement))
		for id, g := range s.placement {
			byName[g.Name] = id
		}
		var missing []string
		for _, n := range names {
			if id, ok := byName[n]; ok {
				q.lists["GroupId"] = append(q.lists["GroupId"], id)
			} else {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			e := placementGroupSelection().missing(missing)
			return nil, &e
		}
	}
	keys, err := selectKeys(s, s.placement, placementGroupSelection(), q)
	if err != nil {
		return nil, err
	}
	out := make([]xmlPlacementGroup, len(keys))
	for i, k := range keys {
		out[i] = toXMLPlacementGroup(s.placement[k])
	}
	return describePlacementGroupsResponse{Xmlns: xmlns, RequestID: requestID, Groups: emptySet(out)}, nil
}

// selectPage selects the items q asks for and cuts one page of them.
func selectPage[T any](s *Server, m map[string]T, sel selection[T], q query) ([]string, string, *apiError) {
	keys, err := selectKeys(s, m, sel, q)
	if err != nil {
		return nil, "", err
	}
	keys, next, perr := page(keys, q.nextToken, s.pageSizeFor(q))
	if perr != nil {
		return nil, "", badRequest("InvalidPaginationToken", perr.Error())
	}
	return keys, next, nil
}

// emptySet returns an empty list element rather than none, as EC2 does.
func emptySet[T any](items []T) *set[T] { return &set[T]{Items: items} }
