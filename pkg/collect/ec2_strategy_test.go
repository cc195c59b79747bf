package collect

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestChoosePlanCosts(t *testing.T) {
	three := func(n int) map[string]int { // n instances seen over three zones
		return map[string]int{"us-west-2a": n / 3, "us-west-2b": n / 3, "us-west-2c": n - 2*(n/3)}
	}
	for _, c := range []struct {
		name      string
		zones     map[string]int
		total     int
		cluster   string
		search    bool
		filtered  bool
		id, byTag int
		streams   int
	}{
		// With the search, its pages are the filtered read's: by tag, whatever the size.
		{name: "500 nodes", zones: three(500), total: 500, cluster: "prod", search: true, filtered: true, id: 4, byTag: 1, streams: 1},
		{name: "2,000 nodes", zones: three(500), total: 2000, cluster: "prod", search: true, filtered: true, id: 12, byTag: 3, streams: 3},
		// Without it, the filtered read must save the margin of 20 calls.
		{name: "2,000 nodes, no search", zones: three(500), total: 2000, cluster: "prod", id: 10, byTag: 3, streams: 3},
		// 25 + 5 against 5 pages: saves 25, at least the margin of 20.
		{name: "5,000 nodes", zones: three(500), total: 5000, cluster: "prod", search: true, filtered: true, id: 30, byTag: 6, streams: 3},
		// A small read spends a page per stream to run every zone at once: 3 streams of 4
		// pages, not 2 of 7 and 4.
		{name: "10,000 nodes", zones: three(500), total: 10000, cluster: "prod", search: true, filtered: true, id: 60, byTag: 12, streams: 3},
		{name: "100,000 nodes", zones: three(500), total: 100000, cluster: "prod", search: true, filtered: true, id: 600, byTag: 101, streams: 2},
		// Three zones of 4,000 fill their pages: three streams cost no more than one.
		{name: "12,000 nodes, even", zones: three(600), total: 12000, cluster: "prod", search: true, filtered: true, id: 72, byTag: 12, streams: 3},
		{name: "no cluster name", zones: three(500), total: 100000, search: false, id: 500, byTag: 101, streams: 2},
		{name: "no node", zones: map[string]int{}, total: 0, cluster: "prod", search: true, id: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := ec2ChoosePlan(c.zones, c.total, c.cluster, c.search)
			if p.filtered != c.filtered || p.idCalls != c.id || p.filteredCalls != c.byTag || len(p.streams) != c.streams {
				t.Errorf("plan %+v: filtered %v, %d calls by ID, %d by tag, %d streams; want %v, %d, %d, %d",
					p, p.filtered, p.idCalls, p.filteredCalls, len(p.streams), c.filtered, c.id, c.byTag, c.streams)
			}
		})
	}
}

func TestZoneStreams(t *testing.T) {
	for _, c := range []struct {
		counts  map[string]int
		streams [][]string
		pages   int
	}{
		{map[string]int{"a": 1000, "b": 1000, "c": 1000}, [][]string{{"a"}, {"b"}, {"c"}}, 3},
		// A page more for two streams of 2 pages instead of one of 3.
		{map[string]int{"a": 1500, "b": 1500}, [][]string{{"a"}, {"b"}}, 4},
		// Three streams of 2 pages are 2 more than the fewest, a page per stream: in a small
		// read they run at once, 2 pages long instead of 3.
		{map[string]int{"a": 1100, "b": 1100, "c": 1100}, [][]string{{"a"}, {"b"}, {"c"}}, 6},
		// In a large read a page more at most: three streams of 35 pages would be 2 more.
		{map[string]int{"a": 34100, "b": 34100, "c": 34100}, [][]string{{"a", "b"}, {"c"}}, 104},
		{map[string]int{"a": 900, "b": 900, "c": 900, "d": 900}, [][]string{{"a"}, {"b"}, {"c"}, {"d"}}, 4},
		{map[string]int{"a": 2000, "b": 500, "c": 500, "d": 1}, [][]string{{"a"}, {"b", "c"}, {"d"}}, 4},
		// The tiny zone does not get a stream of its own: that would be a page more, and the
		// longest stream as long.
		{map[string]int{"a": 33333, "b": 33333, "c": 33333, "d": 1}, [][]string{{"a", "b", "d"}, {"c"}}, 101},
		{map[string]int{"a": 33334, "b": 33333, "c": 33333}, [][]string{{"a", "b"}, {"c"}}, 101},
		{map[string]int{"a": 5}, [][]string{{"a"}}, 1},
	} {
		streams, pages := ec2ZoneStreams(c.counts)
		if diff := cmp.Diff(c.streams, streams); diff != "" || pages != c.pages {
			t.Errorf("ec2ZoneStreams(%v): %d pages, want %d; streams (-want +got):\n%s", c.counts, pages, c.pages, diff)
		}
	}
}

// ec2FilterWorld is a cluster of n Karpenter nodes over two zones whose instances are tagged
// for the cluster prod, and the instances the filtered read must tell apart.
func ec2FilterWorld(t *testing.T, n int) (*ec2sim.Server, string, *snapshot.Snapshot) {
	t.Helper()
	sim := ec2sim.New()
	s := snapshot.New(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	tags := func(extra ...string) map[string]string {
		m := map[string]string{"kubernetes.io/cluster/prod": "owned", "karpenter.sh/nodepool": "default"}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	add := func(i int, state, zone string, tags map[string]string, node bool) {
		id := ec2InstanceID(i)
		sim.AddInstances(snapshot.Instance{ID: id, Type: "m5.large", State: state, Zone: zone, VpcID: "vpc-1", SubnetID: "subnet-a", Tags: tags})
		if node {
			s.Nodes = append(s.Nodes, ec2Node(fmt.Sprintf("node-%06d", i), zone, id, "m5.large"))
		}
	}
	for i := range n {
		add(i, "running", []string{"us-west-2a", "us-west-2b"}[i%2], tags(), true)
	}
	// Nodes the filter cannot see: not tagged for the cluster (a self-managed group), an
	// instance that terminated, and an instance EC2 does not know.
	add(n, "running", "us-west-2a", map[string]string{"eks:nodegroup-name": "system"}, true)
	add(n+1, "terminated", "us-west-2b", tags(), true)
	s.Nodes = append(s.Nodes, ec2Node("node-gone", "us-west-2a", ec2InstanceID(n+2), "m5.large"))
	// Instances the filter returns that no node names: launched by Karpenter and running (the
	// search keeps it), tagged for the cluster without a NodePool (dropped).
	add(n+3, "running", "us-west-2b", tags(), false)
	add(n+4, "running", "us-west-2a", map[string]string{"kubernetes.io/cluster/prod": "owned"}, false)
	// Another cluster's instance.
	add(n+5, "running", "us-west-2a", map[string]string{"kubernetes.io/cluster/dev": "owned", "karpenter.sh/nodepool": "default"}, false)
	return sim, sim.Start(t), s
}

func TestFilteredReadKeepsNamedInstancesAndReadsTheRestByID(t *testing.T) {
	const n = 5000
	sim, url, s := ec2FilterWorld(t, n)
	meter := &Meter{}
	e := (&Collector{EC2: ec2sim.NewClient(url, "us-west-2"), ClusterName: "prod", Meter: meter}).startEC2(t.Context())
	e.addNodes(s.Nodes, 0)
	e.nodesDone(s)
	e.finish(t.Context(), s)

	if p := meter.Progress(); !strings.Contains(p.Strategy, "by cluster tag kubernetes.io/cluster/prod=owned") {
		t.Errorf("strategy %q: want the read by cluster tag", p.Strategy)
	}
	got := map[string]string{}
	for _, in := range s.Instances {
		got[in.ID] = in.State
	}
	for i := range n + 2 {
		if _, ok := got[ec2InstanceID(i)]; !ok {
			t.Fatalf("instance %d of a node is missing", i)
		}
	}
	if got[ec2InstanceID(n+1)] != "terminated" {
		t.Errorf("the terminated node's instance: state %q, want terminated (read by ID)", got[ec2InstanceID(n+1)])
	}
	for i, want := range map[int]bool{n + 2: false, n + 3: true, n + 4: false, n + 5: false} {
		if _, ok := got[ec2InstanceID(i)]; ok != want {
			t.Errorf("instance %d kept = %v, want %v", i, ok, want)
		}
	}
	if len(s.Instances) != n+3 {
		t.Errorf("%d instances kept, want %d", len(s.Instances), n+3)
	}
	var byTag, byID int
	var fallback []string
	for _, r := range sim.Requests() {
		if r.Action != ec2sim.DescribeInstances {
			continue
		}
		if ids, ok := r.Filters["instance-id"]; ok {
			byID++
			fallback = append(fallback, ids...)
			continue
		}
		byTag++
		if diff := cmp.Diff([]string{"owned"}, r.Filters["tag:kubernetes.io/cluster/prod"]); diff != "" {
			t.Errorf("DescribeInstances by %v: want the cluster tag", r.Filters)
		}
		if states := r.Filters["instance-state-name"]; slices.Contains(states, "terminated") {
			t.Errorf("DescribeInstances asks for %v: terminated instances are read by ID", states)
		}
	}
	// 2,502 instances in a zone: 3 pages each, two streams at once (or 6 in one).
	if byTag != 6 || byID != 1 {
		t.Errorf("DescribeInstances: %d by tag, %d by ID; want 6 and 1", byTag, byID)
	}
	slices.Sort(fallback)
	if diff := cmp.Diff([]string{ec2InstanceID(n), ec2InstanceID(n + 1), ec2InstanceID(n + 2)}, fallback); diff != "" {
		t.Errorf("read by ID (-want +got):\n%s", diff)
	}
	if len(s.Gaps) != 0 {
		t.Errorf("gaps %+v, want none", s.Gaps)
	}
}

// TestFilteredReadFailsOverToIDs: when the filtered read fails, the nodes' instances are read
// by ID and the search for the cluster's other instances is a gap.
func TestFilteredReadFailsOverToIDs(t *testing.T) {
	const n = 5000
	sim, url, s := ec2FilterWorld(t, n)
	sim.Fail(ec2sim.DescribeInstances, "InternalError", 2*ec2sim.ClientMaxAttempts) // both streams, with their retries
	e := (&Collector{EC2: ec2sim.NewClient(url, "us-west-2"), ClusterName: "prod"}).startEC2(t.Context())
	e.addNodes(s.Nodes, 0)
	e.nodesDone(s)
	e.finish(t.Context(), s)
	for i := range n + 2 {
		if !slices.ContainsFunc(s.Instances, func(in snapshot.Instance) bool { return in.ID == ec2InstanceID(i) }) {
			t.Fatalf("instance %d of a node is missing", i)
		}
	}
	if len(s.Gaps) != 1 || s.Gaps[0].Source != snapshot.SourceClusterInstances {
		t.Errorf("gaps %+v, want one of %s", s.Gaps, snapshot.SourceClusterInstances)
	}
}

// TestSmallOrScopedReadsByID: a cluster whose size is unknown, or a scoped run, reads by ID as
// before.
func TestSmallOrScopedReadsByID(t *testing.T) {
	for _, c := range []struct {
		name      string
		n         int
		remaining int64
		scoped    bool
		why       string
	}{
		{"size unknown", 5000, -1, false, "did not say"},
		{"scoped", 5000, 0, true, "some nodes only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sim, url, s := ec2FilterWorld(t, c.n)
			meter := &Meter{}
			e := (&Collector{EC2: ec2sim.NewClient(url, "us-west-2"), ClusterName: "prod", Meter: meter}).startEC2(t.Context())
			e.scoped = c.scoped
			e.addNodes(s.Nodes, c.remaining)
			e.nodesDone(s)
			e.finish(t.Context(), s)
			if p := meter.Progress(); !strings.Contains(p.Strategy, "by instance ID") || !strings.Contains(p.Strategy, c.why) {
				t.Errorf("strategy %q: want by instance ID, %q", p.Strategy, c.why)
			}
			byID := 0
			for _, r := range sim.Requests() {
				if _, ok := r.Filters["instance-id"]; ok && r.Action == ec2sim.DescribeInstances {
					byID++
				}
			}
			if want := ec2Ceil(len(s.Nodes), 200); byID != want {
				t.Errorf("%d DescribeInstances by ID, want %d", byID, want)
			}
			if p := meter.Progress(); p.EC2Calls != sim.Total() {
				t.Errorf("meter counted %d EC2 calls, EC2 answered %d", p.EC2Calls, sim.Total())
			}
		})
	}
}
