package collect

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestZoneSampleCountsTheFirstClaims: the sample counts the zones of the first
// ec2ZoneSampleSize NodeClaims with a providerID, is ready then (or when the list ends), and
// a wait that times out, or whose context ends, returns what was counted so far.
func TestZoneSampleCountsTheFirstClaims(t *testing.T) {
	z := newEC2ZoneSample()
	z.add("")               // not launched yet: no zone
	z.add("not-a-provider") // not an AWS providerID
	for i := range 10 {
		z.add(fmt.Sprintf("aws:///us-west-2%c/i-%017d", 'a'+i%2, i))
	}
	start := time.Now()
	if got := z.wait(t.Context(), 50*time.Millisecond); !cmp.Equal(got, map[string]int{"us-west-2a": 5, "us-west-2b": 5}) {
		t.Errorf("sample of 10 after the wait: %v, want 5 and 5", got)
	}
	if time.Since(start) < 50*time.Millisecond {
		t.Errorf("an incomplete sample was returned before the wait ended")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if got := z.wait(ctx, time.Hour); len(got) != 2 {
		t.Errorf("with the context ended: %v, want the two zones counted", got)
	}
	for i := range ec2ZoneSampleSize + 100 {
		z.add(fmt.Sprintf("aws:///us-west-2c/i-%017d", i))
	}
	got := z.wait(t.Context(), time.Hour) // ready: does not wait
	if n := got["us-west-2a"] + got["us-west-2b"] + got["us-west-2c"]; n != ec2ZoneSampleSize {
		t.Errorf("sample of %d, want %d: %v", n, ec2ZoneSampleSize, got)
	}
	ended := newEC2ZoneSample()
	ended.add("aws:///eu-west-1a/i-0123456789abcdef0")
	ended.end()
	ended.end()
	if got := ended.wait(t.Context(), time.Hour); !cmp.Equal(got, map[string]int{"eu-west-1a": 1}) {
		t.Errorf("sample of a list that ended: %v", got)
	}
}

func TestSampledZones(t *testing.T) {
	page := map[string]int{"us-west-2a": 500}
	for _, c := range []struct {
		name   string
		sample map[string]int
		want   map[string]int
	}{
		{"no sample: the page's", nil, page},
		{"the sample's, with the page's zone", map[string]int{"us-west-2a": 170, "us-west-2b": 160, "us-west-2c": 170},
			map[string]int{"us-west-2a": 170, "us-west-2b": 160, "us-west-2c": 170}},
		{"a zone of the page the sample lacks is counted once", map[string]int{"us-west-2b": 250, "us-west-2c": 250},
			map[string]int{"us-west-2a": 1, "us-west-2b": 250, "us-west-2c": 250}},
		{"another Region's zones are not the nodes'", map[string]int{"eu-west-1a": 300}, page},
	} {
		if got := ec2SampledZones(page, c.sample, "us-west-2"); !cmp.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// zoneSortedFilterWorld is ec2FilterWorld with its nodes sorted by zone, as nodes named by
// address come, so that the first page of 500 is all us-west-2a; it returns the EC2 read of
// a whole cluster named prod (given as clusterName, or read from the instances' tags when
// that is empty), its Meter, the simulator and the snapshot.
func zoneSortedFilterWorld(t *testing.T, n int, clusterName string) (*ec2Read, *Meter, *ec2sim.Server, *snapshot.Snapshot) {
	t.Helper()
	sim, url, s := ec2FilterWorld(t, n)
	zoneOf := func(n corev1.Node) string {
		p, _ := snapshot.ParseProviderIDLeniently(n.Spec.ProviderID)
		return p.Zone
	}
	slices.SortStableFunc(s.Nodes, func(a, b corev1.Node) int { return strings.Compare(zoneOf(a), zoneOf(b)) })
	for _, node := range s.Nodes[:500] {
		if zone := zoneOf(node); zone != "us-west-2a" {
			t.Fatalf("the first page holds a node in %s, want us-west-2a only", zone)
		}
	}
	meter := &Meter{}
	e := (&Collector{EC2: ec2sim.NewClient(url, "us-west-2"), ClusterName: clusterName, Meter: meter}).startEC2(t.Context())
	return e, meter, sim, s
}

// sampleTwoZones counts n NodeClaims into the sample, half in us-west-2a, half in us-west-2b.
func sampleTwoZones(z *ec2ZoneSample, n int) {
	for i := range n {
		z.add(fmt.Sprintf("aws:///us-west-2%c/%s", 'a'+i%2, ec2InstanceID(i)))
	}
}

// checkFilteredPages checks the filtered read's pages by zone filter ("" for none), and that
// every node's instance EC2 knows was read (the n of the cluster's, the self-managed node's
// and the terminated one's, which the filter cannot see).
func checkFilteredPages(t *testing.T, sim *ec2sim.Server, s *snapshot.Snapshot, n int, want map[string]int) {
	t.Helper()
	zones := map[string]int{}
	for _, r := range sim.Requests() {
		if _, byID := r.Filters["instance-id"]; r.Action == ec2sim.DescribeInstances && !byID {
			zones[strings.Join(r.Filters["availability-zone"], ",")]++
		}
	}
	if diff := cmp.Diff(want, zones); diff != "" {
		t.Errorf("pages by zone filter (-want +got):\n%s", diff)
	}
	for i := range n + 2 {
		if !slices.ContainsFunc(s.Instances, func(in snapshot.Instance) bool { return in.ID == ec2InstanceID(i) }) {
			t.Fatalf("instance %d of a node is missing", i)
		}
	}
}

// TestFilteredReadPlansStreamsFromTheNodeClaimsZones: when the first page of nodes is all one
// zone (names sorted by subnet), the zones of the NodeClaims sampled meanwhile plan a stream
// per zone; without the sample the read is one stream. Either way every node's instance is
// read, with the same number of pages. The same holds when the cluster's name is read from
// the first instances' tags (before, that read was one stream whatever the NodeClaims' zones).
func TestFilteredReadPlansStreamsFromTheNodeClaimsZones(t *testing.T) {
	for _, c := range []struct {
		sampled bool
		cluster string
	}{{true, "prod"}, {false, "prod"}, {true, ""}, {false, ""}} {
		sampled := c.sampled
		t.Run(fmt.Sprintf("sampled=%t,named=%t", sampled, c.cluster != ""), func(t *testing.T) {
			const n = 5000
			e, meter, sim, s := zoneSortedFilterWorld(t, n, c.cluster)
			if sampled {
				e.claimZones = newEC2ZoneSample()
				sampleTwoZones(e.claimZones, n)
			}
			e.addNodes(s.Nodes[:500], int64(len(s.Nodes)-500))
			e.addNodes(s.Nodes[500:], 0)
			e.nodesDone(s)
			e.finish(t.Context(), s)

			want, wantZones := "in 1 stream(s) (every zone)", map[string]int{"": 6}
			if sampled {
				want, wantZones = "in 2 stream(s) (us-west-2a, us-west-2b)", map[string]int{"us-west-2a": 3, "us-west-2b": 3}
			}
			if p := meter.Progress(); !strings.Contains(p.Strategy, want) {
				t.Errorf("strategy %q: want %q", p.Strategy, want)
			}
			checkFilteredPages(t, sim, s, n, wantZones)
		})
	}
}

// TestFilteredReadDoesNotHoldTheNodeListing: the first page of nodes is given while no
// NodeClaim has been counted yet; the node listing goes on at once, and the streams are
// planned from the NodeClaims' zones once they are counted, after every node was given.
func TestFilteredReadDoesNotHoldTheNodeListing(t *testing.T) {
	const n = 5000
	e, meter, sim, s := zoneSortedFilterWorld(t, n, "prod")
	e.claimZones, e.claimWait = newEC2ZoneSample(), time.Hour

	listed := make(chan struct{})
	go func() {
		defer close(listed)
		e.addNodes(s.Nodes[:500], int64(len(s.Nodes)-500))
		e.addNodes(s.Nodes[500:], 0)
		e.nodesDone(s)
	}()
	select {
	case <-listed:
	case <-time.After(30 * time.Second):
		t.Fatal("the node listing waited for the NodeClaims' zones")
	}
	if p := meter.Progress(); !strings.Contains(p.Strategy, "in 1 stream(s) (every zone)") {
		t.Errorf("strategy before the NodeClaims are counted %q: want the first page's, one stream", p.Strategy)
	}
	for _, r := range sim.Requests() {
		if _, byID := r.Filters["instance-id"]; r.Action == ec2sim.DescribeInstances && !byID {
			t.Fatalf("a filtered page was read before the streams were planned: %+v", r)
		}
	}
	sampleTwoZones(e.claimZones, ec2ZoneSampleSize)
	e.finish(t.Context(), s)

	if p := meter.Progress(); !strings.Contains(p.Strategy, "in 2 stream(s) (us-west-2a, us-west-2b)") {
		t.Errorf("strategy %q: want a stream per zone of the NodeClaims", p.Strategy)
	}
	checkFilteredPages(t, sim, s, n, map[string]int{"us-west-2a": 3, "us-west-2b": 3})
}
