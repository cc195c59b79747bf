package collect

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
)

// ec2RequestTimeout bounds every EC2 request (with its retries) by d, as kubectl's
// --request-timeout bounds Kubernetes requests.
type ec2RequestTimeout struct {
	api EC2API
	d   time.Duration
}

// ec2TimeoutError is an EC2 request that got no answer within --request-timeout.
type ec2TimeoutError struct {
	action string
	d      time.Duration
	err    error
}

func (e *ec2TimeoutError) Error() string {
	return fmt.Sprintf("%s got no answer within %s (--request-timeout)", e.action, e.d)
}

func (e *ec2TimeoutError) Unwrap() error { return e.err }

// ec2Bounded runs one call under the timeout, telling our own deadline from the caller's.
func ec2Bounded[In, Out any](ctx context.Context, t ec2RequestTimeout, action string, in In, opts []func(*ec2.Options),
	call func(context.Context, In, ...func(*ec2.Options)) (Out, error)) (Out, error) {
	cctx, cancel := context.WithTimeout(ctx, t.d)
	defer cancel()
	out, err := call(cctx, in, opts...)
	if err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		return out, &ec2TimeoutError{action: action, d: t.d, err: err}
	}
	return out, err
}

func (t ec2RequestTimeout) DescribeInstances(ctx context.Context, in *ec2.DescribeInstancesInput, opts ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	return ec2Bounded(ctx, t, "DescribeInstances", in, opts, t.api.DescribeInstances)
}

func (t ec2RequestTimeout) DescribeSubnets(ctx context.Context, in *ec2.DescribeSubnetsInput, opts ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	return ec2Bounded(ctx, t, "DescribeSubnets", in, opts, t.api.DescribeSubnets)
}

func (t ec2RequestTimeout) DescribeSecurityGroups(ctx context.Context, in *ec2.DescribeSecurityGroupsInput, opts ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	return ec2Bounded(ctx, t, "DescribeSecurityGroups", in, opts, t.api.DescribeSecurityGroups)
}

func (t ec2RequestTimeout) DescribePlacementGroups(ctx context.Context, in *ec2.DescribePlacementGroupsInput, opts ...func(*ec2.Options)) (*ec2.DescribePlacementGroupsOutput, error) {
	return ec2Bounded(ctx, t, "DescribePlacementGroups", in, opts, t.api.DescribePlacementGroups)
}

func (t ec2RequestTimeout) DescribeInstanceTypes(ctx context.Context, in *ec2.DescribeInstanceTypesInput, opts ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error) {
	return ec2Bounded(ctx, t, "DescribeInstanceTypes", in, opts, t.api.DescribeInstanceTypes)
}

func (t ec2RequestTimeout) DescribeRouteTables(ctx context.Context, in *ec2.DescribeRouteTablesInput, opts ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error) {
	return ec2Bounded(ctx, t, "DescribeRouteTables", in, opts, t.api.DescribeRouteTables)
}

func (t ec2RequestTimeout) DescribeNatGateways(ctx context.Context, in *ec2.DescribeNatGatewaysInput, opts ...func(*ec2.Options)) (*ec2.DescribeNatGatewaysOutput, error) {
	return ec2Bounded(ctx, t, "DescribeNatGateways", in, opts, t.api.DescribeNatGateways)
}

func (t ec2RequestTimeout) DescribeVpcEndpoints(ctx context.Context, in *ec2.DescribeVpcEndpointsInput, opts ...func(*ec2.Options)) (*ec2.DescribeVpcEndpointsOutput, error) {
	return ec2Bounded(ctx, t, "DescribeVpcEndpoints", in, opts, t.api.DescribeVpcEndpoints)
}

func (t ec2RequestTimeout) DescribeNetworkAcls(ctx context.Context, in *ec2.DescribeNetworkAclsInput, opts ...func(*ec2.Options)) (*ec2.DescribeNetworkAclsOutput, error) {
	return ec2Bounded(ctx, t, "DescribeNetworkAcls", in, opts, t.api.DescribeNetworkAcls)
}

func (t ec2RequestTimeout) DescribeVpcs(ctx context.Context, in *ec2.DescribeVpcsInput, opts ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error) {
	return ec2Bounded(ctx, t, "DescribeVpcs", in, opts, t.api.DescribeVpcs)
}

func (t ec2RequestTimeout) DescribeVpcAttribute(ctx context.Context, in *ec2.DescribeVpcAttributeInput, opts ...func(*ec2.Options)) (*ec2.DescribeVpcAttributeOutput, error) {
	return ec2Bounded(ctx, t, "DescribeVpcAttribute", in, opts, t.api.DescribeVpcAttribute)
}

func (t ec2RequestTimeout) DescribeDhcpOptions(ctx context.Context, in *ec2.DescribeDhcpOptionsInput, opts ...func(*ec2.Options)) (*ec2.DescribeDhcpOptionsOutput, error) {
	return ec2Bounded(ctx, t, "DescribeDhcpOptions", in, opts, t.api.DescribeDhcpOptions)
}

func (t ec2RequestTimeout) DescribeNetworkInterfaces(ctx context.Context, in *ec2.DescribeNetworkInterfacesInput, opts ...func(*ec2.Options)) (*ec2.DescribeNetworkInterfacesOutput, error) {
	return ec2Bounded(ctx, t, "DescribeNetworkInterfaces", in, opts, t.api.DescribeNetworkInterfaces)
}

func (t ec2RequestTimeout) GetSubnetCidrReservations(ctx context.Context, in *ec2.GetSubnetCidrReservationsInput, opts ...func(*ec2.Options)) (*ec2.GetSubnetCidrReservationsOutput, error) {
	return ec2Bounded(ctx, t, "GetSubnetCidrReservations", in, opts, t.api.GetSubnetCidrReservations)
}
