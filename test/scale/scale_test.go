package scale

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var benchSizes = flag.String("scale.sizes", "500,2000", "cluster sizes, in nodes, for BenchmarkCheck and BenchmarkDescribe")

// plantedFindings returns the findings every cluster of 500 nodes or more has: one per planted
// fault, and the sandbox failures of the node whose max pods is too high.
func plantedFindings() map[string]int {
	return map[string]int{
		"internal-ip-not-instance-ip":  1,
		"max-pods-exceeds-ip-capacity": 1,
		"placement-group-missing":      1,
		"pod-ip-allocation-failures":   1,
		"security-group-drift":         1,
		"subnet-ip-exhaustion":         1,
		"subnet-not-selected":          1,
	}
}

// TestSmoke runs the benchmark at its smallest size, 500 nodes, with 50 ms of EC2 latency and
// EC2's throttling, and holds check and describe node to their request budgets. Times are
// reported, not asserted.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the smoke run starts etcd, kube-apiserver and a 500-node cluster; run go test without -short to include it")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	env, err := Start(ctx, t.TempDir(), os.Stderr)
	if err != nil {
		t.Fatalf("starting the benchmark environment: %v", err)
	}
	defer env.Close()
	c := Conditions{Latency: 50 * time.Millisecond, Throttle: true}
	rs, err := env.Measure(ctx, Options{Sizes: []int{500}, Conditions: c, Runs: 1, Baseline: true, ServeCollections: 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	var table strings.Builder
	if err := WriteTable(&table, c, rs); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", table.String())

	if r.Floor <= 0 {
		t.Errorf("no floor measured (%s)", r.Floor)
	}
	if got, budget := r.Check.EC2Total(), EC2Budget(r.Nodes); got > budget {
		t.Errorf("check made %d EC2 requests (%s), budget %d", got, counts(r.Check.EC2), budget)
	}
	if got, budget := r.Check.KubeTotal(), KubeBudget(r.Nodes); got > budget {
		t.Errorf("check made %d Kubernetes requests (%s), budget %d", got, counts(r.Check.Kube), budget)
	}
	// Every instance once by the cluster's tag in pages of 1,000 (the nodes' and the search for
	// the cluster's others in one read), the name read from the EC2NodeClasses' instance
	// profiles: no batch is read by ID to learn it.
	if want := (r.Nodes + 999) / 1000; r.Check.EC2["DescribeInstances"] != want {
		t.Errorf("check made %d DescribeInstances requests, want %d", r.Check.EC2["DescribeInstances"], want)
	}
	// No instance is decoded twice.
	if r.Check.Instances < r.Nodes || r.Check.Decoded != r.Check.Instances {
		t.Errorf("check -v read %d instances and decoded %d, want at least the %d nodes' and each decoded once",
			r.Check.Instances, r.Check.Decoded, r.Nodes)
	}
	// Events are listed four times, each from the watch cache in one request: sandbox
	// failures, the events about NodeClaims and about NodePools (a field selector cannot name
	// two kinds), and the node monitoring agent's about nodes. Pods are listed twice: CoreDNS's,
	// by label (aws-node's only where its policy agent enforces policies, not here), and those
	// off the host network (the benchmark's cluster has none); no agent's pods are read, as the
	// aws-node DaemonSet's status counts no pod not ready.
	for key, n := range r.Check.Kube {
		most := 1
		switch key {
		case "list events":
			most = 4
		case "list pods":
			most = 2
		}
		if strings.HasSuffix(key, " pods") && key != "list pods" || (strings.HasPrefix(key, "list ") && key != "list nodes" && n > most) {
			t.Errorf("check made %d %q requests: only the node list may take more than one request (events four), "+
				"and pods are only listed, twice", n, key)
		}
	}
	if r.Check.Throttled != 0 {
		t.Errorf("check received RequestLimitExceeded %d times, want never", r.Check.Throttled)
	}
	if diff := cmp.Diff(plantedFindings(), r.Findings); diff != "" || r.Gaps != 0 || r.Check.Exit != 1 {
		t.Errorf("check found (-planted +got):\n%s\ngaps %d, exit %d (want 0 gaps, exit 1)", diff, r.Gaps, r.Check.Exit)
	}
	if got := r.Describe.EC2Total(); got > DescribeEC2Budget {
		t.Errorf("describe node made %d EC2 requests (%s), budget %d", got, counts(r.Describe.EC2), DescribeEC2Budget)
	}
	if got := r.Describe.KubeTotal(); got > DescribeKubeBudget {
		t.Errorf("describe node made %d Kubernetes requests (%s), budget %d", got, counts(r.Describe.Kube), DescribeKubeBudget)
	}
	if b := r.Baseline; b == nil || b.EC2["DescribeInstances"] != r.Nodes {
		t.Errorf("the per-node baseline made %v EC2 requests, want one DescribeInstances per node (%d)", b, r.Nodes)
	}
	wantServeLikeCheck(t, r)
	if r.Check.PeakRSS <= 0 || r.Check.Wall <= 0 || r.Check.UserCPU <= 0 {
		t.Errorf("check was not measured: wall %s, user CPU %s, peak RSS %d", r.Check.Wall, r.Check.UserCPU, r.Check.PeakRSS)
	}
}

// wantServeLikeCheck holds serve's collections to check's requests, and its memory to no
// growth from the third collection to the last.
func wantServeLikeCheck(t *testing.T, r Result) {
	t.Helper()
	s := r.Serve
	if s == nil || s.Collections() != 10 {
		t.Fatalf("serve: %+v, want 10 collections measured", s)
	}
	for i := range s.Collections() {
		if diff := cmp.Diff(r.Check.EC2, s.EC2[i]); diff != "" {
			t.Errorf("serve's collection %d made other EC2 requests than check (-check +serve):\n%s", i+1, diff)
		}
		if diff := cmp.Diff(r.Check.Kube, s.Kube[i]); diff != "" {
			t.Errorf("serve's collection %d made other Kubernetes requests than check (-check +serve):\n%s", i+1, diff)
		}
	}
	if want := 10 * r.Check.EC2Total(); s.CountedEC2 != want {
		t.Errorf("karpnet_ec2_requests_total adds up to %d over 10 collections, the EC2 server received %d", s.CountedEC2, want)
	}
	if want := 10 * r.Check.KubeTotal(); s.CountedKube != want {
		t.Errorf("karpnet_kubernetes_requests_total adds up to %d over 10 collections, the API server received %d", s.CountedKube, want)
	}
	// Each collection replaces the last: from the third on RSS stays put (the live heap, which
	// depends on when the last GC ran, is reported, not asserted).
	if s.HeapLive[9] <= 0 {
		t.Errorf("go_gc_heap_live_bytes after collection 10: %d, want it exported", s.HeapLive[9])
	}
	if grew := s.RSS[9] - s.RSS[2]; grew > 16<<20 {
		t.Errorf("serve's RSS grew by %s from collection 3 to 10 (%s to %s)", mib(grew), mib(s.RSS[2]), mib(s.RSS[9]))
	}
	if s.Exit != 0 {
		t.Errorf("serve after SIGTERM: exit %d, want 0", s.Exit)
	}
}

// BenchmarkCheck runs `kubectl-karpnet check -o json` over clusters of -scale.sizes nodes with
// 50 ms of EC2 latency and throttling, reporting requests and peak RSS per run.
func BenchmarkCheck(b *testing.B) {
	benchmarkCommand(b, func(ctx context.Context, env *Env, c Conditions, _ int) (Measure, error) {
		return env.Check(ctx, c)
	})
}

// BenchmarkDescribe runs `kubectl-karpnet describe node` on one node of each cluster.
func BenchmarkDescribe(b *testing.B) {
	benchmarkCommand(b, func(ctx context.Context, env *Env, c Conditions, n int) (Measure, error) {
		return env.Describe(ctx, c, newMachine(n/2).name)
	})
}

func benchmarkCommand(b *testing.B, run func(context.Context, *Env, Conditions, int) (Measure, error)) {
	var sizes []int
	for _, s := range strings.Split(*benchSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			b.Fatalf("-scale.sizes: %q is not a node count", s)
		}
		sizes = append(sizes, n)
	}
	env, err := Start(b.Context(), b.TempDir(), os.Stderr)
	if err != nil {
		b.Fatalf("starting the benchmark environment: %v", err)
	}
	defer env.Close()
	c := Conditions{Latency: 50 * time.Millisecond, Throttle: true}
	for _, n := range slices.Sorted(slices.Values(sizes)) {
		if err := env.Cluster.Grow(b.Context(), n); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			var m Measure
			var rss int64
			for b.Loop() {
				var err error
				if m, err = run(b.Context(), env, c, n); err != nil {
					b.Fatal(err)
				}
				rss = max(rss, m.PeakRSS)
			}
			b.ReportMetric(float64(m.EC2Total()), "ec2-requests/op")
			b.ReportMetric(float64(m.KubeTotal()), "kube-requests/op")
			b.ReportMetric(float64(rss)/(1<<20), "peak-rss-MiB")
			b.ReportMetric(float64(m.Throttled), "throttled/op")
		})
	}
}
