package collect

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// EC2API is the read-only part of the EC2 API that karpnet calls: Describe* only.
type EC2API interface {
	DescribeInstances(context.Context, *ec2.DescribeInstancesInput, ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error)
	DescribeSubnets(context.Context, *ec2.DescribeSubnetsInput, ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error)
	DescribeSecurityGroups(context.Context, *ec2.DescribeSecurityGroupsInput, ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error)
	DescribePlacementGroups(context.Context, *ec2.DescribePlacementGroupsInput, ...func(*ec2.Options)) (*ec2.DescribePlacementGroupsOutput, error)
	DescribeInstanceTypes(context.Context, *ec2.DescribeInstanceTypesInput, ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error)
}

// collectEC2 is written by the EC2 collector work.
func (c *Collector) collectEC2(ctx context.Context, s *snapshot.Snapshot) {}
