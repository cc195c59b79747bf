package collect

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"golang.org/x/sync/errgroup"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2PodSubnetRefs returns what the podSubnetSelectorTerms of the EKS Auto Mode NodeClasses
// select: the subnet IDs of id terms, which join the by-ID batch, and the tag terms, each
// once, sorted by their filters. A term with an id selects by id only (id excludes tags).
func ec2PodSubnetRefs(classes []snapshot.EC2NodeClass) (ids []string, tagTerms []map[string]string) {
	seen := map[string]bool{}
	for i := range classes {
		c := &classes[i]
		if !c.AutoMode() {
			continue
		}
		for _, t := range c.PodSubnetSelectorTerms {
			switch {
			case t.ID != "":
				ids = append(ids, t.ID)
			case len(t.Tags) > 0:
				if key := ec2TagTermKey(t.Tags); !seen[key] {
					seen[key] = true
					tagTerms = append(tagTerms, t.Tags)
				}
			}
		}
	}
	slices.SortFunc(tagTerms, func(a, b map[string]string) int { return strings.Compare(ec2TagTermKey(a), ec2TagTermKey(b)) })
	return ids, tagTerms
}

// ec2TagTermKey renders tags as one comparable string, keys sorted.
func ec2TagTermKey(tags map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(tags[k])
		b.WriteByte(0)
	}
	return b.String()
}

// ec2TagFilters returns the DescribeSubnets filters of one selector term, which EC2 ANDs as
// the term's tags are: tag:KEY=VALUE, or tag-key=KEY for the '*' (any value) wildcard.
func ec2TagFilters(tags map[string]string) []types.Filter {
	out := make([]types.Filter, 0, len(tags))
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if v := tags[k]; v == "*" {
			out = append(out, types.Filter{Name: aws.String("tag-key"), Values: []string{k}})
		} else {
			out = append(out, types.Filter{Name: aws.String("tag:" + k), Values: []string{v}})
		}
	}
	return out
}

// subnetsByTags describes the subnets one tag selector term selects, following NextToken.
func (c ec2Call) subnetsByTags(ctx context.Context, tags map[string]string) ([]types.Subnet, error) {
	return c.subnetsWhere(ctx, ec2TagFilters(tags))
}

// describeSubnetTerms adds to g one DescribeSubnets call per tag selector term (terms are
// ORed, so each is its own call); with no tag terms it adds nothing. The subnets join the
// ones read by ID, and fill sorts them and drops duplicates.
func (r *ec2Result) describeSubnetTerms(ctx context.Context, g *errgroup.Group, call ec2Call, terms []map[string]string) {
	for _, tags := range terms {
		g.Go(func() error {
			out, err := call.subnetsByTags(ctx, tags)
			r.add(snapshot.SourceDescribeSubnets, call.region, err, func() { r.addSubnets(call.region, out) })
			return nil
		})
	}
}
