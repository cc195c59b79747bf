package ec2sim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// networkSim is a server with two VPCs' route tables, NAT gateway, endpoints and ACLs.
func networkSim() *Server {
	sim := New()
	sim.AddRouteTables(
		snapshot.RouteTable{ID: "rtb-main", VpcID: "vpc-a", Main: true, Routes: []snapshot.Route{
			{Destination: "10.0.0.0/16", Target: "local"}, {Destination: "0.0.0.0/0", Target: "igw-1"}}},
		snapshot.RouteTable{ID: "rtb-private", VpcID: "vpc-a", SubnetIDs: []string{"subnet-a1"}, Routes: []snapshot.Route{
			{Destination: "0.0.0.0/0", Target: "nat-1", State: snapshot.RouteBlackhole},
			{Destination: "::/0", Target: "eigw-1"},
			{DestinationPrefixList: "pl-63a5400a", Target: "vpce-s3"}}},
		snapshot.RouteTable{ID: "rtb-b", VpcID: "vpc-b", Main: true})
	sim.AddNATGateways(snapshot.NATGateway{ID: "nat-1", VpcID: "vpc-a", SubnetID: "subnet-pub", State: "available"},
		snapshot.NATGateway{ID: "nat-2", VpcID: "vpc-b", SubnetID: "subnet-b", State: "available", ConnectivityType: "private"})
	sim.AddVPCEndpoints(snapshot.VPCEndpoint{ID: "vpce-s3", VpcID: "vpc-a", ServiceName: "com.amazonaws.us-west-2.s3",
		Type: "Gateway", State: "available", RouteTableIDs: []string{"rtb-private"}},
		snapshot.VPCEndpoint{ID: "vpce-ecr", VpcID: "vpc-a", ServiceName: "com.amazonaws.us-west-2.ecr.api",
			Type: "Interface", State: "available", PrivateDNS: true, SubnetIDs: []string{"subnet-a1"},
			SecurityGroups: []string{"sg-1"}})
	sim.AddNetworkACLs(snapshot.NetworkACL{ID: "acl-1", VpcID: "vpc-a", Default: true, SubnetIDs: []string{"subnet-a1"},
		Entries: []snapshot.ACLEntry{{RuleNumber: 100, Egress: true, Protocol: "6", Action: "allow", CIDR: "0.0.0.0/0",
			FromPort: 443, ToPort: 443}}})
	return sim
}

func TestNetworkActionsDecode(t *testing.T) {
	sim := networkSim()
	client := NewClient(sim.Start(t), "us-west-2")
	vpcA := []types.Filter{{Name: aws.String("vpc-id"), Values: []string{"vpc-a"}}}

	rt, err := client.DescribeRouteTables(t.Context(), &ec2.DescribeRouteTablesInput{Filters: vpcA})
	if err != nil {
		t.Fatalf("DescribeRouteTables: %v", err)
	}
	if got, want := len(rt.RouteTables), 2; got != want {
		t.Fatalf("got %d route tables of vpc-a, want %d", got, want)
	}
	priv := rt.RouteTables[1]
	if got := aws.ToString(priv.Associations[0].SubnetId); got != "subnet-a1" {
		t.Errorf("association subnet = %q, want subnet-a1", got)
	}
	if got := aws.ToBool(rt.RouteTables[0].Associations[0].Main); !got {
		t.Errorf("main table's association main = false, want true")
	}
	routes := priv.Routes
	if aws.ToString(routes[0].NatGatewayId) != "nat-1" || routes[0].State != types.RouteStateBlackhole ||
		aws.ToString(routes[1].EgressOnlyInternetGatewayId) != "eigw-1" || aws.ToString(routes[1].DestinationIpv6CidrBlock) != "::/0" ||
		aws.ToString(routes[2].GatewayId) != "vpce-s3" || aws.ToString(routes[2].DestinationPrefixListId) != "pl-63a5400a" {
		t.Errorf("routes decoded wrong: %+v", routes)
	}

	nat, err := client.DescribeNatGateways(t.Context(), &ec2.DescribeNatGatewaysInput{Filter: vpcA})
	if err != nil {
		t.Fatalf("DescribeNatGateways: %v", err)
	}
	if len(nat.NatGateways) != 1 || aws.ToString(nat.NatGateways[0].NatGatewayId) != "nat-1" ||
		nat.NatGateways[0].State != types.NatGatewayStateAvailable {
		t.Errorf("NAT gateways of vpc-a = %+v, want nat-1 available", nat.NatGateways)
	}

	ep, err := client.DescribeVpcEndpoints(t.Context(), &ec2.DescribeVpcEndpointsInput{Filters: vpcA})
	if err != nil {
		t.Fatalf("DescribeVpcEndpoints: %v", err)
	}
	var got []string
	for _, e := range ep.VpcEndpoints {
		got = append(got, aws.ToString(e.VpcEndpointId)+" "+string(e.VpcEndpointType)+" "+
			aws.ToString(e.ServiceName))
	}
	want := []string{"vpce-ecr Interface com.amazonaws.us-west-2.ecr.api", "vpce-s3 Gateway com.amazonaws.us-west-2.s3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("endpoints mismatch (-want +got):\n%s", diff)
	}
	if e := ep.VpcEndpoints[0]; !aws.ToBool(e.PrivateDnsEnabled) || e.SubnetIds[0] != "subnet-a1" ||
		aws.ToString(e.Groups[0].GroupId) != "sg-1" {
		t.Errorf("interface endpoint decoded wrong: %+v", e)
	}
	if e := ep.VpcEndpoints[1]; e.RouteTableIds[0] != "rtb-private" {
		t.Errorf("gateway endpoint route tables = %v, want rtb-private", e.RouteTableIds)
	}

	acl, err := client.DescribeNetworkAcls(t.Context(), &ec2.DescribeNetworkAclsInput{Filters: []types.Filter{
		{Name: aws.String("association.subnet-id"), Values: []string{"subnet-a1"}}}})
	if err != nil {
		t.Fatalf("DescribeNetworkAcls: %v", err)
	}
	if len(acl.NetworkAcls) != 1 {
		t.Fatalf("got %d ACLs of subnet-a1, want 1", len(acl.NetworkAcls))
	}
	a := acl.NetworkAcls[0]
	if !aws.ToBool(a.IsDefault) || aws.ToString(a.Associations[0].SubnetId) != "subnet-a1" || len(a.Entries) != 3 {
		t.Errorf("ACL decoded wrong: %+v", a)
	}
	if e := a.Entries[0]; aws.ToInt32(e.PortRange.From) != 443 || aws.ToString(e.Protocol) != "6" || !aws.ToBool(e.Egress) {
		t.Errorf("ACL entry decoded wrong: %+v", e)
	}
	if e := a.Entries[2]; aws.ToInt32(e.RuleNumber) != 32767 || e.RuleAction != types.RuleActionDeny {
		t.Errorf("last entry = %+v, want the 32767 deny rule", e)
	}
}

func TestNetworkActionsPageAndCount(t *testing.T) {
	sim := networkSim()
	sim.SetPageSize(1)
	client := NewClient(sim.Start(t), "us-west-2")
	pages := ec2.NewDescribeRouteTablesPaginator(client, &ec2.DescribeRouteTablesInput{MaxResults: aws.Int32(100)})
	n := 0
	for pages.HasMorePages() {
		out, err := pages.NextPage(t.Context())
		if err != nil {
			t.Fatalf("DescribeRouteTables: %v", err)
		}
		n += len(out.RouteTables)
	}
	if n != 3 {
		t.Errorf("paged %d route tables, want 3", n)
	}
	if _, err := client.DescribeNetworkAcls(t.Context(), &ec2.DescribeNetworkAclsInput{MaxResults: aws.Int32(1000)}); err == nil {
		t.Errorf("DescribeNetworkAcls with MaxResults 1000: got no error, want InvalidParameterValue (EC2 allows 5 to 100)")
	}
	want := map[string]int{DescribeRouteTables: 3, DescribeNetworkAcls: 1}
	if diff := cmp.Diff(want, sim.Counts()); diff != "" {
		t.Errorf("Counts() (-want +got):\n%s", diff)
	}
}

// TestAddSnapshot: a server given a snapshot answers every kind of EC2 object it holds.
func TestAddSnapshot(t *testing.T) {
	snap := &snapshot.Snapshot{
		Instances:       []snapshot.Instance{{ID: "i-0123456789abcdef0", Type: "m5.large", State: "running", Zone: "us-west-2a"}},
		Subnets:         []snapshot.Subnet{{ID: "subnet-a", VpcID: "vpc-a", CIDR: "10.0.0.0/24", Zone: "us-west-2a"}},
		SecurityGroups:  []snapshot.SecurityGroup{{ID: "sg-1", Name: "nodes", VpcID: "vpc-a"}},
		PlacementGroups: []snapshot.PlacementGroup{{ID: "pg-1", Name: "training", Strategy: "cluster"}},
		InstanceTypes:   []snapshot.InstanceType{{Name: "m5.large", MaxENIs: 3, IPv4PerENI: 10}},
		RouteTables:     []snapshot.RouteTable{{ID: "rtb-1", VpcID: "vpc-a", Main: true}},
		NATGateways:     []snapshot.NATGateway{{ID: "nat-1", VpcID: "vpc-a", SubnetID: "subnet-a", State: "available"}},
		VPCEndpoints:    []snapshot.VPCEndpoint{{ID: "vpce-1", VpcID: "vpc-a", ServiceName: "com.amazonaws.us-west-2.s3", Type: "Gateway", State: "available"}},
		NetworkACLs:     []snapshot.NetworkACL{{ID: "acl-1", VpcID: "vpc-a", Default: true}},
	}
	sim := New()
	sim.AddSnapshot(snap)
	c := NewClient(sim.Start(t), "us-west-2")
	ctx := t.Context()
	counts := map[string]int{}
	if out, err := c.DescribeInstances(ctx, &ec2.DescribeInstancesInput{}); err == nil {
		for _, r := range out.Reservations {
			counts["instances"] += len(r.Instances)
		}
	}
	if out, err := c.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{}); err == nil {
		counts["subnets"] = len(out.Subnets)
	}
	if out, err := c.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{}); err == nil {
		counts["groups"] = len(out.SecurityGroups)
	}
	if out, err := c.DescribePlacementGroups(ctx, &ec2.DescribePlacementGroupsInput{}); err == nil {
		counts["placement"] = len(out.PlacementGroups)
	}
	if out, err := c.DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{}); err == nil {
		counts["types"] = len(out.InstanceTypes)
	}
	if out, err := c.DescribeRouteTables(ctx, &ec2.DescribeRouteTablesInput{}); err == nil {
		counts["tables"] = len(out.RouteTables)
	}
	if out, err := c.DescribeNatGateways(ctx, &ec2.DescribeNatGatewaysInput{}); err == nil {
		counts["nat"] = len(out.NatGateways)
	}
	if out, err := c.DescribeVpcEndpoints(ctx, &ec2.DescribeVpcEndpointsInput{}); err == nil {
		counts["endpoints"] = len(out.VpcEndpoints)
	}
	if out, err := c.DescribeNetworkAcls(ctx, &ec2.DescribeNetworkAclsInput{}); err == nil {
		counts["acls"] = len(out.NetworkAcls)
	}
	want := map[string]int{"instances": 1, "subnets": 1, "groups": 1, "placement": 1, "types": 1, "tables": 1, "nat": 1,
		"endpoints": 1, "acls": 1}
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Errorf("objects answered (-want +got):\n%s", diff)
	}
}
