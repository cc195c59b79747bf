package collect

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// One Region's reads: what its instances refer to, and the way out and the addresses of
// their VPCs.

// describeRegion describes what the instances of region refer to and, in the main Region, looks
// for the cluster's other instances meanwhile (search), which it returns. all is every Region's
// instances, known and perSubnet their interfaces (ec2InstanceENIs).
func (e *ec2Read) describeRegion(ctx context.Context, s *snapshot.Snapshot, region string, all []snapshot.Instance,
	known map[string]bool, perSubnet map[string]int, search bool,
) []snapshot.Instance {
	instances := e.instances[region]
	call := ec2Call{api: e.api, region: region, answers: e.answers, meter: e.meter}
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
	// The way out and what else holds addresses are read while the search for the cluster's
	// instances pages on; only a VPC that only the instances it finds are in is read after it.
	// The instances name their VPCs: those are read with the references, at once; a VPC only a
	// subnet the references name is in, and the prefix subnets, once the subnets are read.
	vpcs := ec2VPCsOf(nil, instances)
	var both sync.WaitGroup
	both.Go(func() { e.describeVPCs(ctx, call, vpcs, nil, known, perSubnet, true) })
	e.result.describeReferences(ctx, call, refs)
	both.Wait()
	if !e.result.stopped(region) {
		read := e.result.subnetsOf(region)
		more := ec2Without(ec2VPCsOf(read, nil), vpcs)
		var prefix []string
		if region == e.region {
			prefix = ec2PrefixSubnets(s, read)
		}
		if len(more) > 0 || len(prefix) > 0 {
			e.describeVPCs(ctx, call, more, prefix, known, perSubnet, false)
		}
		vpcs = append(vpcs, more...)
	}
	var found []snapshot.Instance
	if cluster != nil {
		found = <-cluster
		if extra := ec2Without(ec2VPCsOf(nil, found), vpcs); len(extra) > 0 && !e.result.stopped(region) {
			e.describeVPCs(ctx, call, extra, nil, known, nil, true)
			vpcs = append(vpcs, extra...)
		}
	}
	// Last, the instances the interfaces left available name and no read found: a terminated
	// one dates when its interfaces were left.
	if !e.scoped && !e.result.stopped(region) {
		read := ec2InstanceIDs(all)
		for _, in := range found {
			read[in.ID] = true
		}
		e.result.describeOwners(ctx, call, vpcs, read)
	}
	return found
}

// describeVPCs reads, all at once bounded by ec2Concurrency, the way out of vpcs, the
// interfaces left available in them (not in a run scoped to some nodes: like the search for
// the cluster's instances, they are the cluster's, not the nodes'), and every interface and
// CIDR reservation of the prefix subnets; with dns, the DNS of the VPCs (instances' VPCs, where
// nodes resolve, not those only a subnet of an ENIConfig or a class is in), also not in a run
// scoped to some nodes.
func (e *ec2Read) describeVPCs(ctx context.Context, call ec2Call, vpcs, prefix []string, known map[string]bool, perSubnet map[string]int, dns bool) {
	var g errgroup.Group
	g.SetLimit(ec2Concurrency)
	e.result.networkTasks(ctx, &g, call, vpcs)
	if !e.scoped {
		e.result.availableTasks(ctx, &g, call, vpcs, known)
	}
	if dns && !e.scoped {
		e.result.dnsTasks(ctx, &g, call, vpcs)
	}
	e.result.subnetAddressTasks(ctx, &g, call, prefix, known, perSubnet)
	_ = g.Wait() // tasks report through r.add and never return an error
}

// ec2MaxRegions is how many Regions one run reads at most, ec2RegionConcurrency how many of them
// it describes at once. A cluster's nodes are in one Region; a few more are a mistake worth
// reporting, dozens are invented providerIDs that would cost about 8 calls each.
const (
	ec2MaxRegions        = 8
	ec2RegionConcurrency = 4
)

// ec2SkippedRegion is a Region whose nodes are not described: n nodes and NodeClaims name it,
// and invented is true when no AWS partition has such a Region (else it is beyond
// ec2MaxRegions).
type ec2SkippedRegion struct {
	n        int
	invented bool
}

// admit reports whether the instances of region are described: not when no AWS partition has
// the Region, nor when it would be one more than ec2MaxRegions; n nodes or NodeClaims name it.
func (e *ec2Read) admit(region string, n int) bool {
	_, started := e.feeds[region]
	invented := !snapshot.PartitionRegion(region)
	if started || !invented && len(e.feeds) < ec2MaxRegions {
		return true
	}
	if e.skipped == nil {
		e.skipped = map[string]*ec2SkippedRegion{}
	}
	k := e.skipped[region]
	if k == nil {
		k = &ec2SkippedRegion{invented: invented}
		e.skipped[region] = k
	}
	k.n += n
	return false
}

// skippedGaps returns a gap for each Region admit left out, by name.
func (e *ec2Read) skippedGaps() []snapshot.Gap {
	var out []snapshot.Gap
	for _, region := range slices.Sorted(maps.Keys(e.skipped)) {
		k := e.skipped[region]
		named := fmt.Sprintf("named by %d providerIDs", k.n)
		if k.n == 1 {
			named = "named by 1 providerID"
		}
		g := snapshot.Gap{Source: snapshot.SourceEC2, Region: region,
			Reason: fmt.Sprintf("%s is not a Region of any AWS partition (%s)", region, named),
			Remedy: "check those nodes' and NodeClaims' spec.providerID (`kubectl get nodes -o " +
				"custom-columns=NAME:.metadata.name,PROVIDER:.spec.providerID`): AWS writes aws:///ZONE/INSTANCE-ID"}
		if !k.invented {
			g.Reason = fmt.Sprintf("not read: the nodes name more than %d Regions (%s)", ec2MaxRegions, named)
			g.Remedy = "pass --region to read the nodes of one Region, or --selector to check fewer nodes"
		}
		out = append(out, g)
	}
	return out
}

// How nodes are grouped by the Region their providerID names.

// ec2NodesByRegion groups nodes with an EC2 instance by the Region of their providerID's zone;
// nodes whose zone names no Region are under "".
func ec2NodesByRegion(nodes []corev1.Node) map[string][]corev1.Node {
	if region, ok := ec2OneRegion(nodes); ok {
		return map[string][]corev1.Node{region: nodes}
	}
	out := map[string][]corev1.Node{}
	for i := range nodes {
		p, ok := snapshot.ParseProviderIDLeniently(nodes[i].Spec.ProviderID)
		if !ok {
			continue
		}
		region := snapshot.RegionOfZone(p.Zone)
		out[region] = append(out[region], nodes[i])
	}
	return out
}

// ec2OneRegion returns the Region of nodes when every one of them names the same: a page of
// nodes is then passed on as it is, where grouping would copy each node (100 MiB at 100,000
// nodes).
func ec2OneRegion(nodes []corev1.Node) (string, bool) {
	zone, region := "", ""
	for i := range nodes {
		p, ok := snapshot.ParseProviderIDLeniently(nodes[i].Spec.ProviderID)
		if !ok {
			return "", false
		}
		if i > 0 && p.Zone == zone {
			continue
		}
		r := snapshot.RegionOfZone(p.Zone)
		if i > 0 && r != region {
			return "", false
		}
		zone, region = p.Zone, r
	}
	return region, len(nodes) > 0
}

// ec2RegionsByCount returns the Regions of byRegion, those with most nodes first (ties by name),
// so that the Regions beyond ec2MaxRegions are the ones with fewest nodes.
func ec2RegionsByCount(byRegion map[string][]corev1.Node) []string {
	regions := slices.Sorted(maps.Keys(byRegion))
	slices.SortStableFunc(regions, func(a, b string) int { return len(byRegion[b]) - len(byRegion[a]) })
	return regions
}
