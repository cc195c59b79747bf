package collect

import (
	"context"
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// EC2 limits that shape the batches.
const (
	// ec2FilterBatch is the most values EC2 accepts in one filter.
	ec2FilterBatch = 200
	// ec2TypeBatch is the most instance types one DescribeInstanceTypes call takes.
	ec2TypeBatch = 100
	// ec2PageSize is MaxResults for filtered Describe calls (EC2 allows up to 1000).
	ec2PageSize = 1000
	// ec2Concurrency bounds how many EC2 requests run at once.
	ec2Concurrency = 4
)

// ec2Call runs Describe calls in one Region. DescribeInstances answers are read into the
// buffers of answers, the collecting Collector's (nil: a new buffer each).
type ec2Call struct {
	api     EC2API
	region  string
	answers *answerBuffers
	// meter counts the instances decoded (nil: none counted).
	meter *Meter
}

// opt sets the call's Region and makes it check its answer (ec2CheckAnswers).
func (c ec2Call) opt(o *ec2.Options) {
	o.Region = c.region
	ec2CheckAnswers(o)
}

func ec2Filter(name string, values []string) []types.Filter {
	return []types.Filter{{Name: aws.String(name), Values: values}}
}

// instances describes instances by ID through the instance-id filter (unknown IDs are simply
// absent), following NextToken for at most ec2MaxPages pages (the other calls of IDs stop
// sooner: ec2IDPages).
// Instances that were not asked for are left out, so an endpoint that answers more than the
// filter selects cannot make karpnet hold them.
func (c ec2Call) instances(ctx context.Context, ids []string) ([]snapshot.Instance, error) {
	asked := ec2Asked(ids)
	var out []snapshot.Instance
	err := ec2Pages("DescribeInstances", func(token *string) (*string, error) {
		page, err := c.api.DescribeInstances(ctx, &ec2.DescribeInstancesInput{
			Filters: ec2Filter("instance-id", ids), MaxResults: aws.Int32(ec2PageSize), NextToken: token,
		}, c.opt, ec2DecodeInstances(c.answers))
		if err != nil {
			return nil, err
		}
		got := ec2PageInstances(ctx, page)
		c.meter.addDecoded(len(got))
		out = ec2KeepAsked(out, got, asked, func(v snapshot.Instance) string { return v.ID })
		return page.NextToken, nil
	})
	return out, err
}

// subnets describes subnets through the subnet-id filter, following NextToken as
// ec2IDPages does: subnets that were not asked for are left out.
func (c ec2Call) subnets(ctx context.Context, ids []string) ([]types.Subnet, error) {
	p := ec2PagesOf(ids)
	var out []types.Subnet
	err := p.read("DescribeSubnets", func(token *string) (*string, error) {
		return c.subnetPage(ctx, ec2Filter("subnet-id", ids), token, func(page []types.Subnet) {
			out = ec2KeepNew(p, out, page, func(v types.Subnet) string { return aws.ToString(v.SubnetId) })
		})
	})
	return out, err
}

// subnetsWhere describes the subnets filters select, following NextToken.
func (c ec2Call) subnetsWhere(ctx context.Context, filters []types.Filter) ([]types.Subnet, error) {
	var out []types.Subnet
	err := ec2Pages("DescribeSubnets", func(token *string) (*string, error) {
		return c.subnetPage(ctx, filters, token, func(page []types.Subnet) { out = append(out, page...) })
	})
	return out, err
}

// subnetPage describes one page of the subnets filters select, hands them to keep and returns
// the NextToken.
func (c ec2Call) subnetPage(ctx context.Context, filters []types.Filter, token *string, keep func([]types.Subnet)) (*string, error) {
	page, err := c.api.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{
		Filters: filters, MaxResults: aws.Int32(ec2PageSize), NextToken: token,
	}, c.opt)
	if err != nil {
		return nil, err
	}
	keep(page.Subnets)
	return page.NextToken, nil
}

// securityGroups describes security groups through the group-id filter, following NextToken
// as ec2IDPages does: groups that were not asked for are left out.
func (c ec2Call) securityGroups(ctx context.Context, ids []string) ([]types.SecurityGroup, error) {
	p := ec2PagesOf(ids)
	var out []types.SecurityGroup
	err := p.read("DescribeSecurityGroups", func(token *string) (*string, error) {
		page, err := c.api.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{
			Filters: ec2Filter("group-id", ids), MaxResults: aws.Int32(ec2PageSize), NextToken: token,
		}, c.opt)
		if err != nil {
			return nil, err
		}
		out = ec2KeepNew(p, out, page.SecurityGroups, func(v types.SecurityGroup) string { return aws.ToString(v.GroupId) })
		return page.NextToken, nil
	})
	return out, err
}

// placementGroupsByName describes placement groups through the group-name filter, which
// leaves unknown names out instead of failing. Groups that were not asked for are left out.
func (c ec2Call) placementGroupsByName(ctx context.Context, names []string) ([]types.PlacementGroup, error) {
	out, err := c.api.DescribePlacementGroups(ctx, &ec2.DescribePlacementGroupsInput{
		Filters: ec2Filter("group-name", names),
	}, c.opt)
	if err != nil {
		return nil, err
	}
	return ec2KeepAsked(nil, out.PlacementGroups, ec2Asked(names), func(v types.PlacementGroup) string {
		return aws.ToString(v.GroupName)
	}), nil
}

// placementGroupsByID describes placement groups by GroupId (DescribePlacementGroups has no
// group-id filter). One unknown ID fails the call, so after such a failure each ID is asked
// alone and the unknown ones are left out, as are groups that were not asked for.
func (c ec2Call) placementGroupsByID(ctx context.Context, ids []string) ([]types.PlacementGroup, error) {
	out, err := c.api.DescribePlacementGroups(ctx, &ec2.DescribePlacementGroupsInput{GroupIds: ids}, c.opt)
	if err == nil {
		return ec2KeepAsked(nil, out.PlacementGroups, ec2Asked(ids), func(v types.PlacementGroup) string {
			return aws.ToString(v.GroupId)
		}), nil
	}
	if !ec2IsUnknownPlacementGroup(err) {
		return nil, err
	}
	if len(ids) == 1 {
		return nil, nil
	}
	var groups []types.PlacementGroup
	for _, id := range ids {
		one, err := c.placementGroupsByID(ctx, []string{id})
		if err != nil {
			return groups, err
		}
		groups = append(groups, one...)
	}
	return groups, nil
}

func ec2IsUnknownPlacementGroup(err error) bool {
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	switch apiErr.ErrorCode() {
	case "InvalidPlacementGroup.Unknown", "InvalidPlacementGroupId.NotFound", "InvalidPlacementGroupId.Malformed",
		"InvalidPlacementGroup.NotFound":
		return true
	}
	return false
}

// instanceTypes describes instance types by name, following NextToken as ec2IDPages does:
// types that were not asked for are left out. Unknown names fail
// the call with InvalidInstanceType listing them; the call is then made once more without them.
func (c ec2Call) instanceTypes(ctx context.Context, names []string) ([]types.InstanceTypeInfo, error) {
	out, err := c.instanceTypesOnce(ctx, names)
	if err == nil {
		return out, nil
	}
	unknown := ec2UnknownInstanceTypes(err)
	if len(unknown) == 0 {
		return nil, err
	}
	var rest []string
	for _, n := range names {
		if !unknown[n] {
			rest = append(rest, n)
		}
	}
	switch len(rest) {
	case 0:
		return nil, nil
	case len(names):
		return nil, err
	}
	return c.instanceTypesOnce(ctx, rest)
}

func (c ec2Call) instanceTypesOnce(ctx context.Context, names []string) ([]types.InstanceTypeInfo, error) {
	typeNames := make([]types.InstanceType, len(names))
	for i, n := range names {
		typeNames[i] = types.InstanceType(n)
	}
	p := ec2PagesOf(names)
	var out []types.InstanceTypeInfo
	err := p.read("DescribeInstanceTypes", func(token *string) (*string, error) {
		page, err := c.api.DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{InstanceTypes: typeNames, NextToken: token}, c.opt)
		if err != nil {
			return nil, err
		}
		out = ec2KeepNew(p, out, page.InstanceTypes, func(v types.InstanceTypeInfo) string { return string(v.InstanceType) })
		return page.NextToken, nil
	})
	return out, err
}

// ec2UnknownInstanceTypes reads the names out of an InvalidInstanceType error such as
// "The following supplied instance types do not exist: [x1.foo, y2.bar]".
func ec2UnknownInstanceTypes(err error) map[string]bool {
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "InvalidInstanceType" {
		return nil
	}
	msg := apiErr.ErrorMessage()
	start, end := strings.LastIndex(msg, "["), strings.LastIndex(msg, "]")
	if start < 0 || end < start {
		return nil
	}
	out := map[string]bool{}
	for _, n := range strings.Split(msg[start+1:end], ",") {
		if n = strings.TrimSpace(n); n != "" {
			out[n] = true
		}
	}
	return out
}
