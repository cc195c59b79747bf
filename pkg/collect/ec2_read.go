package collect

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2Read is an EC2 read in progress. It starts before the nodes are listed: each page of
// nodes has its instances described at once (ec2Feed), in the Region of each node's
// providerID (or in --region for all), while the rest of Kubernetes is read. It finishes with
// what the Kubernetes half refers to: the instances' subnets, security groups, placement
// groups and instance types, together with the subnets and groups of EC2NodeClasses and
// ENIConfigs, each in the Region of what refers to it. Requests are batched (ceil(nodes/200)
// DescribeInstances calls plus one call per other kind for usual clusters). Every failure
// becomes a Gap.
//
// The Region is --region when given; else the nodes' providerIDs say where their instances
// are, and the AWS configuration's Region serves only what no node names (a cluster with no
// EC2 node yet). When the configuration names another Region than the nodes, the nodes win
// and a note says so once.
type ec2Read struct {
	ctx context.Context
	gap *snapshot.Gap // set when EC2 cannot be read at all
	// flag is --region, config the AWS configuration's Region.
	flag, config string
	api          EC2API
	result       *ec2Result
	// answers are the Collector's buffers DescribeInstances answers are read into.
	answers *answerBuffers
	// budgeted is api when the run shares an EC2Budget; nil otherwise.
	budgeted *BudgetedEC2

	// feeds describe instances per Region; unplaced holds nodes whose providerID names no
	// Region, described in the main Region once it is known.
	feeds    map[string]*ec2Feed
	unplaced []corev1.Node
	// region is the main Region, known at nodesDone; instances are what every feed read, by
	// Region.
	region    string
	instances map[string][]snapshot.Instance
	// scoped is true when the run reads only some nodes.
	scoped bool
	// clusterFlag is --cluster-name, clusterKubeconfig the name the kubeconfig's credential
	// plugin names.
	clusterFlag, clusterKubeconfig string
	// early is the search for the cluster's instances, started as soon as the nodes are listed
	// when a name is given or the kubeconfig names one (earlyName), so that it pages on while
	// the nodes' instances are read.
	early     chan []snapshot.Instance
	earlyName string
	// unlisted is set when the nodes could not be read: the collection ends, and no search
	// is started for it.
	unlisted bool
	// meter counts the calls and instances; planned is set once the way of reading the
	// instances is chosen (ec2Plan), at the first page of nodes.
	meter   *Meter
	planned bool
	// claimZones, when set, counts the zones of the first NodeClaims listed, which a filtered
	// read's streams are planned from instead of the first page's (ec2ZoneSample), waiting
	// for them at most claimWait (ec2ZoneSampleWait when zero).
	claimZones *ec2ZoneSample
	claimWait  time.Duration
	// classes, when set, is the EC2NodeClasses list being read, whose instance profiles may
	// name the cluster (kubeClassesAhead); it is waited for at most classWait
	// (ec2ClassesWait when zero).
	classes   *kubeClassesAhead
	classWait time.Duration
	// skipped are the Regions whose instances are not described (admit).
	skipped map[string]*ec2SkippedRegion
}

// startEC2 starts an EC2 read; nodes are fed to it with addNodes and nodesDone.
func (c *Collector) startEC2(ctx context.Context) *ec2Read {
	e := &ec2Read{ctx: ctx, result: &ec2Result{}, feeds: map[string]*ec2Feed{}, answers: &c.ec2Answers,
		clusterFlag: c.ClusterName, clusterKubeconfig: c.KubeconfigClusterName, meter: c.Meter}
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
	// Every call waits for its turn in the pacer, outside its --request-timeout.
	pacer := c.Pacer
	switch {
	case pacer == nil && c.EC2Budget != nil:
		pacer = c.EC2Budget.Pacer(c.EC2Identity, c.EC2Account, ec2ClientRegion(c.EC2))
	case pacer == nil:
		pacer = NewDefaultPacer()
	}
	e.api = ec2Paced{api: e.api, pacer: pacer, meter: c.Meter}
	if c.EC2Budget != nil {
		// Outside the timeout: waiting for the gate is not the request's time.
		e.budgeted = c.EC2Budget.Client(e.api, c.EC2Identity, c.EC2Account, ec2ClientRegion(c.EC2))
		e.api = e.budgeted
	}
	e.flag, e.config = c.Region, ec2ClientRegion(c.EC2)
	return e
}

// ec2ClientRegion returns the Region of the AWS configuration the EC2 client was built with
// (AWS_REGION, the profile), or "".
func ec2ClientRegion(api EC2API) string {
	if o, ok := api.(interface{ Options() ec2.Options }); ok {
		return o.Options().Region
	}
	return ""
}

// feed returns the feed of a Region, starting it on first use.
func (e *ec2Read) feed(region string) *ec2Feed {
	f := e.feeds[region]
	if f == nil {
		f = newEC2Feed(e.ctx, ec2Call{api: e.api, region: region, answers: e.answers, meter: e.meter}, e.result, e.meter)
		e.feeds[region] = f
	}
	return f
}

// addNodes describes the instances of a page of nodes, each in its Region; remaining is how
// many more nodes the list holds (negative when the API server did not say). At the first
// page the way of reading the instances is chosen (planRead). addNodes and nodesDone are
// called from one goroutine, the node listing's.
func (e *ec2Read) addNodes(nodes []corev1.Node, remaining int64) {
	if e.gap != nil {
		return
	}
	if !e.planned {
		e.planned = true
		e.planRead(nodes, remaining)
	}
	if e.flag != "" {
		e.feed(e.flag).add(nodes)
		return
	}
	byRegion := ec2NodesByRegion(nodes)
	for _, region := range ec2RegionsByCount(byRegion) {
		group := byRegion[region]
		if region == "" {
			e.unplaced = append(e.unplaced, group...)
			continue
		}
		if e.admit(region, len(group)) {
			e.feed(region).add(group)
		}
	}
}

// nodesDone says that s.Nodes is complete, every page given to addNodes: the main Region is
// chosen, the nodes that named none are described there, and each feed sends its last
// partial batch. The feeds stay open for the instances of NodeClaims without a node
// (addClaims), which go out in batches of their own.
func (e *ec2Read) nodesDone(s *snapshot.Snapshot) {
	if e.gap != nil {
		return
	}
	e.region = e.mainRegion()
	if e.flag == "" && e.config != "" && e.region != "" && e.region != e.config {
		s.Notes = append(s.Notes, fmt.Sprintf("the AWS configuration's Region is %s, but the nodes' providerIDs are in %s: "+
			"EC2 was read there (pass --region to choose)", e.config, strings.Join(e.regions(), ", ")))
	}
	if e.region != "" && len(e.unplaced) > 0 {
		e.feed(e.region).add(e.unplaced)
	}
	for _, f := range e.feeds {
		f.flush()
	}
	if f := e.feeds[e.region]; f != nil && f.filtered() != nil {
		return // the filtered read is the search for the cluster's instances (waitInstances)
	}
	if name := cmp.Or(e.clusterFlag, e.clusterKubeconfig); name != "" && !e.scoped && !e.unlisted && e.region != "" {
		known := map[string]bool{}
		for i := range s.Nodes {
			if p, ok := snapshot.ParseProviderIDLeniently(s.Nodes[i].Spec.ProviderID); ok {
				known[p.InstanceID] = true
			}
		}
		call := ec2Call{api: e.api, region: e.region, answers: e.answers, meter: e.meter}
		e.early, e.earlyName = make(chan []snapshot.Instance, 1), name
		go func() { e.early <- e.result.describeCluster(e.ctx, call, name, known) }()
	}
}

// addClaims describes, with the nodes' instances, the instances of the NodeClaims whose
// providerID no node names (a claim launched but never registered, or whose node is gone).
// In a run scoped to some nodes only the claims that name no node at all are added, not the
// claims of nodes out of scope.
func (e *ec2Read) addClaims(s *snapshot.Snapshot) {
	if e.gap != nil {
		return
	}
	named := make(map[string]bool, len(s.Nodes))
	for i := range s.Nodes {
		named[s.Nodes[i].Spec.ProviderID] = true
	}
	var claims []corev1.Node
	for i := range s.NodeClaims {
		c := &s.NodeClaims[i]
		if _, ok := snapshot.ParseProviderIDLeniently(c.ProviderID); !ok || named[c.ProviderID] || (e.scoped && c.NodeName != "") {
			continue
		}
		claims = append(claims, corev1.Node{Spec: corev1.NodeSpec{ProviderID: c.ProviderID}})
	}
	if len(claims) == 0 {
		return
	}
	if e.region == "" {
		e.region = cmp.Or(ec2RegionOfNodes(claims), e.config)
	}
	if e.flag != "" {
		e.feed(e.flag).add(claims)
		return
	}
	byRegion := ec2NodesByRegion(claims)
	for _, region := range ec2RegionsByCount(byRegion) {
		group := byRegion[region]
		if region = cmp.Or(region, e.region); e.admit(region, len(group)) {
			e.feed(region).add(group)
		}
	}
}

// anyInstance reports whether a node or NodeClaim named an EC2 instance.
func (e *ec2Read) anyInstance() bool {
	for _, f := range e.feeds {
		if f.count() > 0 {
			return true
		}
	}
	return false
}

// waitInstances sends every feed's last batch and waits for all their calls; then
// e.instances holds what each Region's feed read. It is called once.
func (e *ec2Read) waitInstances() {
	got := map[string][]snapshot.Instance{}
	for region, f := range e.feeds {
		got[region] = f.wait()
		if ff := f.filtered(); ff != nil && region == e.region && e.early == nil {
			e.early, e.earlyName = make(chan []snapshot.Instance, 1), ff.plan.cluster
			e.early <- ff.leaked
		}
	}
	e.instances = got
}

// mainRegion is --region, else the Region most node providerIDs name (ties go to the first
// by name), else the AWS configuration's.
func (e *ec2Read) mainRegion() string {
	if e.flag != "" {
		return e.flag
	}
	best, most := "", 0
	for _, region := range slices.Sorted(maps.Keys(e.feeds)) {
		if n := e.feeds[region].count(); n > most {
			best, most = region, n
		}
	}
	if best != "" {
		return best
	}
	return e.config
}

// regions returns every Region read, the main one first.
func (e *ec2Read) regions() []string {
	var out []string
	if e.region != "" {
		out = append(out, e.region)
	}
	for _, r := range slices.Sorted(maps.Keys(e.feeds)) {
		if r != e.region {
			out = append(out, r)
		}
	}
	return out
}

// finish adds the instances of NodeClaims without a node, waits for the instances, decides
// the cluster's name, describes what s refers to and fills in s: in the main Region the
// instances launched for the cluster are looked for meanwhile (not in a scoped run), and
// once the subnets are read the way out of their VPCs.
func (e *ec2Read) finish(ctx context.Context, s *snapshot.Snapshot) {
	if e.gap != nil {
		s.Gaps = append(s.Gaps, *e.gap)
		return
	}
	if e.budgeted != nil {
		defer func() { s.Account = e.budgeted.Account() }()
	}
	e.addClaims(s)
	e.waitInstances()
	defer func() { s.Gaps = append(s.Gaps, e.skippedGaps()...) }()
	if !e.anyInstance() && ec2References(s, nil).empty() {
		return
	}
	if e.region == "" {
		s.Gaps = append(s.Gaps, snapshot.Gap{Source: snapshot.SourceEC2,
			Reason: "no AWS Region: none is configured and no node has an aws:///ZONE/ providerID",
			Remedy: "pass --region or set AWS_REGION"})
		return
	}
	s.Region = e.region
	if regions := e.regions(); len(regions) > 1 {
		s.Regions = regions
	}
	e.result.main = e.region
	var all []snapshot.Instance
	for _, region := range e.regions() {
		all = append(all, e.instances[region]...)
	}
	// A run scoped to some nodes (describe node, --selector) does not look for the cluster's
	// other instances: that search costs a request per 1,000 of them.
	search := !e.scoped
	if !e.result.stopped(e.region) {
		var note string
		s.ClusterName, note = ec2ClusterName(e.clusterFlag, all, e.clusterKubeconfig)
		// When the instances could not be read their gap says so; the note would only repeat it.
		if note != "" && search && ec2UsesKarpenter(s) && !e.result.failed(snapshot.SourceDescribeInstances) {
			s.Notes = append(s.Notes, note)
		}
	}
	// The Regions are described at once, ec2RegionConcurrency at a time, every call paced by the
	// run's one pacer; a Region that cannot be read is left out, and when the main Region cannot
	// be, none is read.
	known, perSubnet := ec2InstanceENIs(all)
	var found []snapshot.Instance
	var g errgroup.Group
	g.SetLimit(ec2RegionConcurrency)
	for _, region := range e.regions() {
		g.Go(func() error {
			if e.result.stopped(region) {
				return nil
			}
			more := e.describeRegion(ctx, s, region, all, known, perSubnet, search)
			if region == e.region {
				found = more
			}
			return nil
		})
	}
	_ = g.Wait() // each Region reports through e.result
	e.result.fill(s, append(all, found...))
}
