package scale

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// EC2Budget is the most EC2 requests `check` may make over n nodes, all launched by Karpenter
// for the cluster, in the benchmark's one VPC: ceil(n/200) DescribeInstances by ID,
// ceil(n/1000) DescribeInstances pages by cluster tag, 5 (one DescribeSubnets each for subnet
// IDs and for subnet discovery's tagged subnets, and one call each for security groups,
// placement groups and instance types) and 5 per 200 VPCs (route tables, NAT gateways, VPC
// endpoints, network ACLs and the interfaces left available): ceil(n/200) + ceil(n/1000) + 5 +
// 5*ceil(vpcs/200). The benchmark's aws-node is in secondary-IP mode and no EC2NodeClass sets
// ipPrefixCount, so no subnet has its every interface read.
func EC2Budget(n int) int {
	return (n+199)/200 + (n+999)/1000 + 5 + 5*((benchVPCs+199)/200) + dnsCalls(benchVPCs)
}

// dnsCalls is what the DNS of v VPCs costs: a DescribeVpcs and a DescribeDhcpOptions per 200,
// and two DescribeVpcAttribute calls for each of the first 20.
func dnsCalls(v int) int { return 2*((v+199)/200) + 2*min(v, 20) }

// benchVPCs is how many VPCs the benchmark's cluster has.
const benchVPCs = 1

// KubeBudget is the most Kubernetes requests `check` may make over n nodes: ceil(n/500)+19
// (18 on a cluster whose watch cache answers the node list whole, aws-node's policy agent
// off and no policy: NetworkPolicies and the VPC CNI's two kinds are then listed, and the
// CoreDNS pods; kube-system's DaemonSets and the pods off the host network are one list each,
// the benchmark's cluster having no pod and no node agent with pods not ready).
func KubeBudget(n int) int { return (n+499)/500 + 19 }

// Describe budgets for one node on any cluster: EC2 as for check's calls of one kind each,
// with the 4 network calls and without the search by cluster tag or the read of the interfaces
// left available (a scoped run skips both);
// Kubernetes with the lists of events about NodeClaims, NodePools and nodes (the node
// monitoring agent's) and the gets of the aws-node and cilium DaemonSets; a scoped run reads
// no policy.
const (
	DescribeEC2Budget  = 10
	DescribeKubeBudget = 11
)

// Options choose what a benchmark run measures.
type Options struct {
	Sizes []int
	// Conditions apply to every measured run.
	Conditions Conditions
	// Runs is how many times check runs per size; the result keeps the median wall time.
	Runs int
	// Baseline runs the per-node baseline once per size.
	Baseline bool
	// ServeCollections is how many collections of `serve` to measure per size; 0 measures none.
	ServeCollections int
}

// Result holds what was measured on a cluster of Nodes nodes.
type Result struct {
	Nodes int
	Seed  time.Duration
	// Etcd and APIServer are the servers' resident memory once the cluster was seeded and
	// check ran, and at their peak so far.
	Etcd, APIServer harness.ProcMemory
	Check           Measure
	// Floor is what the servers alone take to give check its lists and one EC2 answer (Env.Floor).
	Floor    time.Duration
	Describe Measure
	Baseline *Measure
	// Serve is serve's run of ServeCollections collections, nil when none was asked for.
	Serve *ServeMeasure
	// Findings counts check's findings by ID; Gaps counts its gaps.
	Findings map[string]int
	Gaps     int
}

// Speedup returns how many times faster check was than the baseline, or 0 without one.
func (r Result) Speedup() float64 {
	if r.Baseline == nil || r.Check.Wall <= 0 {
		return 0
	}
	return float64(r.Baseline.Wall) / float64(r.Check.Wall)
}

// Measure grows the cluster to each size in turn and measures check, describe node and,
// when asked, the baseline; report is called with each result as it is ready.
func (e *Env) Measure(ctx context.Context, o Options, report func(Result)) ([]Result, error) {
	sizes := slices.Sorted(slices.Values(o.Sizes))
	if len(sizes) > 0 && sizes[len(sizes)-1] > wideNodes && e.Cluster.Nodes() == 0 {
		if err := e.Cluster.Widen(); err != nil {
			return nil, err
		}
	}
	var out []Result
	for _, n := range sizes {
		r, err := e.measureSize(ctx, o, n)
		if err != nil {
			return out, err
		}
		out = append(out, r)
		if report != nil {
			report(r)
		}
	}
	return out, nil
}

func (e *Env) measureSize(ctx context.Context, o Options, n int) (Result, error) {
	r := Result{Nodes: n}
	start := time.Now()
	if err := e.Cluster.Grow(ctx, n); err != nil {
		return r, fmt.Errorf("growing the cluster to %d nodes: %w", n, err)
	}
	r.Seed = time.Since(start)
	e.logf("%d nodes seeded in %s", n, r.Seed.Round(time.Millisecond))
	// The floor is measured after each check, against the API server as that check found it,
	// and its median is the row's: one measure varied by more than half between runs.
	var checks []Measure
	var floors []time.Duration
	for i := range max(o.Runs, 1) {
		m, err := e.Check(ctx, o.Conditions)
		if err != nil {
			return r, err
		}
		f, err := e.Floor(ctx, o.Conditions)
		if err != nil {
			return r, err
		}
		e.logf("check %d of %d over %d nodes: %s, %s user CPU, %s peak RSS, %d instances read, %d decoded; floor %s", i+1,
			max(o.Runs, 1), n, m.Wall.Round(time.Millisecond), m.UserCPU.Round(10*time.Millisecond), mib(m.PeakRSS), m.Instances,
			m.Decoded, f.Round(time.Millisecond))
		checks = append(checks, m)
		floors = append(floors, f)
	}
	slices.Sort(floors)
	r.Floor = floors[len(floors)/2]
	slices.SortFunc(checks, func(a, b Measure) int { return int(a.Wall - b.Wall) })
	r.Check = checks[len(checks)/2]
	r.Check.PeakRSS = slices.MaxFunc(checks, func(a, b Measure) int { return int(a.PeakRSS - b.PeakRSS) }).PeakRSS
	var rep struct {
		Findings []struct{ ID string } `json:"findings"`
		Gaps     []json.RawMessage     `json:"gaps"`
	}
	if err := json.Unmarshal(r.Check.Stdout, &rep); err != nil {
		return r, fmt.Errorf("decoding the check report at %d nodes: %w", n, err)
	}
	r.Findings, r.Gaps = map[string]int{}, len(rep.Gaps)
	for _, f := range rep.Findings {
		r.Findings[f.ID]++
	}
	r.Check.Stdout = nil
	e.logf("check over %d nodes: %s, %d EC2 and %d Kubernetes requests", n, r.Check.Wall.Round(time.Millisecond),
		r.Check.EC2Total(), r.Check.KubeTotal())
	e.logf("floor over %d nodes: %s, the median of %d (the node and NodeClaim lists at once, then one EC2 round trip); "+
		"check took %.2fx", n, r.Floor.Round(time.Millisecond), len(floors), r.Check.Wall.Seconds()/r.Floor.Seconds())
	var err error
	if r.Etcd, r.APIServer, err = e.kube.Memory(); err != nil {
		return r, err
	}
	e.logf("%d nodes: etcd %s (peak %s), kube-apiserver %s (peak %s)", n, mib(r.Etcd.RSS), mib(r.Etcd.Peak),
		mib(r.APIServer.RSS), mib(r.APIServer.Peak))
	if r.Describe, err = e.Describe(ctx, o.Conditions, e.Cluster.NodeName(n/2)); err != nil {
		return r, err
	}
	r.Describe.Stdout = nil
	if o.ServeCollections > 0 {
		sm, err := e.Serve(ctx, o.Conditions, o.ServeCollections)
		if err != nil {
			return r, fmt.Errorf("serve over %d nodes: %w", n, err)
		}
		r.Serve = &sm
		e.logf("serve over %d nodes: %d collections of %s, RSS %s after the first and %s after the last", n,
			sm.Collections(), sm.MeanWall.Round(time.Millisecond), mib(sm.RSS[0]), mib(sm.RSS[len(sm.RSS)-1]))
	}
	if o.Baseline {
		b, err := e.Baseline(ctx, o.Conditions)
		if err != nil {
			return r, err
		}
		b.Stdout = nil
		r.Baseline = &b
		e.logf("per-node baseline over %d nodes: %s", n, b.Wall.Round(time.Millisecond))
	}
	return r, nil
}
