package collect

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// How the nodes' instances are read. By ID, each DescribeInstances names 200 instance IDs:
// ceil(N/200) calls, plus ceil(N/1000) pages of the search for the instances launched for the
// cluster that no NodeClaim names. Filtered, DescribeInstances selects the cluster's own
// instances by its tag, 1,000 a page, in page streams split by Availability Zone that run at
// once: about ceil(N/1000) calls in all, and the same pages are the search for the cluster's
// other instances. Only the instances the nodes and NodeClaims name are kept (and those the
// search would keep); every named instance the filter did not return is then read by ID, so
// what is read never depends on the filter. The filtered read is chosen when it saves at least
// ec2FilteredMargin calls: those cover up to 4,000 instances that the filter cannot see
// (nodes not launched for the cluster, stopped or terminated instances) and that are read by
// ID after it.
const (
	ec2FilteredMargin = 20
	// ec2MaxStreams is the most page streams a filtered read runs at once.
	ec2MaxStreams = ec2Concurrency
	// ec2StreamExtraPages is how many pages more than the fewest a filtered read spends to
	// run more streams at once: at 100,000 nodes over three even zones one stream is 100
	// pages one after the other, two streams 101 pages, about half as long.
	ec2StreamExtraPages = 1
	// ec2SmallReadPages is the most pages a filtered read may have for each of its streams to
	// end on a page of its own (up to ec2MaxStreams-1 pages more than the fewest): such a read
	// and the calls after it stay within the pacer's burst, so a page more costs no wait, and
	// the pages one after the other are the read's length. At 10,000 nodes over three even
	// zones two streams are 11 pages, 7 of them one after the other; three streams 12 pages,
	// 4 after the other. A larger read spends the pacer's tokens: each page more is a wait.
	ec2SmallReadPages = PacerBurst / 2
	// ec2MaxZonesSplit is the most zones whose ways of grouping into streams are all weighed;
	// a Region with more nodes' zones is read in one stream.
	ec2MaxZonesSplit = 8
)

// ec2ClassesWait is how long the first batch of a read that does not know the cluster's name
// waits for the EC2NodeClasses list, which may name it (kubeClassesAhead), before it is read
// by ID to learn the name: the list is a few objects, asked for with the nodes, and in
// before their first page but for an API server that is slow to answer anything.
const ec2ClassesWait = 500 * time.Millisecond

// ec2StatesRead are the instance states the filtered read asks for. A node's instance that is
// terminated (Karpenter's churn leaves an hour of terminated instances behind) is read by ID
// afterwards, as every named instance the filter does not return.
var ec2StatesRead = []string{"pending", "running", "shutting-down", "stopping", "stopped"}

// ec2Plan is how one Region's instances are read.
type ec2Plan struct {
	// filtered chooses the filtered read; cluster is the name in its tag filter.
	filtered bool
	cluster  string
	// instances is how many instances the nodes are expected to name.
	instances int
	// idCalls and filteredCalls are what each way is expected to cost.
	idCalls, filteredCalls int
	// streams are the zones each page stream filters by; one stream reads every zone
	// (no zone filter).
	streams [][]string
	// why says why the filtered read was not weighed, when it was not.
	why string
}

// String says what was chosen and what each way would cost, for -v.
func (p ec2Plan) String() string {
	if p.filtered {
		zones := "every zone"
		if len(p.streams) > 1 {
			parts := make([]string, len(p.streams))
			for i, s := range p.streams {
				parts[i] = strings.Join(s, "+")
			}
			zones = strings.Join(parts, ", ")
		}
		return fmt.Sprintf("instances read by cluster tag %s%s=owned, 1,000 a page, in %d stream(s) (%s): about %d calls "+
			"for %d instances, against %d by instance ID", ec2TagClusterPrefix, p.cluster, len(p.streams), zones,
			p.filteredCalls, p.instances, p.idCalls)
	}
	s := fmt.Sprintf("instances read by instance ID, 200 a call: about %d calls for %d instances", p.idCalls, p.instances)
	switch {
	case p.why != "":
		s += " (" + p.why + ")"
	case p.filteredCalls > 0:
		s += fmt.Sprintf(", against %d by cluster tag", p.filteredCalls)
	}
	return s
}

// ec2ChoosePlan weighs the two ways of reading a whole cluster's instances in one Region.
// zones counts the instances seen so far by zone, of total expected; search says whether the
// search for the cluster's other instances would run after an ID read (ceil(total/1000)
// pages). The filtered read's streams group the zones so that the pages add up to the
// fewest, and among those the most streams.
func ec2ChoosePlan(zones map[string]int, total int, cluster string, search bool) ec2Plan {
	p := ec2Plan{cluster: cluster, instances: total, idCalls: ec2Ceil(total, ec2FilterBatch)}
	if search {
		p.idCalls += max(1, ec2Ceil(total, ec2PageSize))
	}
	seen := 0
	for _, n := range zones {
		seen += n
	}
	if seen == 0 || total == 0 {
		return p
	}
	// The zones seen so far, scaled up to the expected total.
	scaled := make(map[string]int, len(zones))
	for z, n := range zones {
		scaled[z] = ec2Ceil(n*total, seen)
	}
	p.streams, p.filteredCalls = ec2ZoneStreams(scaled)
	// With the search, the filtered read's pages are the search's: the instances the filter
	// cannot see cost the same calls by ID either way, so it never costs more, and every
	// instance is read once.
	p.filtered = cluster != "" && (search && p.filteredCalls <= p.idCalls || p.filteredCalls+ec2FilteredMargin <= p.idCalls)
	return p
}

// ec2ZoneStreams groups zones into page streams: every way of grouping is weighed (up to
// ec2MaxZonesSplit zones and ec2MaxStreams streams). The streams run at once, so a read takes
// as long as its longest stream; each stream ends on a page of its own, so more streams may
// cost a page or so more than the fewest. Among the groupings of at most ec2StreamExtraPages
// pages more than the fewest (a page per stream more in a read of at most ec2SmallReadPages),
// the shortest longest stream wins, then the fewest pages, then the most streams, then the
// first in order. One stream has no zone filter.
func ec2ZoneStreams(counts map[string]int) ([][]string, int) {
	zones := slices.Sorted(maps.Keys(counts))
	all := 0
	for _, n := range counts {
		all += n
	}
	// One stream is the fewest pages: a zone's pages are at least its share of the whole.
	fewest := max(1, ec2Ceil(all, ec2PageSize))
	extra := ec2StreamExtraPages
	if fewest <= ec2SmallReadPages {
		extra = ec2MaxStreams - 1
	}
	best, bestPages, bestLongest := [][]string{zones}, fewest, fewest
	if len(zones) > ec2MaxZonesSplit {
		return best, bestPages
	}
	var groups [][]string
	var walk func(i int)
	walk = func(i int) {
		if i == len(zones) {
			pages, longest := 0, 0
			for _, g := range groups {
				n := 0
				for _, z := range g {
					n += counts[z]
				}
				p := max(1, ec2Ceil(n, ec2PageSize))
				pages += p
				longest = max(longest, p)
			}
			better := cmp.Or(cmp.Compare(longest, bestLongest), cmp.Compare(pages, bestPages), cmp.Compare(len(best), len(groups))) < 0
			if pages <= fewest+extra && better {
				best, bestPages, bestLongest = make([][]string, len(groups)), pages, longest
				for k, g := range groups {
					best[k] = slices.Clone(g)
				}
			}
			return
		}
		for k := range groups {
			groups[k] = append(groups[k], zones[i])
			walk(i + 1)
			groups[k] = groups[k][:len(groups[k])-1]
		}
		if len(groups) < ec2MaxStreams {
			groups = append(groups, []string{zones[i]})
			walk(i + 1)
			groups = groups[:len(groups)-1]
		}
	}
	walk(0)
	return best, bestPages
}

func ec2Ceil(n, d int) int { return (n + d - 1) / d }

// clusterStream pages through the instances tagged kubernetes.io/cluster/NAME=owned in the
// zones given (every zone when none), in the states of ec2StatesRead, 1,000 a page, passing
// each instance to visit as its page arrives. It follows at most maxPages pages.
func (c ec2Call) clusterStream(ctx context.Context, cluster string, zones []string, maxPages int, visit func(snapshot.Instance)) error {
	filters := []types.Filter{
		{Name: aws.String("tag:" + ec2TagClusterPrefix + cluster), Values: []string{"owned"}},
		{Name: aws.String("instance-state-name"), Values: ec2StatesRead},
	}
	if len(zones) > 0 {
		filters = append(filters, types.Filter{Name: aws.String("availability-zone"), Values: zones})
	}
	return c.instancePages(ctx, filters, maxPages, visit)
}

// planRead chooses, at the first page of nodes, how the instances are read (ec2ChoosePlan):
// the filtered read needs a run over the whole cluster (not scoped), the cluster's name
// (--cluster-name or the kubeconfig's), nodes in one Region, and the list's size, which the
// API server gives with the first page (remainingItemCount) or which is the page itself.
// Otherwise, and for every other Region, the instances are read by ID. A filtered read's
// streams are planned again from the NodeClaims' zones when those are being counted
// (claimZones), without holding up the node listing.
func (e *ec2Read) planRead(nodes []corev1.Node, remaining int64) {
	cluster := cmp.Or(e.clusterFlag, e.clusterKubeconfig)
	zones := map[string]int{}
	regions := map[string]bool{}
	ids := 0
	for i := range nodes {
		p, ok := snapshot.ParseProviderIDLeniently(nodes[i].Spec.ProviderID)
		if !ok {
			continue
		}
		zone := p.Zone
		ids++
		zones[zone]++
		regions[snapshot.RegionOfZone(zone)] = true
	}
	var why string
	switch {
	case e.scoped:
		why = "some nodes only"
	case remaining < 0:
		why = "the API server did not say how many nodes there are"
	case e.flag == "" && (len(regions) != 1 || regions[""]):
		why = "the nodes are in several Regions"
	}
	total := ids + int(remaining)
	if ids == 0 {
		total = 0
	}
	region := e.flag
	for r := range regions {
		region = cmp.Or(region, r)
	}
	if why == "" && cluster == "" && ids > 0 {
		// The first batch read by ID names the cluster by its instances' tags; the rest is
		// read by that tag when it does. The EC2NodeClasses' instance profiles may name it
		// first, and then no instance is read by ID to learn it.
		e.meter.setStrategy(fmt.Sprintf("instances read by instance ID, 200 a call, until the first %d name the "+
			"cluster by their tags: then by cluster tag", min(ids, ec2FilterBatch)))
		plan := func(name, from string) (ec2Plan, bool) {
			weighed := zones
			if sample := e.claimZones; sample != nil && total > ec2PageSize {
				// Nodes named by address come sorted by subnet: the first page is one zone, and one
				// stream would read 100,000 instances a page after the other.
				weighed = ec2SampledZones(zones, sample.wait(e.ctx, cmp.Or(e.claimWait, ec2ZoneSampleWait)), region)
			}
			p := ec2ChoosePlan(weighed, total, name, true)
			if p.filtered {
				e.meter.setStrategy(p.String() + " (the cluster's name read from " + from + ")")
			}
			return p, p.filtered
		}
		f := e.feed(region)
		f.learn = func(first []snapshot.Instance) (ec2Plan, bool) {
			name, _ := ec2ClusterName("", first, "")
			if name == "" {
				e.meter.setStrategy(ec2Plan{instances: total, idCalls: ec2Ceil(total, ec2FilterBatch),
					why: "the first instances name no cluster by their tags: pass --cluster-name"}.String())
				return ec2Plan{}, false
			}
			return plan(name, "the first instances' tags")
		}
		if classes := e.classes; classes != nil {
			f.guess = func() (ec2Plan, bool) {
				name := classes.clusterName(e.ctx, cmp.Or(e.classWait, ec2ClassesWait))
				if name == "" {
					return ec2Plan{}, false
				}
				return plan(name, "the EC2NodeClasses' instance profiles")
			}
		}
		return
	}
	if why == "" && cluster == "" {
		why = "the cluster's name is not known: pass --cluster-name to read a large cluster by its tag"
	}
	plan := ec2ChoosePlan(zones, total, cluster, !e.scoped && cluster != "")
	if why != "" {
		plan.filtered, plan.why = false, why
	}
	e.meter.setStrategy(plan.String())
	if !plan.filtered {
		return
	}
	var replan func() ec2Plan
	if sample := e.claimZones; sample != nil && total > ec2PageSize {
		// The streams are planned again from the NodeClaims' zones once they are counted
		// (ec2ZoneSample), while the nodes are still listed.
		wait := cmp.Or(e.claimWait, ec2ZoneSampleWait)
		replan = func() ec2Plan {
			p := ec2ChoosePlan(ec2SampledZones(zones, sample.wait(e.ctx, wait), region), total, cluster, true)
			if !p.filtered {
				return plan
			}
			e.meter.setStrategy(p.String())
			return p
		}
	}
	e.feed(region).useFilter(plan, replan)
}

// ec2SampledZones returns the zones a plan weighs: those of the NodeClaims sampled in region
// when there are any, with each zone of the first page that the sample lacks counted once (so
// that a stream asks for it), else the first page's.
func ec2SampledZones(page, sample map[string]int, region string) map[string]int {
	zones := map[string]int{}
	for zone, n := range sample {
		if snapshot.RegionOfZone(zone) == region {
			zones[zone] = n
		}
	}
	if len(zones) == 0 {
		return page
	}
	for zone := range page {
		if _, ok := zones[zone]; !ok {
			zones[zone] = 1
		}
	}
	return zones
}
