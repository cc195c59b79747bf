package snapshot

import "time"

// The way out of a node subnet: what a new node needs to reach the EKS endpoint, ECR, STS and
// EC2 before it can join. Each list holds what the VPCs of the nodes' and classes' subnets
// have; a list that was not read has a Gap, and a snapshot written before these were collected
// has none of them, so checks read "no route table for this VPC" as unknown, never as "none".

// RouteTable is what karpnet keeps of a VPC route table from DescribeRouteTables.
type RouteTable struct {
	ID    string `json:"id"`
	VpcID string `json:"vpcID"`
	// Main marks the VPC's main route table, which serves every subnet without an explicit
	// association.
	Main bool `json:"main,omitempty"`
	// SubnetIDs are the subnets explicitly associated with the table.
	SubnetIDs []string `json:"subnetIDs,omitempty"`
	Routes    []Route  `json:"routes,omitempty"`
}

// Route is one route of a route table.
type Route struct {
	// Destination is the IPv4 or IPv6 CIDR; DestinationPrefixList a managed prefix list (pl-...)
	// such as the S3 gateway endpoint's.
	Destination           string `json:"destination,omitempty"`
	DestinationPrefixList string `json:"destinationPrefixList,omitempty"`
	// Target is what the route sends to: "local", or the ID of an internet gateway (igw-), NAT
	// gateway (nat-), transit gateway (tgw-), VPC endpoint (vpce-, gateway or Gateway Load
	// Balancer / Network Firewall), network interface (eni-), peering connection (pcx-),
	// virtual private gateway (vgw-), egress-only internet gateway (eigw-) or carrier gateway
	// (cagw-).
	Target string `json:"target"`
	// State is active or blackhole (the target is gone).
	State string `json:"state,omitempty"`
}

// Route states.
const (
	RouteActive    = "active"
	RouteBlackhole = "blackhole"
)

// NATGateway is what karpnet keeps of a NAT gateway from DescribeNatGateways.
type NATGateway struct {
	ID       string `json:"id"`
	VpcID    string `json:"vpcID"`
	SubnetID string `json:"subnetID"`
	// State is pending, available, deleting, deleted or failed.
	State string `json:"state"`
	// ConnectivityType is public (to the internet through an internet gateway) or private (to
	// other networks only).
	ConnectivityType string `json:"connectivityType,omitempty"`
	// PublicIP is a public gateway's public IPv4 address (its primary Elastic IP, else the first
	// one listed); "" for a private gateway, and in snapshots written before it was kept.
	PublicIP string `json:"publicIP,omitempty"`
	// AvailabilityMode is zonal (one zone, in SubnetID) or regional (one gateway for the zones of
	// its VPC, with no subnet and a route table of its own); "" in snapshots written before it
	// was kept, read as zonal.
	AvailabilityMode string `json:"availabilityMode,omitempty"`
	// RouteTableID is a regional gateway's own route table, which EC2 creates with a route to the
	// VPC's internet gateway.
	RouteTableID string `json:"routeTableID,omitempty"`
	// AutoProvisionZones is a regional gateway's enabled (EC2 adds and removes the zones where
	// the VPC has subnets) or disabled (it serves only the zones it was given addresses in).
	AutoProvisionZones string `json:"autoProvisionZones,omitempty"`
	// Zones and ZoneIDs are the zones a regional gateway has an address in that did not fail,
	// by name and by ID, sorted.
	Zones   []string `json:"zones,omitempty"`
	ZoneIDs []string `json:"zoneIDs,omitempty"`
}

// NAT gateway availability modes and zone provisioning.
const (
	NATRegional          = "regional"
	NATAutoZonesDisabled = "disabled"
)

// VPCEndpoint is what karpnet keeps of a VPC endpoint from DescribeVpcEndpoints.
type VPCEndpoint struct {
	ID    string `json:"id"`
	VpcID string `json:"vpcID"`
	// ServiceName is e.g. com.amazonaws.us-west-2.ecr.api.
	ServiceName string `json:"serviceName"`
	// Type is Interface, Gateway or GatewayLoadBalancer.
	Type string `json:"type"`
	// State is e.g. available, pending, pendingAcceptance, deleting, rejected or failed (EC2
	// spells the states in either case).
	State string `json:"state"`
	// PrivateDNS says whether an interface endpoint answers for the service's own host name.
	PrivateDNS bool `json:"privateDNS,omitempty"`
	// SubnetIDs are an interface endpoint's subnets, RouteTableIDs a gateway endpoint's tables.
	SubnetIDs      []string `json:"subnetIDs,omitempty"`
	RouteTableIDs  []string `json:"routeTableIDs,omitempty"`
	SecurityGroups []string `json:"securityGroups,omitempty"`
}

// NetworkACL is what karpnet keeps of a network ACL from DescribeNetworkAcls.
type NetworkACL struct {
	ID    string `json:"id"`
	VpcID string `json:"vpcID"`
	// Default marks the VPC's default ACL, which serves every subnet not associated with
	// another.
	Default bool `json:"default,omitempty"`
	// SubnetIDs are the subnets associated with the ACL.
	SubnetIDs []string   `json:"subnetIDs,omitempty"`
	Entries   []ACLEntry `json:"entries,omitempty"`
}

// ACLEntry is one numbered rule of a network ACL. The lowest number that matches decides; the
// last rule, "*", denies what no rule matched and is not listed.
type ACLEntry struct {
	RuleNumber int32 `json:"ruleNumber"`
	Egress     bool  `json:"egress,omitempty"`
	// Protocol is "-1" for all traffic or an IP protocol number ("6" is TCP, "17" UDP).
	Protocol string `json:"protocol"`
	// Action is allow or deny.
	Action   string `json:"action"`
	CIDR     string `json:"cidr,omitempty"`
	IPv6CIDR string `json:"ipv6CIDR,omitempty"`
	// FromPort and ToPort bound the TCP or UDP ports; both zero for every port.
	FromPort int32 `json:"fromPort,omitempty"`
	ToPort   int32 `json:"toPort,omitempty"`
}

// ACL rule actions.
const (
	ACLAllow = "allow"
	ACLDeny  = "deny"
)

// KubeEvent is a Kubernetes Event about a NodeClaim or a NodePool (Karpenter's own account
// of a launch or registration), newest last.
type KubeEvent struct {
	// Kind and Name are the involved object's, e.g. NodeClaim default-x7k2p.
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	Type    string `json:"type,omitempty"`
	Reason  string `json:"reason"`
	Message string `json:"message,omitempty"`
	Count   int32  `json:"count,omitempty"`
	// Last is when the event last happened; First when it first did (kept for the node
	// monitoring agent's events only).
	Last  time.Time `json:"last,omitzero"`
	First time.Time `json:"first,omitzero"`
}
