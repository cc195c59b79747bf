package collect

import (
	"context"
	"regexp"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
)

// BudgetInFlight is how many EC2 requests may be in flight at once for one AWS account and
// Region in a run over several clusters, together: as many as one cluster's largest group of
// concurrent calls (ec2Concurrency). Two clusters in the same account and Region therefore
// never make more requests at once than one cluster would.
const BudgetInFlight = ec2Concurrency

// EC2Budget is the EC2 request capacity the clusters of one run share. EC2 throttles
// Describe calls per account and Region (a bucket Karpenter draws on too), so every request
// a budgeted client (Client) makes waits for a slot of its account and Region's gate:
// BudgetInFlight slots, shared by every cluster that reads EC2 in that account and Region.
//
// The account is known before the first request when the client is given one (the account of
// the profile's role_arn or sso_account_id). Otherwise a client's requests are keyed by its
// identity (the AWS profile, or the default chain) and Region, and go one at a time until a
// DescribeInstances answer names the account (its reservations' OwnerId: DescribeInstances
// returns only the caller's own instances, so that is the caller's account); from then on
// every client of that identity uses the account's gate. Until then a cluster whose account
// is not known yet adds at most one request to its account's BudgetInFlight.
type EC2Budget struct {
	mu sync.Mutex
	// gates are by key: "account:ID/REGION" or "identity:NAME/REGION".
	gates map[string]*ec2Gate
	// pacers are the token buckets the clusters share, by the same keys as the gates.
	pacers map[string]*Pacer
	// accounts are the accounts learnt, by identity.
	accounts map[string]string
}

// NewEC2Budget returns an empty budget.
func NewEC2Budget() *EC2Budget {
	return &EC2Budget{gates: map[string]*ec2Gate{}, pacers: map[string]*Pacer{}, accounts: map[string]string{}}
}

// Pacer returns the pacer the clusters of credentials identity (account, when known before
// any request) share in region: one per account and Region when the account is known, else
// one per identity and Region. Two identities whose account is learnt to be one keep a pacer
// each, which at PacerBurst each stays inside EC2's bucket for the account.
func (b *EC2Budget) Pacer(identity, account, region string) *Pacer {
	key := "identity:" + identity + "/" + region
	if account != "" {
		key = "account:" + account + "/" + region
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.pacers[key]
	if p == nil {
		p = NewDefaultPacer()
		b.pacers[key] = p
	}
	return p
}

// GateUse is what one gate of a budget let through: requests, and the most in flight at once.
type GateUse struct {
	Requests    int
	MaxInFlight int
}

// Use returns each gate's use by key ("account:ID/REGION" or "identity:NAME/REGION").
func (b *EC2Budget) Use() map[string]GateUse {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]GateUse, len(b.gates))
	for k, g := range b.gates {
		g.mu.Lock()
		out[k] = GateUse{Requests: g.requests, MaxInFlight: g.max}
		g.mu.Unlock()
	}
	return out
}

// gate returns the gate of key, made with size slots on first use.
func (b *EC2Budget) gate(key string, size int) *ec2Gate {
	b.mu.Lock()
	defer b.mu.Unlock()
	g := b.gates[key]
	if g == nil {
		g = &ec2Gate{slots: make(chan struct{}, size)}
		b.gates[key] = g
	}
	return g
}

// learn records the account of identity, once.
func (b *EC2Budget) learn(identity, account string) {
	if account == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.accounts[identity] == "" {
		b.accounts[identity] = account
	}
}

func (b *EC2Budget) account(identity string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.accounts[identity]
}

// ec2Gate bounds the requests in flight for one key and counts them.
type ec2Gate struct {
	slots chan struct{}

	mu                 sync.Mutex
	requests, now, max int
}

func (g *ec2Gate) enter(ctx context.Context) error {
	select {
	case g.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	g.mu.Lock()
	g.requests++
	g.now++
	g.max = max(g.max, g.now)
	g.mu.Unlock()
	return nil
}

// move gives back a slot whose call goes to another gate: it is not counted here.
func (g *ec2Gate) move() {
	g.mu.Lock()
	g.requests--
	g.mu.Unlock()
	g.leave()
}

func (g *ec2Gate) leave() {
	g.mu.Lock()
	g.now--
	g.mu.Unlock()
	<-g.slots
}

// accountInARN is the account of an IAM ARN: arn:PARTITION:iam::ACCOUNT:...
var accountInARN = regexp.MustCompile(`^arn:[a-z-]+:(?:iam|sts)::(\d{12}):`)

// AccountOfARN returns the 12-digit account of an IAM or STS ARN (a profile's role_arn), or "".
func AccountOfARN(arn string) string {
	if m := accountInARN.FindStringSubmatch(arn); m != nil {
		return m[1]
	}
	return ""
}

// Client returns api with every request gated by b. identity names the credentials (the AWS
// profile, or "" for the default chain); account is their account when known before any
// request, else ""; region is the client's own Region, used when a call does not set one.
func (b *EC2Budget) Client(api EC2API, identity, account, region string) *BudgetedEC2 {
	return &BudgetedEC2{api: api, budget: b, identity: identity, known: account, region: region}
}

// BudgetedEC2 is an EC2API whose requests wait for their account and Region's gate (EC2Budget).
type BudgetedEC2 struct {
	api      EC2API
	budget   *EC2Budget
	identity string
	known    string
	region   string
}

// Account returns the account of the client's credentials: given, or learnt from an answer; ""
// when neither.
func (c *BudgetedEC2) Account() string {
	if c.known != "" {
		return c.known
	}
	return c.budget.account(c.identity)
}

// Options returns the options of the wrapped client (its Region), when it has them.
func (c *BudgetedEC2) Options() ec2.Options {
	if o, ok := c.api.(interface{ Options() ec2.Options }); ok {
		return o.Options()
	}
	return ec2.Options{Region: c.region}
}

// enter waits for a slot of the gate the call's Region and the client's account choose. A
// call that waited on its identity's gate while another call learnt the account gives that
// slot back and waits on the account's gate instead, so once the account is known every
// call counts against it.
func (c *BudgetedEC2) enter(ctx context.Context, optFns []func(*ec2.Options)) (*ec2Gate, error) {
	o := ec2.Options{Region: c.region}
	for _, f := range optFns {
		f(&o)
	}
	for {
		account := c.Account()
		key, size := "identity:"+c.identity+"/"+o.Region, 1
		if account != "" {
			key, size = "account:"+account+"/"+o.Region, BudgetInFlight
		}
		g := c.budget.gate(key, size)
		if err := g.enter(ctx); err != nil {
			return nil, err
		}
		if account != "" || c.Account() == "" {
			return g, nil
		}
		g.move()
	}
}

// budgeted runs one call through the gate.
func budgeted[I, O any](c *BudgetedEC2, ctx context.Context, in *I, optFns []func(*ec2.Options),
	call func(context.Context, *I, ...func(*ec2.Options)) (*O, error)) (*O, error) {
	g, err := c.enter(ctx, optFns)
	if err != nil {
		return nil, err
	}
	defer g.leave()
	return call(ctx, in, optFns...)
}

// DescribeInstances learns the account from the answer before its slot is given back, so a
// client's next request already uses the account's gate.
func (c *BudgetedEC2) DescribeInstances(ctx context.Context, in *ec2.DescribeInstancesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	g, err := c.enter(ctx, optFns)
	if err != nil {
		return nil, err
	}
	defer g.leave()
	out, err := c.api.DescribeInstances(ctx, in, optFns...)
	if err == nil && c.known == "" {
		for _, r := range out.Reservations {
			if id := aws.ToString(r.OwnerId); id != "" {
				c.budget.learn(c.identity, id)
				break
			}
		}
	}
	return out, err
}

func (c *BudgetedEC2) DescribeSubnets(ctx context.Context, in *ec2.DescribeSubnetsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	return budgeted(c, ctx, in, optFns, c.api.DescribeSubnets)
}

func (c *BudgetedEC2) DescribeSecurityGroups(ctx context.Context, in *ec2.DescribeSecurityGroupsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	return budgeted(c, ctx, in, optFns, c.api.DescribeSecurityGroups)
}

func (c *BudgetedEC2) DescribePlacementGroups(ctx context.Context, in *ec2.DescribePlacementGroupsInput, optFns ...func(*ec2.Options)) (*ec2.DescribePlacementGroupsOutput, error) {
	return budgeted(c, ctx, in, optFns, c.api.DescribePlacementGroups)
}

func (c *BudgetedEC2) DescribeInstanceTypes(ctx context.Context, in *ec2.DescribeInstanceTypesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error) {
	return budgeted(c, ctx, in, optFns, c.api.DescribeInstanceTypes)
}

func (c *BudgetedEC2) DescribeRouteTables(ctx context.Context, in *ec2.DescribeRouteTablesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error) {
	return budgeted(c, ctx, in, optFns, c.api.DescribeRouteTables)
}

func (c *BudgetedEC2) DescribeNatGateways(ctx context.Context, in *ec2.DescribeNatGatewaysInput, optFns ...func(*ec2.Options)) (*ec2.DescribeNatGatewaysOutput, error) {
	return budgeted(c, ctx, in, optFns, c.api.DescribeNatGateways)
}

func (c *BudgetedEC2) DescribeVpcEndpoints(ctx context.Context, in *ec2.DescribeVpcEndpointsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeVpcEndpointsOutput, error) {
	return budgeted(c, ctx, in, optFns, c.api.DescribeVpcEndpoints)
}

func (c *BudgetedEC2) DescribeNetworkAcls(ctx context.Context, in *ec2.DescribeNetworkAclsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeNetworkAclsOutput, error) {
	return budgeted(c, ctx, in, optFns, c.api.DescribeNetworkAcls)
}

func (c *BudgetedEC2) DescribeVpcs(ctx context.Context, in *ec2.DescribeVpcsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error) {
	return budgeted(c, ctx, in, optFns, c.api.DescribeVpcs)
}

func (c *BudgetedEC2) DescribeVpcAttribute(ctx context.Context, in *ec2.DescribeVpcAttributeInput, optFns ...func(*ec2.Options)) (*ec2.DescribeVpcAttributeOutput, error) {
	return budgeted(c, ctx, in, optFns, c.api.DescribeVpcAttribute)
}

func (c *BudgetedEC2) DescribeDhcpOptions(ctx context.Context, in *ec2.DescribeDhcpOptionsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeDhcpOptionsOutput, error) {
	return budgeted(c, ctx, in, optFns, c.api.DescribeDhcpOptions)
}

func (c *BudgetedEC2) DescribeNetworkInterfaces(ctx context.Context, in *ec2.DescribeNetworkInterfacesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeNetworkInterfacesOutput, error) {
	return budgeted(c, ctx, in, optFns, c.api.DescribeNetworkInterfaces)
}

func (c *BudgetedEC2) GetSubnetCidrReservations(ctx context.Context, in *ec2.GetSubnetCidrReservationsInput, optFns ...func(*ec2.Options)) (*ec2.GetSubnetCidrReservationsOutput, error) {
	return budgeted(c, ctx, in, optFns, c.api.GetSubnetCidrReservations)
}
