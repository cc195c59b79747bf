package collect

import (
	"context"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2Network gathers the way out of the VPCs read: route tables, NAT gateways, VPC endpoints
// and network ACLs.
type ec2Network struct {
	routeTables  []snapshot.RouteTable
	natGateways  []snapshot.NATGateway
	vpcEndpoints []snapshot.VPCEndpoint
	networkACLs  []snapshot.NetworkACL
}

// ec2VPCsOf returns the VPCs of subnets and instances, sorted and unique.
func ec2VPCsOf(subnets []snapshot.Subnet, instances []snapshot.Instance) []string {
	vpcs := ec2IDSet{}
	for i := range subnets {
		vpcs.add(subnets[i].VpcID)
	}
	for i := range instances {
		vpcs.add(instances[i].VpcID)
	}
	return vpcs.sorted()
}

// ec2Without returns the IDs of ids that are not in skip, in order.
func ec2Without(ids, skip []string) []string {
	var out []string
	for _, id := range ids {
		if !slices.Contains(skip, id) {
			out = append(out, id)
		}
	}
	return out
}

// networkTasks adds to g the reads of the route tables, NAT gateways, VPC endpoints and
// network ACLs of vpcs: for every ec2FilterBatch VPCs one call of each (4 calls per 200 VPCs).
// A failed call is a gap on its own source.
func (r *ec2Result) networkTasks(ctx context.Context, g *errgroup.Group, call ec2Call, vpcs []string) {
	for _, batch := range ec2Batches(vpcs, ec2FilterBatch) {
		g.Go(func() error {
			out, err := call.routeTables(ctx, batch)
			r.add(snapshot.SourceDescribeRouteTables, call.region, err, func() {
				for _, v := range out {
					r.network.routeTables = append(r.network.routeTables, ec2RouteTable(v))
				}
			})
			return nil
		})
		g.Go(func() error {
			out, err := call.natGateways(ctx, batch)
			r.add(snapshot.SourceDescribeNatGateways, call.region, err, func() {
				for _, v := range out {
					r.network.natGateways = append(r.network.natGateways, ec2NATGateway(v))
				}
			})
			return nil
		})
		g.Go(func() error {
			out, err := call.vpcEndpoints(ctx, batch)
			r.add(snapshot.SourceDescribeVpcEndpoints, call.region, err, func() {
				for _, v := range out {
					r.network.vpcEndpoints = append(r.network.vpcEndpoints, ec2VPCEndpoint(v))
				}
			})
			return nil
		})
		g.Go(func() error {
			out, err := call.networkACLs(ctx, batch)
			r.add(snapshot.SourceDescribeNetworkAcls, call.region, err, func() {
				for _, v := range out {
					r.network.networkACLs = append(r.network.networkACLs, ec2NetworkACL(v))
				}
			})
			return nil
		})
	}
}

// fillNetwork puts the network parts in s, each sorted and unique by ID.
func (r *ec2Result) fillNetwork(s *snapshot.Snapshot) {
	s.RouteTables = ec2SortUnique(r.network.routeTables, func(v snapshot.RouteTable) string { return v.ID })
	s.NATGateways = ec2SortUnique(r.network.natGateways, func(v snapshot.NATGateway) string { return v.ID })
	s.VPCEndpoints = ec2SortUnique(r.network.vpcEndpoints, func(v snapshot.VPCEndpoint) string { return v.ID })
	s.NetworkACLs = ec2SortUnique(r.network.networkACLs, func(v snapshot.NetworkACL) string { return v.ID })
}
