package collect

import (
	"context"

	"golang.org/x/sync/errgroup"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// One Region's reads: what its instances refer to, and the way out and the addresses of
// their VPCs.

// describeRegion describes what the instances of region refer to and, in the main Region, looks
// for the cluster's other instances meanwhile (search); it returns all with those it found.
func (e *ec2Read) describeRegion(ctx context.Context, s *snapshot.Snapshot, region string, all []snapshot.Instance, search bool) []snapshot.Instance {
	instances := e.instances[region]
	call := ec2Call{api: e.api, region: region, answers: e.answers}
	// The Kubernetes objects (EC2NodeClasses, ENIConfigs, node labels) belong to the main
	// Region; another Region describes only what its instances use.
	refs := ec2References(&snapshot.Snapshot{}, instances)
	var cluster chan []snapshot.Instance
	if region == e.region {
		refs = ec2References(s, instances)
		if s.ClusterName != "" && search {
			cluster = make(chan []snapshot.Instance, 1)
			read := ec2InstanceIDs(all)
			if e.early != nil && e.earlyName == s.ClusterName {
				// Started at nodesDone; the NodeClaims' instances were read by ID meanwhile.
				go func() { cluster <- ec2Unread(<-e.early, read) }()
			} else {
				go func() { cluster <- e.result.describeCluster(ctx, call, s.ClusterName, read) }()
			}
		}
	}
	first := e.result.subnetCount()
	e.result.describeReferences(ctx, call, refs)
	// The way out and what else holds addresses are read while the search for the cluster's
	// instances pages on; only a VPC that only the instances it finds are in is read after it.
	known, perSubnet := ec2InstanceENIs(all)
	var vpcs []string
	if !e.result.anyWhole() {
		read := e.result.subnetsFrom(first)
		vpcs = ec2VPCsOf(read, instances)
		var prefix []string
		if region == e.region {
			prefix = ec2PrefixSubnets(s, read)
		}
		e.describeVPCs(ctx, call, vpcs, prefix, known, perSubnet)
	}
	if cluster != nil {
		found := <-cluster
		all = append(all, found...)
		if extra := ec2Without(ec2VPCsOf(nil, found), vpcs); len(extra) > 0 && !e.result.anyWhole() {
			e.describeVPCs(ctx, call, extra, nil, known, nil)
		}
	}
	return all
}

// describeVPCs reads, all at once bounded by ec2Concurrency, the way out of vpcs, the
// interfaces left available in them (not in a run scoped to some nodes: like the search for
// the cluster's instances, they are the cluster's, not the nodes'), and every interface and
// CIDR reservation of the prefix subnets.
func (e *ec2Read) describeVPCs(ctx context.Context, call ec2Call, vpcs, prefix []string, known map[string]bool, perSubnet map[string]int) {
	var g errgroup.Group
	g.SetLimit(ec2Concurrency)
	e.result.networkTasks(ctx, &g, call, vpcs)
	if !e.scoped {
		e.result.availableTasks(ctx, &g, call, vpcs, known)
	}
	e.result.subnetAddressTasks(ctx, &g, call, prefix, known, perSubnet)
	_ = g.Wait() // tasks report through r.add and never return an error
}
