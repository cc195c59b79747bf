package collect

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"golang.org/x/sync/errgroup"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// EC2API is the read-only part of the EC2 API that karpnet calls: Describe* and Get* only.
type EC2API interface {
	DescribeInstances(context.Context, *ec2.DescribeInstancesInput, ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error)
	DescribeSubnets(context.Context, *ec2.DescribeSubnetsInput, ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error)
	DescribeSecurityGroups(context.Context, *ec2.DescribeSecurityGroupsInput, ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error)
	DescribePlacementGroups(context.Context, *ec2.DescribePlacementGroupsInput, ...func(*ec2.Options)) (*ec2.DescribePlacementGroupsOutput, error)
	DescribeInstanceTypes(context.Context, *ec2.DescribeInstanceTypesInput, ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error)
	DescribeRouteTables(context.Context, *ec2.DescribeRouteTablesInput, ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error)
	DescribeNatGateways(context.Context, *ec2.DescribeNatGatewaysInput, ...func(*ec2.Options)) (*ec2.DescribeNatGatewaysOutput, error)
	DescribeVpcEndpoints(context.Context, *ec2.DescribeVpcEndpointsInput, ...func(*ec2.Options)) (*ec2.DescribeVpcEndpointsOutput, error)
	DescribeNetworkAcls(context.Context, *ec2.DescribeNetworkAclsInput, ...func(*ec2.Options)) (*ec2.DescribeNetworkAclsOutput, error)
	DescribeNetworkInterfaces(context.Context, *ec2.DescribeNetworkInterfacesInput, ...func(*ec2.Options)) (*ec2.DescribeNetworkInterfacesOutput, error)
	DescribeVpcs(context.Context, *ec2.DescribeVpcsInput, ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error)
	DescribeVpcAttribute(context.Context, *ec2.DescribeVpcAttributeInput, ...func(*ec2.Options)) (*ec2.DescribeVpcAttributeOutput, error)
	DescribeDhcpOptions(context.Context, *ec2.DescribeDhcpOptionsInput, ...func(*ec2.Options)) (*ec2.DescribeDhcpOptionsOutput, error)
	GetSubnetCidrReservations(context.Context, *ec2.GetSubnetCidrReservationsInput, ...func(*ec2.Options)) (*ec2.GetSubnetCidrReservationsOutput, error)
}

func (r ec2Refs) empty() bool {
	return len(r.subnets)+len(r.securityGroups)+len(r.placementNames)+len(r.placementIDs)+len(r.instanceTypes) == 0
}

// ec2Result gathers what concurrent calls return.
type ec2Result struct {
	mu              sync.Mutex
	securityGroups  []snapshot.SecurityGroup
	placementGroups []snapshot.PlacementGroup
	instanceTypes   []snapshot.InstanceType
	network         ec2Network
	dns             ec2DNS
	addresses       ec2Addresses
	failures        []ec2Failure
	// regionSubnets are the subnets read, by the Region they were read in.
	regionSubnets map[string][]snapshot.Subnet
	// main is the main Region once it is known: a failure of all EC2 there stops every
	// Region's reads, one elsewhere only its own Region's.
	main string
	// spareReservations are the follow-up pages left to the reservation reads, by Region.
	spareReservations map[string]*ec2SpareReservationPages
}

func (r *ec2Result) fail(source, region string, err error) {
	f := ec2Classify(source, region, err)
	f.region = region
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, f)
}

// stopped reports whether EC2 cannot be read in region: a failure of all EC2 there, in the
// main Region, or in no Region in particular.
func (r *ec2Result) stopped(region string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.ContainsFunc(r.failures, func(f ec2Failure) bool {
		return f.whole && (f.region == "" || f.region == region || f.region == r.main)
	})
}

// addSubnets keeps subnets read in region; r.mu is held.
func (r *ec2Result) addSubnets(region string, out []types.Subnet) {
	if r.regionSubnets == nil {
		r.regionSubnets = map[string][]snapshot.Subnet{}
	}
	for _, v := range out {
		r.regionSubnets[region] = append(r.regionSubnets[region], ec2Subnet(v))
	}
}

// subnetsOf returns the subnets read in region so far.
func (r *ec2Result) subnetsOf(region string) []snapshot.Subnet {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.regionSubnets[region])
}

// failed reports whether a call of source failed.
func (r *ec2Result) failed(source string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.ContainsFunc(r.failures, func(f ec2Failure) bool { return f.gap.Source == source })
}

// describeReferences describes subnets, security groups, placement groups and instance
// types, every batch of each kind at once, bounded by ec2Concurrency.
func (r *ec2Result) describeReferences(ctx context.Context, call ec2Call, refs ec2Refs) {
	r.mu.Lock()
	for _, gap := range refs.capped {
		r.failures = append(r.failures, ec2Failure{gap: gap})
	}
	r.mu.Unlock()
	var g errgroup.Group
	g.SetLimit(ec2Concurrency)
	for _, batch := range ec2Batches(refs.subnets, ec2FilterBatch) {
		g.Go(func() error {
			out, err := call.subnets(ctx, batch)
			r.add(snapshot.SourceDescribeSubnets, call.region, err, func() { r.addSubnets(call.region, out) })
			return nil
		})
	}
	r.describeSubnetTerms(ctx, &g, call, refs.subnetTagTerms)
	for _, batch := range ec2Batches(refs.securityGroups, ec2FilterBatch) {
		g.Go(func() error {
			out, err := call.securityGroups(ctx, batch)
			r.add(snapshot.SourceDescribeSecurityGroups, call.region, err, func() {
				for _, v := range out {
					r.securityGroups = append(r.securityGroups, ec2SecurityGroup(v))
				}
			})
			return nil
		})
	}
	placement := func(batch []string, describe func(context.Context, []string) ([]types.PlacementGroup, error)) {
		g.Go(func() error {
			out, err := describe(ctx, batch)
			r.add(snapshot.SourceDescribePlacementGroups, call.region, err, func() {
				for _, v := range out {
					r.placementGroups = append(r.placementGroups, ec2PlacementGroup(v))
				}
			})
			return nil
		})
	}
	for _, batch := range ec2Batches(refs.placementNames, ec2FilterBatch) {
		placement(batch, call.placementGroupsByName)
	}
	for _, batch := range ec2Batches(refs.placementIDs, ec2FilterBatch) {
		placement(batch, call.placementGroupsByID)
	}
	for _, batch := range ec2Batches(refs.instanceTypes, ec2TypeBatch) {
		g.Go(func() error {
			out, err := call.instanceTypes(ctx, batch)
			r.add(snapshot.SourceDescribeInstanceTypes, call.region, err, func() {
				for _, v := range out {
					r.instanceTypes = append(r.instanceTypes, ec2InstanceType(v))
				}
			})
			return nil
		})
	}
	_ = g.Wait() // tasks report through r.add and never return an error
}

// add records a call's failure, or keeps its results with keep, under the lock.
func (r *ec2Result) add(source, region string, err error, keep func()) {
	if err != nil {
		r.fail(source, region, err)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	keep()
}

// fill puts the results in s, each slice sorted and unique by ID or name, and the gaps.
func (r *ec2Result) fill(s *snapshot.Snapshot, instances []snapshot.Instance) {
	s.Instances = ec2SortUnique(instances, func(v snapshot.Instance) string { return v.ID })
	s.Subnets = ec2SortUnique(slices.Concat(slices.Collect(maps.Values(r.regionSubnets))...), func(v snapshot.Subnet) string { return v.ID })
	s.SecurityGroups = ec2SortUnique(r.securityGroups, func(v snapshot.SecurityGroup) string { return v.ID })
	s.PlacementGroups = ec2SortUnique(r.placementGroups, func(v snapshot.PlacementGroup) string { return cmp.Or(v.ID, v.Name) })
	s.InstanceTypes = ec2SortUnique(r.instanceTypes, func(v snapshot.InstanceType) string { return v.Name })
	r.fillNetwork(s)
	r.fillDNS(s)
	r.fillAddresses(s)
	slices.SortStableFunc(r.failures, func(a, b ec2Failure) int { return strings.Compare(a.gap.Source, b.gap.Source) })
	s.Gaps = append(s.Gaps, ec2Gaps(r.failures, r.main)...)
}

// ec2SortUnique sorts items by key and drops later duplicates and empty keys; nil for none.
func ec2SortUnique[T any](items []T, key func(T) string) []T {
	items = slices.DeleteFunc(items, func(v T) bool { return key(v) == "" })
	slices.SortStableFunc(items, func(a, b T) int { return strings.Compare(key(a), key(b)) })
	items = slices.CompactFunc(items, func(a, b T) bool { return key(a) == key(b) })
	if len(items) == 0 {
		return nil
	}
	return items
}
