package collect

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
)

// EC2 throttles non-mutating calls (Describe*) per account and Region with a token bucket of
// 100 requests that refills at 20 a second, shared by everything in the account: Karpenter,
// the VPC CNI, and karpnet. karpnet takes at most half of it, so that Karpenter can still
// launch and the CNI still attach while a large cluster is read.
const (
	// PacerBurst is how many EC2 calls a Pacer lets go at once: half of EC2's 100.
	PacerBurst = 50
	// PacerRefill is how many calls a second a Pacer lets go once its burst is spent: half of
	// EC2's 20.
	PacerRefill = 10.0
)

// Pacer is a client-side token bucket for EC2 Describe calls, the mirror of EC2's own at half
// its size (PacerBurst, PacerRefill): a call that finds the bucket empty waits for its token
// instead of being sent and throttled with RequestLimitExceeded. A Pacer is safe for
// concurrent use. The budget EC2 counts is per account and Region, so collections that read
// the same account and Region (several clusters of one account) should share one Pacer; a
// Collector whose Pacer is nil makes its own for each collection.
type Pacer struct {
	burst, refill float64
	// now and sleep are the clock; tests replace them.
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error

	mu     sync.Mutex
	tokens float64
	last   time.Time
	stats  PacerStats
}

// PacerStats counts what a Pacer did: the calls it let go, how many of them had to wait for a
// token, and how long they waited in all.
type PacerStats struct {
	Calls  int
	Waits  int
	Waited time.Duration
}

// NewPacer returns a Pacer of burst calls that refills at perSecond calls a second. A burst
// below 1 or a rate of 0 or less is taken as the defaults.
func NewPacer(burst int, perSecond float64) *Pacer {
	if burst < 1 {
		burst = PacerBurst
	}
	if perSecond <= 0 {
		perSecond = PacerRefill
	}
	return &Pacer{burst: float64(burst), refill: perSecond, tokens: float64(burst), now: time.Now, sleep: pacerSleep}
}

// NewDefaultPacer returns a Pacer of PacerBurst calls refilling at PacerRefill a second.
func NewDefaultPacer() *Pacer { return NewPacer(PacerBurst, PacerRefill) }

func pacerSleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Wait takes a token, waiting until one is due, and returns how long it waited. Tokens are
// reserved in the order callers come, so waiting calls go out one refill interval apart. A
// cancelled ctx ends the wait with its error and gives the token back.
func (p *Pacer) Wait(ctx context.Context) (time.Duration, error) {
	p.mu.Lock()
	now := p.now()
	if !p.last.IsZero() {
		if elapsed := now.Sub(p.last).Seconds(); elapsed > 0 {
			p.tokens = min(p.burst, p.tokens+elapsed*p.refill)
		}
	}
	if now.After(p.last) {
		p.last = now
	}
	p.tokens--
	var wait time.Duration
	if p.tokens < 0 {
		wait = time.Duration(-p.tokens / p.refill * float64(time.Second))
	}
	p.stats.Calls++
	if wait > 0 {
		p.stats.Waits++
		p.stats.Waited += wait
	}
	p.mu.Unlock()
	if wait <= 0 {
		return 0, nil
	}
	if err := p.sleep(ctx, wait); err != nil {
		p.mu.Lock()
		p.tokens++
		p.stats.Calls--
		p.stats.Waits--
		p.stats.Waited -= wait
		p.mu.Unlock()
		return 0, err
	}
	return wait, nil
}

// Stats returns what the Pacer did so far, over every collection that shares it.
func (p *Pacer) Stats() PacerStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// Progress is what a collection has done so far, for a progress line and for -v.
type Progress struct {
	// Nodes is how many nodes were listed; NodesExpected how many the API server said the
	// list holds (0 when it did not say).
	Nodes, NodesExpected int
	// Instances is how many EC2 instances were read and kept; Decoded how many were decoded
	// from DescribeInstances answers (more than Instances when an answer held instances read
	// before or not asked for).
	Instances int
	Decoded   int
	// EC2Calls counts the EC2 calls made; Paced those that waited for the Pacer, PacedWait
	// how long they waited in all.
	EC2Calls  int
	Paced     int
	PacedWait time.Duration
	// Strategy says how the instances were read, once it is chosen (ec2Plan.String).
	Strategy string
}

// Meter counts what one collection does, safe for concurrent use: the command reads it while
// the collection runs to show progress, and after it for -v.
type Meter struct {
	nodes, expected, instances, decoded, calls, paced, waited atomic.Int64

	mu       sync.Mutex
	strategy string
}

// Progress returns the counts so far. A nil Meter counts nothing.
func (m *Meter) Progress() Progress {
	if m == nil {
		return Progress{}
	}
	m.mu.Lock()
	strategy := m.strategy
	m.mu.Unlock()
	return Progress{Nodes: int(m.nodes.Load()), NodesExpected: int(m.expected.Load()), Instances: int(m.instances.Load()), Decoded: int(m.decoded.Load()),
		EC2Calls: int(m.calls.Load()), Paced: int(m.paced.Load()), PacedWait: time.Duration(m.waited.Load()), Strategy: strategy}
}

func (m *Meter) addNodes(n int, expected int64) {
	if m == nil {
		return
	}
	m.nodes.Add(int64(n))
	if expected > 0 {
		m.expected.Store(expected)
	}
}

func (m *Meter) addInstances(n int) {
	if m != nil {
		m.instances.Add(int64(n))
	}
}

func (m *Meter) addDecoded(n int) {
	if m != nil {
		m.decoded.Add(int64(n))
	}
}

func (m *Meter) call(waited time.Duration) {
	if m == nil {
		return
	}
	m.calls.Add(1)
	if waited > 0 {
		m.paced.Add(1)
		m.waited.Add(int64(waited))
	}
}

func (m *Meter) setStrategy(s string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.strategy = s
}

// ec2Paced makes every call wait for the Pacer's token and counts it in the Meter. It wraps
// the client outside the request timeout, so a call's wait for its turn is not taken from
// --request-timeout.
type ec2Paced struct {
	api   EC2API
	pacer *Pacer
	meter *Meter
}

func ec2PacedCall[In, Out any](ctx context.Context, p ec2Paced, in In, opts []func(*ec2.Options),
	call func(context.Context, In, ...func(*ec2.Options)) (Out, error)) (Out, error) {
	waited, err := p.pacer.Wait(ctx)
	if err != nil {
		var zero Out
		return zero, err
	}
	p.meter.call(waited)
	return call(ctx, in, opts...)
}

func (p ec2Paced) DescribeInstances(ctx context.Context, in *ec2.DescribeInstancesInput, opts ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	return ec2PacedCall(ctx, p, in, opts, p.api.DescribeInstances)
}

func (p ec2Paced) DescribeSubnets(ctx context.Context, in *ec2.DescribeSubnetsInput, opts ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	return ec2PacedCall(ctx, p, in, opts, p.api.DescribeSubnets)
}

func (p ec2Paced) DescribeSecurityGroups(ctx context.Context, in *ec2.DescribeSecurityGroupsInput, opts ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	return ec2PacedCall(ctx, p, in, opts, p.api.DescribeSecurityGroups)
}

func (p ec2Paced) DescribePlacementGroups(ctx context.Context, in *ec2.DescribePlacementGroupsInput, opts ...func(*ec2.Options)) (*ec2.DescribePlacementGroupsOutput, error) {
	return ec2PacedCall(ctx, p, in, opts, p.api.DescribePlacementGroups)
}

func (p ec2Paced) DescribeInstanceTypes(ctx context.Context, in *ec2.DescribeInstanceTypesInput, opts ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error) {
	return ec2PacedCall(ctx, p, in, opts, p.api.DescribeInstanceTypes)
}

func (p ec2Paced) DescribeRouteTables(ctx context.Context, in *ec2.DescribeRouteTablesInput, opts ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error) {
	return ec2PacedCall(ctx, p, in, opts, p.api.DescribeRouteTables)
}

func (p ec2Paced) DescribeNatGateways(ctx context.Context, in *ec2.DescribeNatGatewaysInput, opts ...func(*ec2.Options)) (*ec2.DescribeNatGatewaysOutput, error) {
	return ec2PacedCall(ctx, p, in, opts, p.api.DescribeNatGateways)
}

func (p ec2Paced) DescribeVpcEndpoints(ctx context.Context, in *ec2.DescribeVpcEndpointsInput, opts ...func(*ec2.Options)) (*ec2.DescribeVpcEndpointsOutput, error) {
	return ec2PacedCall(ctx, p, in, opts, p.api.DescribeVpcEndpoints)
}

func (p ec2Paced) DescribeNetworkAcls(ctx context.Context, in *ec2.DescribeNetworkAclsInput, opts ...func(*ec2.Options)) (*ec2.DescribeNetworkAclsOutput, error) {
	return ec2PacedCall(ctx, p, in, opts, p.api.DescribeNetworkAcls)
}

func (p ec2Paced) DescribeVpcs(ctx context.Context, in *ec2.DescribeVpcsInput, opts ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error) {
	return ec2PacedCall(ctx, p, in, opts, p.api.DescribeVpcs)
}

func (p ec2Paced) DescribeVpcAttribute(ctx context.Context, in *ec2.DescribeVpcAttributeInput, opts ...func(*ec2.Options)) (*ec2.DescribeVpcAttributeOutput, error) {
	return ec2PacedCall(ctx, p, in, opts, p.api.DescribeVpcAttribute)
}

func (p ec2Paced) DescribeDhcpOptions(ctx context.Context, in *ec2.DescribeDhcpOptionsInput, opts ...func(*ec2.Options)) (*ec2.DescribeDhcpOptionsOutput, error) {
	return ec2PacedCall(ctx, p, in, opts, p.api.DescribeDhcpOptions)
}

func (p ec2Paced) DescribeNetworkInterfaces(ctx context.Context, in *ec2.DescribeNetworkInterfacesInput, opts ...func(*ec2.Options)) (*ec2.DescribeNetworkInterfacesOutput, error) {
	return ec2PacedCall(ctx, p, in, opts, p.api.DescribeNetworkInterfaces)
}

func (p ec2Paced) GetSubnetCidrReservations(ctx context.Context, in *ec2.GetSubnetCidrReservationsInput, opts ...func(*ec2.Options)) (*ec2.GetSubnetCidrReservationsOutput, error) {
	return ec2PacedCall(ctx, p, in, opts, p.api.GetSubnetCidrReservations)
}
