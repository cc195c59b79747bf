package collect

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2Read is an EC2 read in progress. It starts before the nodes are listed: with a Region
// configured, each page of nodes has its instances described at once (ec2Feed), while the rest
// of Kubernetes is read; without one, the instances are described once every node is known and
// their providerIDs give the Region. It finishes with what the Kubernetes half refers to: the
// instances' subnets, security groups, placement groups and instance types, together with the
// subnets and groups of EC2NodeClasses and ENIConfigs. Requests are batched (ceil(nodes/200)
// DescribeInstances calls plus one call per other kind for usual clusters). Every failure
// becomes a Gap.
type ec2Read struct {
	ctx       context.Context
	gap       *snapshot.Gap // set when EC2 cannot be read at all
	region    string
	api       EC2API
	call      ec2Call
	result    *ec2Result
	feed      *ec2Feed
	instances []snapshot.Instance
	done      chan struct{}
}

// startEC2 starts an EC2 read; nodes are fed to it with addNodes and nodesDone.
func (c *Collector) startEC2(ctx context.Context) *ec2Read {
	e := &ec2Read{ctx: ctx, result: &ec2Result{}, done: make(chan struct{})}
	if c.EC2 == nil {
		e.gap = &snapshot.Gap{Source: snapshot.SourceEC2, Reason: "no AWS configuration was loaded",
			Remedy: "configure AWS access (--profile, --region, AWS_PROFILE, `aws sso login`)"}
		if c.EC2Gap != nil {
			e.gap = c.EC2Gap
		}
		return e
	}
	e.api = c.EC2
	if c.RequestTimeout > 0 {
		e.api = ec2RequestTimeout{api: e.api, d: c.RequestTimeout}
	}
	if e.region = c.ec2ConfiguredRegion(); e.region != "" {
		e.call = ec2Call{api: e.api, region: e.region}
		e.feed = newEC2Feed(ctx, e.call, e.result)
	}
	return e
}

// addNodes describes the instances of a page of nodes when the Region is known; without one
// nodesDone does.
func (e *ec2Read) addNodes(nodes []corev1.Node) {
	if e.feed != nil {
		e.feed.add(nodes)
	}
}

// nodesDone says that s.Nodes is complete, every page given to addNodes: without a configured
// Region the nodes' providerIDs give it and their instances are described now, and the last
// partial batch is sent.
func (e *ec2Read) nodesDone(s *snapshot.Snapshot) {
	if e.gap != nil {
		close(e.done)
		return
	}
	if e.region == "" {
		if e.region = ec2RegionOfNodes(s.Nodes); e.region != "" {
			e.call = ec2Call{api: e.api, region: e.region}
			e.feed = newEC2Feed(e.ctx, e.call, e.result)
			e.feed.add(s.Nodes)
		}
	}
	if e.feed == nil {
		close(e.done)
		return
	}
	go func() {
		defer close(e.done)
		e.instances = e.feed.wait()
	}()
}

// finish waits for the instances, describes what s refers to and fills in s.
func (e *ec2Read) finish(ctx context.Context, s *snapshot.Snapshot) {
	<-e.done
	if e.gap != nil {
		s.Gaps = append(s.Gaps, *e.gap)
		return
	}
	if !slices.ContainsFunc(s.Nodes, ec2HasInstance) && ec2References(s, nil).empty() {
		return
	}
	if e.region == "" {
		s.Gaps = append(s.Gaps, snapshot.Gap{Source: snapshot.SourceEC2,
			Reason: "no AWS Region: none is configured and no node has an aws:///ZONE/ providerID",
			Remedy: "pass --region or set AWS_REGION"})
		return
	}
	s.Region = e.region
	if !e.result.anyWhole() {
		e.result.describeReferences(ctx, e.call, ec2References(s, e.instances))
	}
	e.result.fill(s, e.instances)
}
