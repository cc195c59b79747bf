package collect

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// ec2SmallPageSize is MaxResults for DescribeRouteTables and DescribeNetworkAcls, which
// allow 5 to 100.
const ec2SmallPageSize = 100

// routeTables describes the route tables of VPCs through the vpc-id filter, following
// NextToken. Those of VPCs that were not asked for are left out.
func (c ec2Call) routeTables(ctx context.Context, vpcs []string) ([]types.RouteTable, error) {
	asked := ec2Asked(vpcs)
	var out []types.RouteTable
	err := ec2Pages("DescribeRouteTables", func(token *string) (*string, error) {
		page, err := c.api.DescribeRouteTables(ctx, &ec2.DescribeRouteTablesInput{
			Filters: ec2Filter("vpc-id", vpcs), MaxResults: aws.Int32(ec2SmallPageSize), NextToken: token,
		}, c.opt)
		if err != nil {
			return nil, err
		}
		out = ec2KeepAsked(out, page.RouteTables, asked, func(v types.RouteTable) string { return aws.ToString(v.VpcId) })
		return page.NextToken, nil
	})
	return out, err
}

// natGateways describes the NAT gateways of VPCs through the vpc-id filter, following
// NextToken. Those of VPCs that were not asked for are left out.
func (c ec2Call) natGateways(ctx context.Context, vpcs []string) ([]types.NatGateway, error) {
	asked := ec2Asked(vpcs)
	var out []types.NatGateway
	err := ec2Pages("DescribeNatGateways", func(token *string) (*string, error) {
		page, err := c.api.DescribeNatGateways(ctx, &ec2.DescribeNatGatewaysInput{
			Filter: ec2Filter("vpc-id", vpcs), MaxResults: aws.Int32(ec2PageSize), NextToken: token,
		}, c.opt)
		if err != nil {
			return nil, err
		}
		out = ec2KeepAsked(out, page.NatGateways, asked, func(v types.NatGateway) string { return aws.ToString(v.VpcId) })
		return page.NextToken, nil
	})
	return out, err
}

// vpcEndpoints describes the VPC endpoints of VPCs through the vpc-id filter, following
// NextToken. Those of VPCs that were not asked for are left out.
func (c ec2Call) vpcEndpoints(ctx context.Context, vpcs []string) ([]types.VpcEndpoint, error) {
	asked := ec2Asked(vpcs)
	var out []types.VpcEndpoint
	err := ec2Pages("DescribeVpcEndpoints", func(token *string) (*string, error) {
		page, err := c.api.DescribeVpcEndpoints(ctx, &ec2.DescribeVpcEndpointsInput{
			Filters: ec2Filter("vpc-id", vpcs), MaxResults: aws.Int32(ec2PageSize), NextToken: token,
		}, c.opt)
		if err != nil {
			return nil, err
		}
		out = ec2KeepAsked(out, page.VpcEndpoints, asked, func(v types.VpcEndpoint) string { return aws.ToString(v.VpcId) })
		return page.NextToken, nil
	})
	return out, err
}

// networkACLs describes the network ACLs of VPCs through the vpc-id filter, following
// NextToken. Those of VPCs that were not asked for are left out.
func (c ec2Call) networkACLs(ctx context.Context, vpcs []string) ([]types.NetworkAcl, error) {
	asked := ec2Asked(vpcs)
	var out []types.NetworkAcl
	err := ec2Pages("DescribeNetworkAcls", func(token *string) (*string, error) {
		page, err := c.api.DescribeNetworkAcls(ctx, &ec2.DescribeNetworkAclsInput{
			Filters: ec2Filter("vpc-id", vpcs), MaxResults: aws.Int32(ec2SmallPageSize), NextToken: token,
		}, c.opt)
		if err != nil {
			return nil, err
		}
		out = ec2KeepAsked(out, page.NetworkAcls, asked, func(v types.NetworkAcl) string { return aws.ToString(v.VpcId) })
		return page.NextToken, nil
	})
	return out, err
}
