package ec2sim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestInterfaceActionsDecode(t *testing.T) {
	sim := New()
	sim.AddSubnets(snapshot.Subnet{ID: "subnet-a", VpcID: "vpc-a", CIDR: "10.0.0.0/24"})
	sim.AddInstances(snapshot.Instance{ID: "i-1", VpcID: "vpc-a", Zone: "us-west-2a", ENIs: []snapshot.ENI{
		{ID: "eni-node", SubnetID: "subnet-a", PrimaryIP: "10.0.0.5", PrivateIPs: []string{"10.0.0.5", "10.0.0.6"},
			IPv4Prefixes: []string{"10.0.0.16/28"}}}})
	sim.AddInterfaces(snapshot.InterfaceRecord{ID: "eni-lambda", VpcID: "vpc-a", SubnetID: "subnet-a", Zone: "us-west-2a",
		Status: "in-use", InterfaceType: "lambda", Description: "AWS Lambda VPC ENI-x", RequesterManaged: true,
		PrivateIPs: []string{"10.0.0.7"}, SecurityGroups: []snapshot.GroupRef{{ID: "sg-1", Name: "fn"}}},
		snapshot.InterfaceRecord{ID: "eni-left", VpcID: "vpc-a", SubnetID: "subnet-b", Status: "available",
			Description: "aws-K8S-i-0gone", Tags: map[string]string{snapshot.TagCNIInstanceID: "i-0gone"},
			IPv6Addresses: []string{"2600::1"}, IPv6Prefixes: []string{"2600:0:0:1::/80"}})
	sim.AddCIDRReservations(snapshot.CIDRReservation{ID: "scr-1", SubnetID: "subnet-a", CIDR: "10.0.0.64/28", Type: "prefix"},
		snapshot.CIDRReservation{ID: "scr-2", SubnetID: "subnet-a", CIDR: "2600::/80", Type: "explicit", Description: "v6"},
		snapshot.CIDRReservation{ID: "scr-3", SubnetID: "subnet-b", CIDR: "10.0.1.0/28", Type: "prefix"})
	client := NewClient(sim.Start(t), "us-west-2")

	bySubnet, err := client.DescribeNetworkInterfaces(t.Context(), &ec2.DescribeNetworkInterfacesInput{
		Filters: []types.Filter{{Name: aws.String("subnet-id"), Values: []string{"subnet-a"}}}, MaxResults: aws.Int32(1000)})
	if err != nil {
		t.Fatalf("DescribeNetworkInterfaces: %v", err)
	}
	var ids []string
	for _, n := range bySubnet.NetworkInterfaces {
		ids = append(ids, aws.ToString(n.NetworkInterfaceId))
	}
	if diff := cmp.Diff([]string{"eni-lambda", "eni-node"}, ids); diff != "" {
		t.Fatalf("interfaces of subnet-a (-want +got):\n%s", diff)
	}
	lambda, node := bySubnet.NetworkInterfaces[0], bySubnet.NetworkInterfaces[1]
	if lambda.InterfaceType != "lambda" || !aws.ToBool(lambda.RequesterManaged) || aws.ToString(lambda.Groups[0].GroupName) != "fn" ||
		aws.ToString(lambda.Description) != "AWS Lambda VPC ENI-x" || lambda.Attachment != nil {
		t.Errorf("eni-lambda decoded as %+v", lambda)
	}
	if node.Status != types.NetworkInterfaceStatusInUse || aws.ToString(node.Attachment.InstanceId) != "i-1" ||
		len(node.PrivateIpAddresses) != 2 || !aws.ToBool(node.PrivateIpAddresses[0].Primary) ||
		aws.ToString(node.Ipv4Prefixes[0].Ipv4Prefix) != "10.0.0.16/28" || aws.ToString(node.VpcId) != "vpc-a" {
		t.Errorf("eni-node decoded as %+v", node)
	}

	available, err := client.DescribeNetworkInterfaces(t.Context(), &ec2.DescribeNetworkInterfacesInput{Filters: []types.Filter{
		{Name: aws.String("vpc-id"), Values: []string{"vpc-a"}}, {Name: aws.String("status"), Values: []string{"available"}}}})
	if err != nil {
		t.Fatalf("DescribeNetworkInterfaces available: %v", err)
	}
	if len(available.NetworkInterfaces) != 1 || aws.ToString(available.NetworkInterfaces[0].TagSet[0].Value) != "i-0gone" ||
		aws.ToString(available.NetworkInterfaces[0].Ipv6Prefixes[0].Ipv6Prefix) != "2600:0:0:1::/80" {
		t.Errorf("available interfaces: got %+v, want eni-left with its tag and IPv6 prefix", available.NetworkInterfaces)
	}

	res, err := client.GetSubnetCidrReservations(t.Context(), &ec2.GetSubnetCidrReservationsInput{SubnetId: aws.String("subnet-a")})
	if err != nil {
		t.Fatalf("GetSubnetCidrReservations: %v", err)
	}
	if len(res.SubnetIpv4CidrReservations) != 1 || aws.ToString(res.SubnetIpv4CidrReservations[0].Cidr) != "10.0.0.64/28" ||
		res.SubnetIpv4CidrReservations[0].ReservationType != types.SubnetCidrReservationTypePrefix ||
		len(res.SubnetIpv6CidrReservations) != 1 || aws.ToString(res.SubnetIpv6CidrReservations[0].Description) != "v6" {
		t.Errorf("reservations of subnet-a: got %+v and %+v", res.SubnetIpv4CidrReservations, res.SubnetIpv6CidrReservations)
	}
	if _, err := client.GetSubnetCidrReservations(t.Context(), &ec2.GetSubnetCidrReservationsInput{SubnetId: aws.String("subnet-x")}); err == nil {
		t.Error("GetSubnetCidrReservations of an unknown subnet: got no error, want InvalidSubnetID.NotFound")
	}
}
