package ec2sim

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// APIVersion is the EC2 API version the server accepts.
const APIVersion = "2016-11-15"

// Action names the server answers.
const (
	DescribeInstances       = "DescribeInstances"
	DescribeSubnets         = "DescribeSubnets"
	DescribeSecurityGroups  = "DescribeSecurityGroups"
	DescribePlacementGroups = "DescribePlacementGroups"
	DescribeInstanceTypes   = "DescribeInstanceTypes"
)

// Server is an EC2 query-protocol server holding instances, subnets, security groups,
// placement groups and instance types. Its methods are safe for concurrent use.
type Server struct {
	mu sync.Mutex

	instances map[string]snapshot.Instance
	subnets   map[string]snapshot.Subnet
	groups    map[string]snapshot.SecurityGroup
	placement map[string]snapshot.PlacementGroup
	types     map[string]snapshot.InstanceType
	// The way out of the VPCs (network.go).
	routeTables map[string]snapshot.RouteTable
	natGateways map[string]snapshot.NATGateway
	endpoints   map[string]snapshot.VPCEndpoint
	acls        map[string]snapshot.NetworkACL
	// The DNS of the VPCs (dns.go).
	vpcs map[string]snapshot.VPC
	dhcp map[string]snapshot.DHCPOptions
	// What else holds addresses (interfaces.go): interfaces of their own and subnet CIDR
	// reservations; enis caches every interface DescribeNetworkInterfaces answers, the
	// instances' own included, and is nil after a change.
	interfaces   map[string]snapshot.InterfaceRecord
	reservations map[string]snapshot.CIDRReservation
	enis         map[string]snapshot.InterfaceRecord
	// sorted caches the sorted keys of each map; nil after a change.
	sorted map[string][]string
	// selected caches the keys a filtered query without IDs selects, by the map's cache name
	// and the filters, so that the pages of one large filtered call are cut from one
	// selection, as EC2 does; nil after a change.
	selected map[string][]string
	// replay, set by SetReplay, keeps each answer it writes in answers by its query, and
	// writes the same bytes to the same query again; answers is nil after a change.
	replay  bool
	answers map[string][]byte

	pageSize int
	faults   faults
	requests []Request
	now      func() time.Time
}

// Request is one request the server received, recorded before any fault is applied.
type Request struct {
	Action string
	// Region is the Region of the request's SigV4 credential scope; empty when unsigned.
	Region string
	// Filters maps each filter name to its values.
	Filters map[string][]string
	// Lists holds flat list parameters such as InstanceType or GroupName, by name.
	Lists map[string][]string
	// NextToken is the page token the request carried.
	NextToken string
}

// Values returns how many filter and list values the request carried, which is the size of
// the batch it asked for.
func (r Request) Values() int {
	n := 0
	for _, v := range r.Filters {
		n += len(v)
	}
	for _, v := range r.Lists {
		n += len(v)
	}
	return n
}

// New returns an empty Server that answers every result on one page.
func New() *Server {
	return &Server{
		instances: map[string]snapshot.Instance{},
		subnets:   map[string]snapshot.Subnet{},
		groups:    map[string]snapshot.SecurityGroup{},
		placement: map[string]snapshot.PlacementGroup{},
		types:     map[string]snapshot.InstanceType{},

		routeTables: map[string]snapshot.RouteTable{},
		natGateways: map[string]snapshot.NATGateway{},
		endpoints:   map[string]snapshot.VPCEndpoint{},
		acls:        map[string]snapshot.NetworkACL{},
		vpcs:        map[string]snapshot.VPC{},
		dhcp:        map[string]snapshot.DHCPOptions{},

		interfaces:   map[string]snapshot.InterfaceRecord{},
		reservations: map[string]snapshot.CIDRReservation{},
		now:          time.Now,
	}
}

// add stores items in m under their keys, for the Add methods.
func add[T any](s *Server, m map[string]T, items []T, key func(T) string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range items {
		m[key(v)] = v
	}
	s.sorted = nil
	s.selected = nil
	s.answers = nil
	s.enis = nil
}

// AddInstances adds or replaces instances by ID.
func (s *Server) AddInstances(items ...snapshot.Instance) {
	add(s, s.instances, items, func(v snapshot.Instance) string { return v.ID })
}

// AddSubnets adds or replaces subnets by ID.
func (s *Server) AddSubnets(items ...snapshot.Subnet) {
	add(s, s.subnets, items, func(v snapshot.Subnet) string { return v.ID })
}

// AddSecurityGroups adds or replaces security groups by ID.
func (s *Server) AddSecurityGroups(items ...snapshot.SecurityGroup) {
	add(s, s.groups, items, func(v snapshot.SecurityGroup) string { return v.ID })
}

// AddPlacementGroups adds or replaces placement groups by ID.
func (s *Server) AddPlacementGroups(items ...snapshot.PlacementGroup) {
	add(s, s.placement, items, func(v snapshot.PlacementGroup) string { return v.ID })
}

// AddSnapshot adds what a snapshot read from EC2: its instances, subnets, security groups,
// placement groups, instance types, route tables, NAT gateways, VPC endpoints, network ACLs,
// interfaces of their own and CIDR reservations, so that the server answers as the EC2 it was
// read from did.
func (s *Server) AddSnapshot(snap *snapshot.Snapshot) {
	s.AddInstances(snap.Instances...)
	s.AddSubnets(snap.Subnets...)
	s.AddSecurityGroups(snap.SecurityGroups...)
	s.AddPlacementGroups(snap.PlacementGroups...)
	s.AddInstanceTypes(snap.InstanceTypes...)
	s.AddRouteTables(snap.RouteTables...)
	s.AddNATGateways(snap.NATGateways...)
	s.AddVPCEndpoints(snap.VPCEndpoints...)
	s.AddNetworkACLs(snap.NetworkACLs...)
	s.AddVPCs(snap.VPCs...)
	s.AddDHCPOptions(snap.DHCPOptions...)
	s.AddInterfaces(snap.Interfaces...)
	s.AddCIDRReservations(snap.CIDRReservations...)
}

// AddInstanceTypes adds or replaces instance types by name.
func (s *Server) AddInstanceTypes(items ...snapshot.InstanceType) {
	add(s, s.types, items, func(v snapshot.InstanceType) string { return v.Name })
}

// SetPageSize makes paginated actions answer at most n items a page, with a NextToken for
// the rest; 0 means one page (or MaxResults when the request sets it).
func (s *Server) SetPageSize(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pageSize = n
}

// Count returns how many requests of action the server received, failed ones included.
func (s *Server) Count(action string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		if r.Action == action {
			n++
		}
	}
	return n
}

// Counts returns how many requests of each action the server received, failed ones included.
func (s *Server) Counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, r := range s.requests {
		out[r.Action]++
	}
	return out
}

// Total returns how many requests the server received.
func (s *Server) Total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// Requests returns a copy of every request received, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Start serves s on a loopback httptest server that tb closes at cleanup, and returns its URL.
func (s *Server) Start(tb testing.TB) string {
	tb.Helper()
	ts := httptest.NewServer(s)
	tb.Cleanup(ts.Close)
	return ts.URL
}

// NewHTTPServer serves s on a new loopback httptest server; the caller closes it.
func (s *Server) NewHTTPServer() *httptest.Server { return httptest.NewServer(s) }

// ServeHTTP answers one EC2 query-protocol request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, http.StatusBadRequest, "InvalidAction", "only POST requests are served")
		return
	}
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "MalformedQueryString", err.Error())
		return
	}
	q, err := parseQuery(r.PostForm)
	if err != nil {
		writeError(w, http.StatusBadRequest, "InvalidParameterValue", err.Error())
		return
	}
	action := r.PostForm.Get("Action")
	region := signingRegion(r.Header.Get("Authorization"))
	s.record(Request{
		Action: action, Region: region,
		Filters: q.filterMap(), Lists: maps.Clone(q.lists), NextToken: q.nextToken,
	})
	if f := s.fault(r.Context(), action, region); f != nil {
		writeError(w, f.status, f.code, f.message)
		return
	}
	if s.hostileAnswer(w, r, action) {
		return
	}
	if r.Header.Get("Authorization") == "" {
		writeError(w, http.StatusUnauthorized, "AuthFailure", "AWS was not able to validate the provided access credentials")
		return
	}
	if v := r.PostForm.Get("Version"); v != APIVersion {
		writeError(w, http.StatusBadRequest, "InvalidParameterValue", "unsupported Version "+v)
		return
	}
	s.answer(w, action, q, r.PostForm.Encode())
}

// SetReplay makes the server write the bytes of an answer it gave before to the same query
// (the same form, NextToken included) until the data changes, instead of building it again.
// A benchmark of a client against the server on the same machine turns it on and reads once
// before it measures, so that what it measures is the client's work and EC2's latency, not
// the server's rendering, which EC2 does on its own machines.
func (s *Server) SetReplay(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replay, s.answers = on, nil
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
}

// sortedKeys returns the sorted keys of m, cached under name until the next change.
// s.mu must be held.
func sortedKeys[T any](s *Server, name string, m map[string]T) []string {
	if keys, ok := s.sorted[name]; ok {
		return keys
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if s.sorted == nil {
		s.sorted = map[string][]string{}
	}
	s.sorted[name] = keys
	return keys
}
