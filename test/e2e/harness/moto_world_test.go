package harness

import (
	"cmp"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// motoRegion is where the moto tests build their EC2 state.
const motoRegion = "us-west-2"

// motoWorld is the EC2 state motoBuild makes: a VPC with two subnets, one security group that
// allows all traffic from itself, a cluster and a partition placement group, and four
// instances that use the features moto lacked.
type motoWorld struct {
	vpc, subnetA, subnetB, sg string
	cluster, partition        string // placement group IDs
	prefixed                  string // primary interface with 2 prefixes and 3 secondary addresses
	efa                       string // p5.48xlarge in the cluster group: efa on card 0, efa-only on card 1
	trunked                   string // trunk interface attached after launch
	partitioned               string // partition 2 of the partition group
	trunkENI                  string
}

// motoBuild creates the motoWorld through the real SDK client c.
func motoBuild(t *testing.T, c *ec2.Client) motoWorld {
	t.Helper()
	ctx := t.Context()
	var w motoWorld
	vpc, err := c.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")})
	if err != nil {
		t.Fatalf("CreateVpc: %v", err)
	}
	w.vpc = aws.ToString(vpc.Vpc.VpcId)
	w.subnetA = motoSubnet(t, c, w.vpc, "10.0.0.0/24", "us-west-2a")
	w.subnetB = motoSubnet(t, c, w.vpc, "10.0.1.0/24", "us-west-2b")

	sg, err := c.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{
		GroupName: aws.String("nodes"), Description: aws.String("nodes"), VpcId: aws.String(w.vpc),
	})
	if err != nil {
		t.Fatalf("CreateSecurityGroup: %v", err)
	}
	w.sg = aws.ToString(sg.GroupId)
	self := []types.IpPermission{{IpProtocol: aws.String("-1"),
		UserIdGroupPairs: []types.UserIdGroupPair{{GroupId: aws.String(w.sg)}}}}
	if _, err := c.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{
		GroupId: aws.String(w.sg), IpPermissions: self}); err != nil {
		t.Fatalf("AuthorizeSecurityGroupIngress: %v", err)
	}
	if _, err := c.AuthorizeSecurityGroupEgress(ctx, &ec2.AuthorizeSecurityGroupEgressInput{
		GroupId: aws.String(w.sg), IpPermissions: self}); err != nil {
		t.Fatalf("AuthorizeSecurityGroupEgress: %v", err)
	}

	w.cluster = motoPlacementGroup(t, c, &ec2.CreatePlacementGroupInput{
		GroupName: aws.String("training"), Strategy: types.PlacementStrategyCluster})
	w.partition = motoPlacementGroup(t, c, &ec2.CreatePlacementGroupInput{
		GroupName: aws.String("storage"), Strategy: types.PlacementStrategyPartition, PartitionCount: aws.Int32(3)})

	w.prefixed = motoRun(t, c, types.InstanceTypeM5Large, nil, []types.InstanceNetworkInterfaceSpecification{{
		DeviceIndex: aws.Int32(0), SubnetId: aws.String(w.subnetA), Groups: []string{w.sg},
		Ipv4PrefixCount: aws.Int32(2), SecondaryPrivateIpAddressCount: aws.Int32(3),
	}})
	w.efa = motoRun(t, c, types.InstanceTypeP548xlarge, &types.Placement{GroupName: aws.String("training")},
		[]types.InstanceNetworkInterfaceSpecification{{
			DeviceIndex: aws.Int32(0), NetworkCardIndex: aws.Int32(0), InterfaceType: aws.String("efa"),
			SubnetId: aws.String(w.subnetA), Groups: []string{w.sg},
		}, {
			DeviceIndex: aws.Int32(1), NetworkCardIndex: aws.Int32(1), InterfaceType: aws.String("efa-only"),
			SubnetId: aws.String(w.subnetA), Groups: []string{w.sg},
		}})
	w.trunked = motoRun(t, c, types.InstanceTypeM5Large, nil, []types.InstanceNetworkInterfaceSpecification{{
		DeviceIndex: aws.Int32(0), SubnetId: aws.String(w.subnetB), Groups: []string{w.sg},
	}})
	eni, err := c.CreateNetworkInterface(ctx, &ec2.CreateNetworkInterfaceInput{
		SubnetId: aws.String(w.subnetB), Groups: []string{w.sg},
		InterfaceType: types.NetworkInterfaceCreationTypeTrunk, Description: aws.String("vpc-cni trunk"),
	})
	if err != nil {
		t.Fatalf("CreateNetworkInterface: %v", err)
	}
	w.trunkENI = aws.ToString(eni.NetworkInterface.NetworkInterfaceId)
	if _, err := c.AttachNetworkInterface(ctx, &ec2.AttachNetworkInterfaceInput{
		NetworkInterfaceId: aws.String(w.trunkENI), InstanceId: aws.String(w.trunked), DeviceIndex: aws.Int32(1),
	}); err != nil {
		t.Fatalf("AttachNetworkInterface: %v", err)
	}
	w.partitioned = motoRun(t, c, types.InstanceTypeM5Large,
		&types.Placement{GroupName: aws.String("storage"), PartitionNumber: aws.Int32(2)},
		[]types.InstanceNetworkInterfaceSpecification{{
			DeviceIndex: aws.Int32(0), SubnetId: aws.String(w.subnetB), Groups: []string{w.sg},
		}})
	return w
}

func motoSubnet(t *testing.T, c *ec2.Client, vpc, cidr, zone string) string {
	t.Helper()
	out, err := c.CreateSubnet(t.Context(), &ec2.CreateSubnetInput{
		VpcId: aws.String(vpc), CidrBlock: aws.String(cidr), AvailabilityZone: aws.String(zone)})
	if err != nil {
		t.Fatalf("CreateSubnet %s: %v", cidr, err)
	}
	return aws.ToString(out.Subnet.SubnetId)
}

func motoPlacementGroup(t *testing.T, c *ec2.Client, in *ec2.CreatePlacementGroupInput) string {
	t.Helper()
	out, err := c.CreatePlacementGroup(t.Context(), in)
	if err != nil {
		t.Fatalf("CreatePlacementGroup %s: %v", aws.ToString(in.GroupName), err)
	}
	return aws.ToString(out.PlacementGroup.GroupId)
}

func motoRun(t *testing.T, c *ec2.Client, it types.InstanceType, where *types.Placement,
	nics []types.InstanceNetworkInterfaceSpecification) string {
	t.Helper()
	out, err := c.RunInstances(t.Context(), &ec2.RunInstancesInput{
		ImageId: aws.String("ami-0123456789abcdef0"), InstanceType: it, MinCount: aws.Int32(1), MaxCount: aws.Int32(1),
		Placement: where, NetworkInterfaces: nics,
	})
	if err != nil {
		t.Fatalf("RunInstances %s: %v", it, err)
	}
	return aws.ToString(out.Instances[0].InstanceId)
}

// motoInstance is the part of a DescribeInstances instance that karpnet reads, in a form
// cmp.Diff can compare: counts instead of random addresses.
type motoInstance struct {
	Type, State, Zone, ZoneID, Subnet string
	PlacementGroup                    string
	Partition                         int32
	Groups                            []string
	ENIs                              []motoENI
}

// motoENI is one interface of a motoInstance.
type motoENI struct {
	Type                string
	Card, Device        int32
	Status              string
	Addresses, Prefixes int
	Groups              []string
}

func motoView(in types.Instance) motoInstance {
	out := motoInstance{
		Type: string(in.InstanceType), Subnet: aws.ToString(in.SubnetId),
		Zone: aws.ToString(in.Placement.AvailabilityZone), ZoneID: aws.ToString(in.Placement.AvailabilityZoneId),
		PlacementGroup: aws.ToString(in.Placement.GroupName), Partition: aws.ToInt32(in.Placement.PartitionNumber),
		Groups: motoGroupIDs(in.SecurityGroups),
	}
	if in.State != nil {
		out.State = string(in.State.Name)
	}
	for _, ni := range in.NetworkInterfaces {
		e := motoENI{Type: aws.ToString(ni.InterfaceType), Status: string(ni.Status),
			Addresses: len(ni.PrivateIpAddresses), Prefixes: len(ni.Ipv4Prefixes), Groups: motoGroupIDs(ni.Groups)}
		if a := ni.Attachment; a != nil {
			e.Card, e.Device = aws.ToInt32(a.NetworkCardIndex), aws.ToInt32(a.DeviceIndex)
		}
		out.ENIs = append(out.ENIs, e)
	}
	slices.SortFunc(out.ENIs, func(a, b motoENI) int {
		return cmp.Or(cmp.Compare(a.Card, b.Card), cmp.Compare(a.Device, b.Device))
	})
	return out
}

func motoGroupIDs(groups []types.GroupIdentifier) []string {
	var ids []string
	for _, g := range groups {
		ids = append(ids, aws.ToString(g.GroupId))
	}
	slices.Sort(ids)
	return ids
}
