package collect

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2EFANode is a p5-like EFA node: an ENA primary, an EFA on card 0, an efa-only interface on
// card 1, a trunk ENI, prefixes, a partition placement group.
func ec2EFANode() (snapshot.Instance, snapshot.InstanceType, snapshot.SecurityGroup, snapshot.PlacementGroup) {
	efaSG := []snapshot.GroupRef{{ID: "sg-efa", Name: "efa"}}
	in := snapshot.Instance{
		ID: ec2InstanceID(7), Type: "p5.48xlarge", State: "running", Zone: "us-west-2-lax-1a", ZoneID: "usw2-lax1-az1",
		VpcID: "vpc-1", SubnetID: "subnet-a", PrivateIP: "10.0.0.10", SecurityGroups: efaSG,
		Placement:  snapshot.Placement{GroupName: "train", GroupID: "pg-0a1", PartitionNumber: 3, Tenancy: "default"},
		LaunchTime: time.Date(2025, 6, 7, 8, 9, 10, 0, time.UTC),
		Tags:       map[string]string{"karpenter.sh/nodepool": "gpu"},
		ENIs: []snapshot.ENI{
			{ID: "eni-0", InterfaceType: "interface", SubnetID: "subnet-a", PrimaryIP: "10.0.0.10",
				PrivateIPs: []string{"10.0.0.10", "10.0.0.11", "10.0.0.12"}, IPv4Prefixes: []string{"10.0.1.0/28", "10.0.2.0/28"},
				IPv6Prefixes: []string{"2600:1f14::/80"}, SecurityGroups: efaSG, Status: "in-use"},
			{ID: "eni-1", InterfaceType: "efa", DeviceIndex: 1, SubnetID: "subnet-a", PrimaryIP: "10.0.0.20",
				PrivateIPs: []string{"10.0.0.20"}, SecurityGroups: efaSG, Status: "in-use"},
			{ID: "eni-3", InterfaceType: "trunk", DeviceIndex: 2, SubnetID: "subnet-a", PrimaryIP: "10.0.0.30",
				PrivateIPs: []string{"10.0.0.30"}, SecurityGroups: efaSG, Status: "in-use", Description: "trunk"},
			{ID: "eni-2", InterfaceType: "efa-only", NetworkCardIndex: 1, SubnetID: "subnet-a",
				SecurityGroups: efaSG, Status: "in-use"},
		},
	}
	typ := snapshot.InstanceType{
		Name: "p5.48xlarge", Hypervisor: "nitro", VCPUs: 192, MaxENIs: 64, DefaultNetworkCardIndex: 0,
		NetworkCards: []snapshot.NetworkCard{{Index: 0, MaxENIs: 2}, {Index: 1, MaxENIs: 2}},
		IPv4PerENI:   50, IPv6PerENI: 50, EFASupported: true, MaxEFAInterfaces: 32, NetworkPerformance: "3200 Gigabit",
	}
	sg := snapshot.SecurityGroup{ID: "sg-efa", Name: "efa", VpcID: "vpc-1",
		Inbound: []snapshot.Rule{
			{Protocol: "-1", GroupIDs: []string{"sg-efa"}},
			{Protocol: "tcp", FromPort: 443, ToPort: 443, CIDRs: []string{"10.0.0.0/16"}, IPv6CIDRs: []string{"::/0"},
				PrefixListIDs: []string{"pl-123"}},
		},
		Outbound: []snapshot.Rule{{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}, GroupIDs: []string{"sg-efa"}}},
		Tags:     map[string]string{"Name": "efa"},
	}
	pg := snapshot.PlacementGroup{ID: "pg-0a1", Name: "train", Strategy: "partition", PartitionCount: 7, State: "available"}
	return in, typ, sg, pg
}

func TestCollectEC2Converts(t *testing.T) {
	in, typ, sg, pg := ec2EFANode()
	subnet := snapshot.Subnet{ID: "subnet-a", VpcID: "vpc-1", CIDR: "10.0.0.0/16", Zone: "us-west-2-lax-1a",
		ZoneID: "usw2-lax1-az1", AvailableIPs: 4000, Tags: map[string]string{"kubernetes.io/role/internal-elb": "1"}}
	sim := ec2sim.New()
	sim.AddInstances(in)
	sim.AddInstanceTypes(typ)
	sim.AddSecurityGroups(sg)
	sim.AddPlacementGroups(pg)
	sim.AddSubnets(subnet)
	s := snapshot.New(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	s.Nodes = append(s.Nodes, ec2Node("gpu-1", in.Zone, in.ID, in.Type))

	(&Collector{EC2: ec2sim.NewClient(sim.Start(t), "")}).collectEC2(t.Context(), s)

	want := snapshot.New(s.Taken)
	want.Nodes, want.Region = s.Nodes, "us-west-2"
	want.Instances = []snapshot.Instance{in}
	want.InstanceTypes = []snapshot.InstanceType{typ}
	want.SecurityGroups = []snapshot.SecurityGroup{sg}
	want.PlacementGroups = []snapshot.PlacementGroup{pg}
	want.Subnets = []snapshot.Subnet{subnet}
	want.AvailableVPCs = []string{"vpc-1"}
	on := true
	want.VPCs = []snapshot.VPC{{ID: "vpc-1", DHCPOptionsID: snapshot.DefaultDHCPOptions, DNSSupport: &on, DNSHostnames: &on}}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
}

// ec2OddAPI answers with nil and missing fields everywhere.
type ec2OddAPI struct{}

func (ec2OddAPI) DescribeInstances(context.Context, *ec2.DescribeInstancesInput, ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	return &ec2.DescribeInstancesOutput{Reservations: []types.Reservation{{}, {Instances: []types.Instance{
		{},
		{InstanceId: aws.String(ec2InstanceID(1)), Placement: &types.Placement{},
			NetworkInterfaces: []types.InstanceNetworkInterface{{}, {PrivateIpAddresses: []types.InstancePrivateIpAddress{{}, {PrivateIpAddress: aws.String("10.0.0.9")}}}},
			SecurityGroups:    []types.GroupIdentifier{{}}, Tags: []types.Tag{{}}},
	}}}}, nil
}

func (ec2OddAPI) DescribeSubnets(context.Context, *ec2.DescribeSubnetsInput, ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	return &ec2.DescribeSubnetsOutput{Subnets: []types.Subnet{{}, {SubnetId: aws.String("subnet-a"), VpcId: aws.String("vpc-a")}}}, nil
}

func (ec2OddAPI) DescribeSecurityGroups(context.Context, *ec2.DescribeSecurityGroupsInput, ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	return &ec2.DescribeSecurityGroupsOutput{SecurityGroups: []types.SecurityGroup{{GroupId: aws.String("sg-a"),
		IpPermissions: []types.IpPermission{{IpRanges: []types.IpRange{{}}, UserIdGroupPairs: []types.UserIdGroupPair{{}}}}}}}, nil
}

func (ec2OddAPI) DescribePlacementGroups(context.Context, *ec2.DescribePlacementGroupsInput, ...func(*ec2.Options)) (*ec2.DescribePlacementGroupsOutput, error) {
	return &ec2.DescribePlacementGroupsOutput{PlacementGroups: []types.PlacementGroup{{}}}, nil
}

func (ec2OddAPI) DescribeInstanceTypes(context.Context, *ec2.DescribeInstanceTypesInput, ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error) {
	return &ec2.DescribeInstanceTypesOutput{InstanceTypes: []types.InstanceTypeInfo{{InstanceType: "m5.large",
		NetworkInfo: &types.NetworkInfo{NetworkCards: []types.NetworkCardInfo{{}}}}}}, nil
}

func (ec2OddAPI) DescribeRouteTables(context.Context, *ec2.DescribeRouteTablesInput, ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error) {
	return &ec2.DescribeRouteTablesOutput{RouteTables: []types.RouteTable{{}, {RouteTableId: aws.String("rtb-a"), VpcId: aws.String("vpc-a"),
		Associations: []types.RouteTableAssociation{{}, {AssociationState: &types.RouteTableAssociationState{}}},
		Routes:       []types.Route{{}}}}}, nil
}

func (ec2OddAPI) DescribeNatGateways(context.Context, *ec2.DescribeNatGatewaysInput, ...func(*ec2.Options)) (*ec2.DescribeNatGatewaysOutput, error) {
	return &ec2.DescribeNatGatewaysOutput{NatGateways: []types.NatGateway{{}, {NatGatewayId: aws.String("nat-a"), VpcId: aws.String("vpc-a")}}}, nil
}

func (ec2OddAPI) DescribeVpcEndpoints(context.Context, *ec2.DescribeVpcEndpointsInput, ...func(*ec2.Options)) (*ec2.DescribeVpcEndpointsOutput, error) {
	return &ec2.DescribeVpcEndpointsOutput{VpcEndpoints: []types.VpcEndpoint{{}, {VpcEndpointId: aws.String("vpce-a"), VpcId: aws.String("vpc-a"),
		Groups: []types.SecurityGroupIdentifier{{}}, SubnetIds: []string{""}}}}, nil
}

func (ec2OddAPI) DescribeNetworkAcls(context.Context, *ec2.DescribeNetworkAclsInput, ...func(*ec2.Options)) (*ec2.DescribeNetworkAclsOutput, error) {
	return &ec2.DescribeNetworkAclsOutput{NetworkAcls: []types.NetworkAcl{{}, {NetworkAclId: aws.String("acl-a"), VpcId: aws.String("vpc-a"),
		Associations: []types.NetworkAclAssociation{{}}, Entries: []types.NetworkAclEntry{{}, {PortRange: &types.PortRange{}}}}}}, nil
}

func (ec2OddAPI) DescribeVpcs(context.Context, *ec2.DescribeVpcsInput, ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error) {
	return &ec2.DescribeVpcsOutput{}, nil
}

func (ec2OddAPI) DescribeVpcAttribute(context.Context, *ec2.DescribeVpcAttributeInput, ...func(*ec2.Options)) (*ec2.DescribeVpcAttributeOutput, error) {
	return &ec2.DescribeVpcAttributeOutput{}, nil
}

func (ec2OddAPI) DescribeDhcpOptions(context.Context, *ec2.DescribeDhcpOptionsInput, ...func(*ec2.Options)) (*ec2.DescribeDhcpOptionsOutput, error) {
	return &ec2.DescribeDhcpOptionsOutput{}, nil
}

func (ec2OddAPI) DescribeNetworkInterfaces(context.Context, *ec2.DescribeNetworkInterfacesInput, ...func(*ec2.Options)) (*ec2.DescribeNetworkInterfacesOutput, error) {
	return &ec2.DescribeNetworkInterfacesOutput{NetworkInterfaces: []types.NetworkInterface{{}, {NetworkInterfaceId: aws.String("eni-odd"),
		VpcId: aws.String("vpc-a"), Status: types.NetworkInterfaceStatusAvailable, Attachment: &types.NetworkInterfaceAttachment{},
		PrivateIpAddresses: []types.NetworkInterfacePrivateIpAddress{{}}, Ipv4Prefixes: []types.Ipv4PrefixSpecification{{}},
		Ipv6Addresses: []types.NetworkInterfaceIpv6Address{{}}, Ipv6Prefixes: []types.Ipv6PrefixSpecification{{}},
		Groups: []types.GroupIdentifier{{}}, TagSet: []types.Tag{{}}}}}, nil
}

func (ec2OddAPI) GetSubnetCidrReservations(context.Context, *ec2.GetSubnetCidrReservationsInput, ...func(*ec2.Options)) (*ec2.GetSubnetCidrReservationsOutput, error) {
	return &ec2.GetSubnetCidrReservationsOutput{SubnetIpv4CidrReservations: []types.SubnetCidrReservation{{}}}, nil
}

func TestCollectEC2OddAnswers(t *testing.T) {
	s := snapshot.New(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	s.Nodes = append(s.Nodes, ec2Node("n", "us-west-2a", ec2InstanceID(1), "m5.large"))
	s.NodeClasses = []snapshot.EC2NodeClass{{Name: "default", StatusSubnets: []snapshot.SubnetStatus{{ID: "subnet-a"}},
		StatusSecurityGroups:   []snapshot.SecurityGroupStatus{{ID: "sg-a"}},
		PlacementGroupSelector: &snapshot.PlacementGroupSelector{Name: "train"}}}

	(&Collector{EC2: ec2OddAPI{}}).collectEC2(t.Context(), s)

	want := []snapshot.Instance{{ID: ec2InstanceID(1), ENIs: []snapshot.ENI{
		{InterfaceType: "interface"}, {InterfaceType: "interface", PrivateIPs: []string{"10.0.0.9"}}}}}
	if diff := cmp.Diff(want, s.Instances); diff != "" {
		t.Errorf("instances (-want +got):\n%s", diff)
	}
	if len(s.Subnets) != 1 || len(s.SecurityGroups) != 1 || len(s.PlacementGroups) != 0 || len(s.InstanceTypes) != 1 {
		t.Errorf("got %d subnets, %d groups, %d placement groups, %d types; want 1, 1, 0, 1",
			len(s.Subnets), len(s.SecurityGroups), len(s.PlacementGroups), len(s.InstanceTypes))
	}
	if len(s.RouteTables) != 1 || len(s.NATGateways) != 1 || len(s.VPCEndpoints) != 1 || len(s.NetworkACLs) != 1 {
		t.Errorf("got %d route tables, %d NAT gateways, %d endpoints, %d ACLs; want 1 each",
			len(s.RouteTables), len(s.NATGateways), len(s.VPCEndpoints), len(s.NetworkACLs))
	}
	wantInterfaces := []snapshot.InterfaceRecord{{ID: "eni-odd", VpcID: "vpc-a", Status: "available"}}
	if diff := cmp.Diff(wantInterfaces, s.Interfaces); diff != "" {
		t.Errorf("interfaces (-want +got):\n%s", diff)
	}
	if len(s.Gaps) != 0 {
		t.Errorf("got gaps %+v, want none", s.Gaps)
	}
}
