package collect

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"golang.org/x/sync/errgroup"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2DNSMaxVPCs is how many VPCs' DNS attributes one read asks for: two DescribeVpcAttribute
// calls each (EC2 answers one attribute of one VPC a call). A cluster's nodes are in one VPC or
// a few; the rest of a longer list is a gap.
const ec2DNSMaxVPCs = 20

// ec2DNS gathers the DNS of the VPCs read: the VPCs with their attributes, and their DHCP
// options sets.
type ec2DNS struct {
	vpcs        map[string]*snapshot.VPC
	dhcpOptions []snapshot.DHCPOptions
}

// vpc returns the VPC of id, made on first use; r.mu is held.
func (r *ec2Result) vpc(id string) *snapshot.VPC {
	if r.dns.vpcs == nil {
		r.dns.vpcs = map[string]*snapshot.VPC{}
	}
	v := r.dns.vpcs[id]
	if v == nil {
		v = &snapshot.VPC{ID: id}
		r.dns.vpcs[id] = v
	}
	return v
}

// dnsTasks adds to g the reads of the DNS of vpcs: per ec2FilterBatch VPCs one DescribeVpcs
// (their DHCP options sets), then one DescribeDhcpOptions of the sets they name and, for each
// VPC it returned, two DescribeVpcAttribute calls (enableDnsSupport, enableDnsHostnames), for
// at most ec2DNSMaxVPCs VPCs in all. A failed call is a gap on its own source; an attribute not
// read stays nil.
func (r *ec2Result) dnsTasks(ctx context.Context, g *errgroup.Group, call ec2Call, vpcs []string) {
	for i, batch := range ec2Batches(vpcs, ec2FilterBatch) {
		room := max(0, ec2DNSMaxVPCs-i*ec2FilterBatch)
		g.Go(func() error {
			out, err := call.vpcs(ctx, batch)
			sets := ec2IDSet{}
			var found []string
			r.add(snapshot.SourceDescribeVpcs, call.region, err, func() {
				for _, v := range out {
					id, set := aws.ToString(v.VpcId), aws.ToString(v.DhcpOptionsId)
					vpc := r.vpc(id)
					vpc.DHCPOptionsID, vpc.CIDR = set, aws.ToString(v.CidrBlock)
					found = append(found, id)
					if set != "" && set != snapshot.DefaultDHCPOptions {
						sets.add(set)
					}
				}
			})
			// One call at a time: this task holds one of the ec2Concurrency slots of g.
			var inner errgroup.Group
			inner.SetLimit(1)
			if len(sets) > 0 {
				inner.Go(func() error {
					opts, err := call.dhcpOptions(ctx, sets.sorted())
					r.add(snapshot.SourceDescribeDhcpOptions, call.region, err, func() {
						for _, o := range opts {
							r.dns.dhcpOptions = append(r.dns.dhcpOptions, ec2DHCPOptions(o))
						}
					})
					return nil
				})
			}
			r.attributeTasks(ctx, &inner, call, found, room)
			_ = inner.Wait()
			return nil
		})
	}
}

// attributeTasks adds to g the two DescribeVpcAttribute calls of each of the first room VPCs
// of vpcs; the rest are a gap.
func (r *ec2Result) attributeTasks(ctx context.Context, g *errgroup.Group, call ec2Call, vpcs []string, room int) {
	asked := vpcs[:min(len(vpcs), room)]
	if rest := len(vpcs) - len(asked); rest > 0 {
		r.mu.Lock()
		r.failures = append(r.failures, ec2Failure{gap: snapshot.Gap{Source: snapshot.SourceVPCAttributes,
			Reason: fmt.Sprintf("the DNS attributes of %d VPCs past the first %d were not read (two calls a VPC)", rest, ec2DNSMaxVPCs),
			Remedy: "check fewer nodes at once (a selector or describe node) to read their VPCs' DNS attributes"}})
		r.mu.Unlock()
	}
	for _, id := range asked {
		for _, attr := range []types.VpcAttributeName{types.VpcAttributeNameEnableDnsSupport, types.VpcAttributeNameEnableDnsHostnames} {
			g.Go(func() error {
				on, ok, err := call.vpcAttribute(ctx, id, attr)
				r.add(snapshot.SourceVPCAttributes, call.region, err, func() {
					if !ok {
						return
					}
					v := r.vpc(id)
					if attr == types.VpcAttributeNameEnableDnsSupport {
						v.DNSSupport = &on
					} else {
						v.DNSHostnames = &on
					}
				})
				return nil
			})
		}
	}
}

// fillDNS puts the VPCs and DHCP options sets in s, sorted and unique by ID.
func (r *ec2Result) fillDNS(s *snapshot.Snapshot) {
	var vpcs []snapshot.VPC
	for _, v := range r.dns.vpcs {
		vpcs = append(vpcs, *v)
	}
	s.VPCs = ec2SortUnique(vpcs, func(v snapshot.VPC) string { return v.ID })
	s.DHCPOptions = ec2SortUnique(r.dns.dhcpOptions, func(v snapshot.DHCPOptions) string { return v.ID })
}

// ec2DHCPOptions keeps a DHCP options set's domain-name-servers.
func ec2DHCPOptions(o types.DhcpOptions) snapshot.DHCPOptions {
	out := snapshot.DHCPOptions{ID: aws.ToString(o.DhcpOptionsId)}
	for _, c := range o.DhcpConfigurations {
		if aws.ToString(c.Key) != "domain-name-servers" {
			continue
		}
		for _, v := range c.Values {
			out.DomainNameServers = append(out.DomainNameServers, aws.ToString(v.Value))
		}
	}
	return out
}

// vpcs describes VPCs through the vpc-id filter (an unknown ID is simply absent), following
// NextToken. Those that were not asked for are left out.
func (c ec2Call) vpcs(ctx context.Context, ids []string) ([]types.Vpc, error) {
	asked := ec2Asked(ids)
	var out []types.Vpc
	err := ec2Pages("DescribeVpcs", func(token *string) (*string, error) {
		page, err := c.api.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{
			Filters: ec2Filter("vpc-id", ids), MaxResults: aws.Int32(ec2PageSize), NextToken: token,
		}, c.opt)
		if err != nil {
			return nil, err
		}
		out = ec2KeepAsked(out, page.Vpcs, asked, func(v types.Vpc) string { return aws.ToString(v.VpcId) })
		return page.NextToken, nil
	})
	return out, err
}

// dhcpOptions describes DHCP options sets through the dhcp-options-id filter, following
// NextToken. Those that were not asked for are left out.
func (c ec2Call) dhcpOptions(ctx context.Context, ids []string) ([]types.DhcpOptions, error) {
	asked := ec2Asked(ids)
	var out []types.DhcpOptions
	err := ec2Pages("DescribeDhcpOptions", func(token *string) (*string, error) {
		page, err := c.api.DescribeDhcpOptions(ctx, &ec2.DescribeDhcpOptionsInput{
			Filters: ec2Filter("dhcp-options-id", ids), MaxResults: aws.Int32(ec2PageSize), NextToken: token,
		}, c.opt)
		if err != nil {
			return nil, err
		}
		out = ec2KeepAsked(out, page.DhcpOptions, asked, func(v types.DhcpOptions) string { return aws.ToString(v.DhcpOptionsId) })
		return page.NextToken, nil
	})
	return out, err
}

// vpcAttribute reads one DNS attribute of a VPC; ok is false when the answer does not carry it
// or names another VPC.
func (c ec2Call) vpcAttribute(ctx context.Context, id string, attr types.VpcAttributeName) (on, ok bool, err error) {
	out, err := c.api.DescribeVpcAttribute(ctx, &ec2.DescribeVpcAttributeInput{VpcId: aws.String(id), Attribute: attr}, c.opt)
	if err != nil {
		return false, false, err
	}
	if out.VpcId != nil && aws.ToString(out.VpcId) != id {
		return false, false, nil
	}
	v := out.EnableDnsHostnames
	if attr == types.VpcAttributeNameEnableDnsSupport {
		v = out.EnableDnsSupport
	}
	if v == nil || v.Value == nil {
		return false, false, nil
	}
	return *v.Value, true, nil
}
