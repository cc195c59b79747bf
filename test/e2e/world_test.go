package e2e

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// world is one scenario's cluster: EC2 state in moto and objects in the API server, both reset
// when it is made.
type world struct {
	t     *testing.T
	ec2   *ec2.Client
	kube  kubernetes.Interface
	dyn   dynamic.Interface
	vpcID string
	// igw is the internet gateway attached to the world's VPC (a VPC takes one).
	igw string
	// nats counts the NAT gateways natWayOut made, which take the public addresses 203.0.113.10
	// and on (moto would pick random ones, which the goldens would show).
	nats int
}

// newWorld resets moto and the API server, installs the Karpenter CRD set and creates a VPC.
func newWorld(t *testing.T, crds harness.CRDSet) *world {
	t.Helper()
	ctx := t.Context()
	if err := env.moto.Reset(ctx); err != nil {
		t.Fatalf("resetting moto: %v", err)
	}
	if err := env.kube.Reset(ctx); err != nil {
		t.Fatalf("resetting the API server: %v", err)
	}
	if err := env.kube.InstallCRDs(ctx, crds); err != nil {
		t.Fatalf("installing the %s CRDs: %v", crds, err)
	}
	w := &world{t: t, ec2: env.moto.EC2(ctx, region)}
	var err error
	if w.kube, err = kubernetes.NewForConfig(env.kube.Admin); err != nil {
		t.Fatalf("building the Kubernetes client: %v", err)
	}
	if w.dyn, err = dynamic.NewForConfig(env.kube.Admin); err != nil {
		t.Fatalf("building the dynamic client: %v", err)
	}
	vpc, err := w.ec2.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")})
	if err != nil {
		t.Fatalf("creating the VPC: %v", err)
	}
	w.vpcID = aws.ToString(vpc.Vpc.VpcId)
	w.dnsHostnames(w.vpcID)
	w.natWayOut(w.vpcID, "10.0.255.240/28")
	return w
}

// dnsHostnames turns enableDnsHostnames on in a VPC, as EKS's templates, eksctl and
// terraform-aws-eks create a cluster VPC (EC2, and moto, create one with it off).
func (w *world) dnsHostnames(vpcID string) {
	w.t.Helper()
	if _, err := w.ec2.ModifyVpcAttribute(w.t.Context(), &ec2.ModifyVpcAttributeInput{VpcId: aws.String(vpcID),
		EnableDnsHostnames: &ec2types.AttributeBooleanValue{Value: aws.Bool(true)}}); err != nil {
		w.t.Fatalf("turning DNS hostnames on in %s: %v", vpcID, err)
	}
}

// natWayOut gives a VPC's main route table a default route through an available public NAT
// gateway, as a real cluster VPC has, so that new nodes in its subnets have a way out. The NAT
// gateway sits in a public subnet of its own, cidr, that no node or class uses: its route
// table sends 0.0.0.0/0 to an internet gateway attached to the VPC.
func (w *world) natWayOut(vpcID, cidr string) string {
	w.t.Helper()
	ctx := w.t.Context()
	sn := &ec2.CreateSubnetOutput{Subnet: &ec2types.Subnet{SubnetId: aws.String(w.createSubnet(vpcID, cidr, "us-west-2a"))}}
	igw, err := w.ec2.CreateInternetGateway(ctx, &ec2.CreateInternetGatewayInput{})
	if err != nil {
		w.t.Fatalf("creating the internet gateway: %v", err)
	}
	igwID := aws.ToString(igw.InternetGateway.InternetGatewayId)
	// The gateway was made just now: a retry that finds it attached (Resource.AlreadyAssociated)
	// finds it attached here, by the first attempt.
	if _, err := w.ec2.AttachInternetGateway(ctx, &ec2.AttachInternetGatewayInput{
		InternetGatewayId: aws.String(igwID), VpcId: aws.String(vpcID)}); err != nil && !madeBefore(err, "Resource.AlreadyAssociated") {
		w.t.Fatalf("attaching the internet gateway to %s: %v", vpcID, err)
	}
	if vpcID == w.vpcID {
		w.igw = igwID
	}
	public, err := w.ec2.CreateRouteTable(ctx, &ec2.CreateRouteTableInput{VpcId: aws.String(vpcID)})
	if err != nil {
		w.t.Fatalf("creating the NAT gateway's route table: %v", err)
	}
	publicID := aws.ToString(public.RouteTable.RouteTableId)
	if _, err := w.ec2.CreateRoute(ctx, &ec2.CreateRouteInput{RouteTableId: aws.String(publicID),
		DestinationCidrBlock: aws.String("0.0.0.0/0"), GatewayId: aws.String(igwID)}); !routed(err) {
		w.t.Fatalf("routing the NAT gateway's route table through %s: %v", igwID, err)
	}
	if _, err := w.ec2.AssociateRouteTable(ctx, &ec2.AssociateRouteTableInput{RouteTableId: aws.String(publicID),
		SubnetId: sn.Subnet.SubnetId}); err != nil {
		w.t.Fatalf("associating the NAT gateway's route table: %v", err)
	}
	eip, err := w.ec2.AllocateAddress(ctx, &ec2.AllocateAddressInput{Domain: ec2types.DomainTypeVpc,
		Address: aws.String(fmt.Sprintf("203.0.113.%d", 10+w.nats))})
	if err != nil {
		w.t.Fatalf("allocating the NAT gateway's address: %v", err)
	}
	w.nats++
	var natID string
	nat, err := w.ec2.CreateNatGateway(ctx, &ec2.CreateNatGatewayInput{SubnetId: sn.Subnet.SubnetId,
		AllocationId: eip.AllocationId})
	switch {
	case err == nil:
		natID = aws.ToString(nat.NatGateway.NatGatewayId)
	case madeBefore(err, "Resource.AlreadyAssociated"):
		// The address was new: the first attempt made the gateway in the subnet, which has no other.
		out, err := w.ec2.DescribeNatGateways(ctx, &ec2.DescribeNatGatewaysInput{Filter: []ec2types.Filter{
			{Name: aws.String("subnet-id"), Values: []string{aws.ToString(sn.Subnet.SubnetId)}}}})
		if err != nil || len(out.NatGateways) != 1 {
			w.t.Fatalf("finding the NAT gateway a retried CreateNatGateway made: %v (%d gateways)", err, len(out.NatGateways))
		}
		natID = aws.ToString(out.NatGateways[0].NatGatewayId)
	default:
		w.t.Fatalf("creating a NAT gateway: %v", err)
	}
	if _, err := w.ec2.CreateRoute(ctx, &ec2.CreateRouteInput{RouteTableId: aws.String(w.mainRouteTable(vpcID)),
		DestinationCidrBlock: aws.String("0.0.0.0/0"), NatGatewayId: aws.String(natID)}); !routed(err) {
		w.t.Fatalf("routing the main route table through %s: %v", natID, err)
	}
	return natID
}

// mainRouteTable returns the ID of a VPC's main route table.
func (w *world) mainRouteTable(vpcID string) string {
	w.t.Helper()
	out, err := w.ec2.DescribeRouteTables(w.t.Context(), &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{
		{Name: aws.String("vpc-id"), Values: []string{vpcID}},
		{Name: aws.String("association.main"), Values: []string{"true"}},
	}})
	if err != nil || len(out.RouteTables) != 1 {
		w.t.Fatalf("finding the main route table of %s: %v (%d tables)", vpcID, err, len(out.RouteTables))
	}
	return aws.ToString(out.RouteTables[0].RouteTableId)
}

// subnet creates a subnet and returns its ID.
func (w *world) subnet(cidr, zone string) string {
	w.t.Helper()
	return w.createSubnet(w.vpcID, cidr, zone)
}

// createSubnet creates a subnet in vpcID and returns its ID.
func (w *world) createSubnet(vpcID, cidr, zone string) string {
	w.t.Helper()
	return w.createSubnetWith(&ec2.CreateSubnetInput{
		VpcId: aws.String(vpcID), CidrBlock: aws.String(cidr), AvailabilityZone: aws.String(zone),
	})
}

// createSubnetWith creates the subnet in and returns its ID. A retry that conflicts with the
// subnet its first attempt made (InvalidSubnet.Conflict) finds that subnet by its CIDR.
func (w *world) createSubnetWith(in *ec2.CreateSubnetInput) string {
	w.t.Helper()
	ctx := w.t.Context()
	vpcID, cidr, zone := aws.ToString(in.VpcId), aws.ToString(in.CidrBlock), aws.ToString(in.AvailabilityZone)
	out, err := w.ec2.CreateSubnet(ctx, in)
	if err == nil {
		return aws.ToString(out.Subnet.SubnetId)
	}
	if madeBefore(err, "InvalidSubnet.Conflict") {
		found, derr := w.ec2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{
			{Name: aws.String("vpc-id"), Values: []string{vpcID}}, {Name: aws.String("cidr-block"), Values: []string{cidr}}}})
		if derr == nil && len(found.Subnets) == 1 && aws.ToString(found.Subnets[0].AvailabilityZone) == zone {
			return aws.ToString(found.Subnets[0].SubnetId)
		}
	}
	w.t.Fatalf("creating subnet %s in %s: %v", cidr, zone, err)
	return ""
}

// securityGroup creates a security group and returns its ID. With self, it allows all traffic
// in from and out to itself, as EFA needs.
func (w *world) securityGroup(name string, self bool) string {
	w.t.Helper()
	ctx := w.t.Context()
	out, err := w.ec2.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{
		GroupName: aws.String(name), Description: aws.String(name), VpcId: aws.String(w.vpcID),
	})
	var id string
	switch {
	case err == nil:
		id = aws.ToString(out.GroupId)
	case madeBefore(err, "InvalidGroup.Duplicate"):
		id = w.securityGroupNamed(name)
	default:
		w.t.Fatalf("creating security group %s: %v", name, err)
	}
	if self {
		perm := []ec2types.IpPermission{{IpProtocol: aws.String("-1"), UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: aws.String(id)}}}}
		if _, err := w.ec2.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(id), IpPermissions: perm}); !authorized(err) {
			w.t.Fatalf("allowing %s in from itself: %v", name, err)
		}
		if _, err := w.ec2.AuthorizeSecurityGroupEgress(ctx, &ec2.AuthorizeSecurityGroupEgressInput{GroupId: aws.String(id), IpPermissions: perm}); !authorized(err) {
			w.t.Fatalf("allowing %s out to itself: %v", name, err)
		}
	}
	return id
}

// instanceSpec describes one instance to launch.
type instanceSpec struct {
	typ    string
	subnet string
	sgs    []string
	ip     string // primary private IP; empty lets EC2 choose
}

// instance launches one instance and returns it as DescribeInstances shows it.
func (w *world) instance(s instanceSpec) ec2types.Instance {
	w.t.Helper()
	in := &ec2.RunInstancesInput{
		ImageId: aws.String("ami-0123456789abcdef0"), InstanceType: ec2types.InstanceType(s.typ),
		MinCount: aws.Int32(1), MaxCount: aws.Int32(1),
		SubnetId: aws.String(s.subnet), SecurityGroupIds: s.sgs,
	}
	if s.ip != "" {
		in.PrivateIpAddress = aws.String(s.ip)
	}
	out, err := w.ec2.RunInstances(w.t.Context(), in)
	if err != nil {
		w.t.Fatalf("launching a %s in %s: %v", s.typ, s.subnet, err)
	}
	return w.describe(aws.ToString(out.Instances[0].InstanceId))
}

// describe returns one instance as DescribeInstances shows it now.
func (w *world) describe(id string) ec2types.Instance {
	w.t.Helper()
	out, err := w.ec2.DescribeInstances(w.t.Context(), &ec2.DescribeInstancesInput{InstanceIds: []string{id}})
	if err != nil || len(out.Reservations) != 1 || len(out.Reservations[0].Instances) != 1 {
		w.t.Fatalf("describing instance %s: %v", id, err)
	}
	return out.Reservations[0].Instances[0]
}

// providerID is the providerID the AWS cloud provider gives the instance's Node.
func providerID(in ec2types.Instance) string {
	return fmt.Sprintf("aws:///%s/%s", aws.ToString(in.Placement.AvailabilityZone), aws.ToString(in.InstanceId))
}

// warmIPs assigns n secondary IPs to the instance's primary interface, as ipamd does at
// start, and returns the instance as DescribeInstances shows it then.
func (w *world) warmIPs(in ec2types.Instance, n int32) ec2types.Instance {
	w.t.Helper()
	eni := in.NetworkInterfaces[0].NetworkInterfaceId
	if _, err := w.ec2.AssignPrivateIpAddresses(w.t.Context(), &ec2.AssignPrivateIpAddressesInput{
		NetworkInterfaceId: eni, SecondaryPrivateIpAddressCount: aws.Int32(n)}); err != nil {
		w.t.Fatalf("assigning %d secondary IPs to %s: %v", n, aws.ToString(eni), err)
	}
	return w.describe(aws.ToString(in.InstanceId))
}

// allow adds an inbound rule of protocol p from ports from to to, from the group src.
func (w *world) allow(sg, p string, from, to int32, src string) {
	w.t.Helper()
	perm := []ec2types.IpPermission{{IpProtocol: aws.String(p), FromPort: aws.Int32(from), ToPort: aws.Int32(to),
		UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: aws.String(src)}}}}
	if _, err := w.ec2.AuthorizeSecurityGroupIngress(w.t.Context(), &ec2.AuthorizeSecurityGroupIngressInput{
		GroupId: aws.String(sg), IpPermissions: perm}); !authorized(err) {
		w.t.Fatalf("allowing %s %d-%d into %s from %s: %v", p, from, to, sg, src, err)
	}
}

// securityGroupNamed returns the ID of the world's VPC's security group called name.
func (w *world) securityGroupNamed(name string) string {
	w.t.Helper()
	out, err := w.ec2.DescribeSecurityGroups(w.t.Context(), &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{
		{Name: aws.String("vpc-id"), Values: []string{w.vpcID}},
		{Name: aws.String("group-name"), Values: []string{name}},
	}})
	if err != nil || len(out.SecurityGroups) != 1 {
		w.t.Fatalf("finding security group %s in %s: %v (%d groups)", name, w.vpcID, err, len(out.SecurityGroups))
	}
	return aws.ToString(out.SecurityGroups[0].GroupId)
}

// madeBefore reports whether err is the duplicate code that the SDK's retry of a request whose
// first attempt moto already carried out (its answer lost to a slow, loaded moment) gets:
// what the request makes is then in place, made by that first attempt.
func madeBefore(err error, code string) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == code
}

// authorized reports whether an Authorize call left the rule in place: it succeeded, or its
// retry found the rule there (InvalidPermission.Duplicate).
func authorized(err error) bool { return err == nil || madeBefore(err, "InvalidPermission.Duplicate") }

// routed reports whether a CreateRoute into a table that had no default route left the route
// in place: it succeeded, or its retry found the route there (RouteAlreadyExists).
func routed(err error) bool { return err == nil || madeBefore(err, "RouteAlreadyExists") }
