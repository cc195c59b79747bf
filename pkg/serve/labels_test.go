package serve

import (
	"regexp"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// perNodeFamilies are the families with one series per node (or more): off by default.
var perNodeFamilies = []string{"karpnet_node_info", "karpnet_node_max_pods", "karpnet_node_pod_ip_capacity", "karpnet_node_findings"}

// seriesCount returns the number of karpnet_ series in s's exposition.
func seriesCount(t *testing.T, s *Server) int {
	t.Helper()
	n := 0
	for _, line := range strings.Split(get(t, s, "/metrics").Body.String(), "\n") {
		if strings.HasPrefix(line, "karpnet_") {
			n++
		}
	}
	return n
}

// TestNodeSeriesOnlyWithNodeMetrics: by default no family grows with the number of nodes;
// NodeMetrics adds them. It logs the series per node either way (docs/serve.md's figures).
func TestNodeSeriesOnlyWithNodeMetrics(t *testing.T) {
	r := demoReport(t)
	off := New(Options{Collect: (&script{steps: []step{{report: r}}}).collect})
	on := New(Options{Collect: (&script{steps: []step{{report: r}}}).collect, NodeMetrics: true})
	for _, s := range []*Server{off, on} {
		if err := s.CollectOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	perNode := 0
	for _, name := range perNodeFamilies {
		if ms, ok := series(t, off, name); ok {
			t.Errorf("%s: %d series without NodeMetrics, want none", name, len(ms))
		}
		ms, _ := series(t, on, name)
		perNode += len(ms)
	}
	if perNode < 2*len(r.Nodes) {
		t.Errorf("NodeMetrics adds %d series over %d nodes, want at least two per node", perNode, len(r.Nodes))
	}
	t.Logf("demo, %d nodes: %d karpnet_ series by default, %d with NodeMetrics (%.2f per node)",
		len(r.Nodes), seriesCount(t, off), seriesCount(t, on), float64(perNode)/float64(len(r.Nodes)))
}

// TestNoEmptyLabelValues: no series carries a label that does not apply, with or without node
// metrics; subnet findings carry their subnet.
func TestNoEmptyLabelValues(t *testing.T) {
	r := demoReport(t)
	empty := regexp.MustCompile(`(?m)^(karpnet_\w+)\{[^}]*\b(\w+)=""`)
	for _, nodeMetrics := range []bool{false, true} {
		s := New(Options{Collect: (&script{steps: []step{{report: r}}}).collect, NodeMetrics: nodeMetrics})
		if err := s.CollectOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		body := get(t, s, "/metrics").Body.String()
		for _, m := range empty.FindAllStringSubmatch(body, -1) {
			t.Errorf("NodeMetrics %v: %s has an empty %s label", nodeMetrics, m[1], m[2])
		}
		subnets := 0
		for _, f := range r.Findings {
			if strings.HasPrefix(f.Resource, "subnet/") {
				subnets++
			}
		}
		if got := sum(t, s, "karpnet_subnet_findings"); got < float64(subnets) || subnets == 0 {
			t.Errorf("karpnet_subnet_findings add up to %v, want at least the %d findings whose resource is a subnet", got, subnets)
		}
	}
}

// TestSubnetFreePrefixBlocks: the free /28 blocks of the subnets whose block map is known, and
// no series for the others.
func TestSubnetFreePrefixBlocks(t *testing.T) {
	r := demoReport(t)
	if len(r.Subnets) < 2 {
		t.Fatal("the demo report has fewer than two subnets")
	}
	seven := 7
	for i := range r.Subnets {
		r.Subnets[i].FreeBlocks = nil
	}
	r.Subnets[0].FreeBlocks = &seven
	known := r.Subnets[0]
	s := New(Options{Collect: (&script{steps: []step{{report: r}}}).collect})
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	wantValue(t, s, "karpnet_subnet_free_prefix_blocks", map[string]string{"subnet_id": known.ID, "zone": known.Zone}, 7)
	if ms, _ := series(t, s, "karpnet_subnet_free_prefix_blocks"); len(ms) != 1 {
		t.Errorf("karpnet_subnet_free_prefix_blocks: %d series, want one (the others' blocks are unknown)", len(ms))
	}
}

// TestLongLabelValuesStayDistinct: five nodes whose names share their first 256 bytes keep
// five karpnet_node_max_pods series, each label at most maxLabelBytes, and a name that fits is
// kept as it is.
func TestLongLabelValuesStayDistinct(t *testing.T) {
	prefix := strings.Repeat("ip-10-0-0-1.", 30)[:300]
	var r diagnose.Report
	names := []string{"ip-10-0-0-9.ec2.internal"}
	for i := range 5 {
		names = append(names, prefix+string(rune('a'+i)))
	}
	for i, name := range names {
		r.Nodes = append(r.Nodes, diagnose.NodeReport{Identity: diagnose.Identity{Node: name},
			Capacity: &diagnose.CapacityReport{Pods: int64(100 + i)}})
	}
	s := New(Options{Collect: (&script{steps: []step{{report: r}}}).collect, NodeMetrics: true})
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	ms, _ := series(t, s, "karpnet_node_max_pods")
	if len(ms) != len(names) {
		t.Fatalf("karpnet_node_max_pods: %d series for %d nodes, want one each", len(ms), len(names))
	}
	seen := map[string]bool{}
	for _, m := range ms {
		node := m.GetLabel()[0].GetValue()
		if len(node) > maxLabelBytes {
			t.Errorf("node label of %d bytes, want at most %d", len(node), maxLabelBytes)
		}
		seen[node] = true
	}
	if len(seen) != len(names) || !seen[names[0]] {
		t.Errorf("node labels %v: want %d distinct values, %q among them", seen, len(names), names[0])
	}
}
