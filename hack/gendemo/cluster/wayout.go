package cluster

import (
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// The demo VPC's way out: private subnets reach the internet through one NAT gateway on the
// main route table, and S3 through a gateway endpoint. The NAT gateway sits in a public subnet
// whose own route table sends 0.0.0.0/0 to the VPC's internet gateway. Someone gave the batch
// subnet of zone c a route table of its own without a default route, so the node launched
// there last never joined.

// routeTables returns the VPC's route tables.
func (n *network) routeTables() []snapshot.RouteTable {
	local := []snapshot.Route{
		{Destination: "10.0.0.0/16", Target: "local", State: snapshot.RouteActive},
		{Destination: "100.64.0.0/16", Target: "local", State: snapshot.RouteActive},
	}
	s3 := snapshot.Route{DestinationPrefixList: "pl-68a54001", Target: n.s3Endpoint(), State: snapshot.RouteActive}
	main := snapshot.RouteTable{
		ID: hexID("rtb", "main"), VpcID: n.vpcID, Main: true,
		Routes: append(append([]snapshot.Route{}, local...), s3,
			snapshot.Route{Destination: "0.0.0.0/0", Target: n.natGateway(), State: snapshot.RouteActive}),
	}
	isolated := snapshot.RouteTable{
		ID: hexID("rtb", "batch-isolated"), VpcID: n.vpcID, SubnetIDs: []string{n.subnet("batch-c").id},
		Routes: append([]snapshot.Route{}, local...),
	}
	public := snapshot.RouteTable{
		ID: hexID("rtb", "public"), VpcID: n.vpcID, SubnetIDs: []string{hexID("subnet", "public-a")},
		Routes: append(append([]snapshot.Route{}, local...),
			snapshot.Route{Destination: "0.0.0.0/0", Target: hexID("igw", "main"), State: snapshot.RouteActive}),
	}
	return []snapshot.RouteTable{main, isolated, public}
}

// natGateway returns the ID of the VPC's NAT gateway.
func (n *network) natGateway() string { return hexID("nat", "public-a") }

// s3Endpoint returns the ID of the VPC's S3 gateway endpoint.
func (n *network) s3Endpoint() string { return hexID("vpce", "s3") }

// natGateways returns DescribeNatGateways: one public gateway in a public subnet of zone a
// that no node uses (so karpnet does not read that subnet).
func (n *network) natGateways() []snapshot.NATGateway {
	return []snapshot.NATGateway{{
		ID: n.natGateway(), VpcID: n.vpcID, SubnetID: hexID("subnet", "public-a"), State: "available",
		ConnectivityType: "public", PublicIP: "203.0.113.45",
	}}
}

// vpcEndpoints returns DescribeVpcEndpoints: the S3 gateway endpoint on the main table.
func (n *network) vpcEndpoints() []snapshot.VPCEndpoint {
	return []snapshot.VPCEndpoint{{
		ID: n.s3Endpoint(), VpcID: n.vpcID, ServiceName: "com.amazonaws." + region + ".s3", Type: "Gateway",
		State: "available", RouteTableIDs: []string{hexID("rtb", "main")},
	}}
}

// networkACLs returns DescribeNetworkAcls: the VPC's default ACL, which allows everything and
// serves every subnet.
func (n *network) networkACLs() []snapshot.NetworkACL {
	var subnets []string
	for _, s := range n.snapshotSubnets() {
		subnets = append(subnets, s.ID)
	}
	entries := []snapshot.ACLEntry{
		{RuleNumber: 100, Egress: true, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0"},
		{RuleNumber: 32767, Egress: true, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0"},
		{RuleNumber: 100, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0"},
		{RuleNumber: 32767, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0"},
	}
	return []snapshot.NetworkACL{{ID: hexID("acl", "default"), VpcID: n.vpcID, Default: true, SubnetIDs: subnets,
		Entries: entries}}
}

// registrationFailing marks the batch NodePool's registrations as failing, as Karpenter does
// after the NodeClaims launched into the isolated subnet timed out.
func registrationFailing(p *snapshot.NodePool) {
	for i, c := range p.Conditions {
		if c.Type == "NodeRegistrationHealthy" {
			p.Conditions[i] = snapshot.Condition{Type: c.Type, Status: "False", Reason: "RegistrationFailed",
				Message: "Failed to register node", LastTransitionTime: Taken().Add(-24 * time.Minute)}
		}
	}
}
