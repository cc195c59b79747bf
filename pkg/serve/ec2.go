package serve

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
)

// countingEC2 is an EC2 client whose every call carries the counting option.
type countingEC2 struct {
	api   collect.EC2API
	count func(*ec2.Options)
}

var _ collect.EC2API = (*countingEC2)(nil)

// Options returns the wrapped client's options when it has them (its Region tells the
// collector which Region the AWS configuration names), else none.
func (c *countingEC2) Options() ec2.Options {
	if o, ok := c.api.(interface{ Options() ec2.Options }); ok {
		return o.Options()
	}
	return ec2.Options{}
}

func (c *countingEC2) opts(optFns []func(*ec2.Options)) []func(*ec2.Options) {
	return append(optFns[:len(optFns):len(optFns)], c.count)
}

func (c *countingEC2) DescribeInstances(ctx context.Context, in *ec2.DescribeInstancesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	return c.api.DescribeInstances(ctx, in, c.opts(optFns)...)
}

func (c *countingEC2) DescribeSubnets(ctx context.Context, in *ec2.DescribeSubnetsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	return c.api.DescribeSubnets(ctx, in, c.opts(optFns)...)
}

func (c *countingEC2) DescribeSecurityGroups(ctx context.Context, in *ec2.DescribeSecurityGroupsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	return c.api.DescribeSecurityGroups(ctx, in, c.opts(optFns)...)
}

func (c *countingEC2) DescribePlacementGroups(ctx context.Context, in *ec2.DescribePlacementGroupsInput, optFns ...func(*ec2.Options)) (*ec2.DescribePlacementGroupsOutput, error) {
	return c.api.DescribePlacementGroups(ctx, in, c.opts(optFns)...)
}

func (c *countingEC2) DescribeInstanceTypes(ctx context.Context, in *ec2.DescribeInstanceTypesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error) {
	return c.api.DescribeInstanceTypes(ctx, in, c.opts(optFns)...)
}

func (c *countingEC2) DescribeRouteTables(ctx context.Context, in *ec2.DescribeRouteTablesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error) {
	return c.api.DescribeRouteTables(ctx, in, c.opts(optFns)...)
}

func (c *countingEC2) DescribeNatGateways(ctx context.Context, in *ec2.DescribeNatGatewaysInput, optFns ...func(*ec2.Options)) (*ec2.DescribeNatGatewaysOutput, error) {
	return c.api.DescribeNatGateways(ctx, in, c.opts(optFns)...)
}

func (c *countingEC2) DescribeVpcEndpoints(ctx context.Context, in *ec2.DescribeVpcEndpointsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeVpcEndpointsOutput, error) {
	return c.api.DescribeVpcEndpoints(ctx, in, c.opts(optFns)...)
}

func (c *countingEC2) DescribeNetworkAcls(ctx context.Context, in *ec2.DescribeNetworkAclsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeNetworkAclsOutput, error) {
	return c.api.DescribeNetworkAcls(ctx, in, c.opts(optFns)...)
}

func (c *countingEC2) DescribeVpcs(ctx context.Context, in *ec2.DescribeVpcsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error) {
	return c.api.DescribeVpcs(ctx, in, c.opts(optFns)...)
}

func (c *countingEC2) DescribeVpcAttribute(ctx context.Context, in *ec2.DescribeVpcAttributeInput, optFns ...func(*ec2.Options)) (*ec2.DescribeVpcAttributeOutput, error) {
	return c.api.DescribeVpcAttribute(ctx, in, c.opts(optFns)...)
}

func (c *countingEC2) DescribeDhcpOptions(ctx context.Context, in *ec2.DescribeDhcpOptionsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeDhcpOptionsOutput, error) {
	return c.api.DescribeDhcpOptions(ctx, in, c.opts(optFns)...)
}

func (c *countingEC2) DescribeNetworkInterfaces(ctx context.Context, in *ec2.DescribeNetworkInterfacesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeNetworkInterfacesOutput, error) {
	return c.api.DescribeNetworkInterfaces(ctx, in, c.opts(optFns)...)
}

func (c *countingEC2) GetSubnetCidrReservations(ctx context.Context, in *ec2.GetSubnetCidrReservationsInput, optFns ...func(*ec2.Options)) (*ec2.GetSubnetCidrReservationsOutput, error) {
	return c.api.GetSubnetCidrReservations(ctx, in, c.opts(optFns)...)
}
