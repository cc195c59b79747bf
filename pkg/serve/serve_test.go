package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
	"weak"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestReadyzFollowsTheFirstSuccessAndStaleFollowsTheLast(t *testing.T) {
	clk := &clock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	good := takenAt(demoReport(t), clk.Now().Add(time.Minute))
	sc := &script{steps: []step{{err: errAPIServerDown}, {report: good}, {err: errAPIServerDown},
		{report: takenAt(good, clk.Now().Add(3*time.Minute))}}}
	var log bytes.Buffer
	s := New(Options{Collect: sc.collect, Interval: time.Minute, Log: &log, Now: clk.Now, Report: ReportAccess{Open: true}})

	// Before any collection: alive, not ready, no report, stale.
	if code := get(t, s, "/healthz").Code; code != http.StatusOK {
		t.Errorf("/healthz before any collection: %d, want 200", code)
	}
	if rec := get(t, s, "/readyz"); rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "under way") {
		t.Errorf("/readyz before any collection: %d %q, want 503 saying the first collection is under way", rec.Code, rec.Body)
	}
	wantValue(t, s, "karpnet_data_stale", nil, 1)

	// 1: the first collection fails: still not ready, the reason shown, no data series.
	if err := s.CollectOnce(t.Context()); err == nil {
		t.Fatal("collection 1: want the script's error")
	}
	if rec := get(t, s, "/readyz"); rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "connection refused") {
		t.Errorf("/readyz after a failed first collection: %d %q, want 503 with the error", rec.Code, rec.Body)
	}
	if code := get(t, s, "/report").Code; code != http.StatusServiceUnavailable {
		t.Errorf("/report before a good collection: %d, want 503", code)
	}
	wantValue(t, s, "karpnet_data_stale", nil, 1)
	wantValue(t, s, "karpnet_collections_total", map[string]string{"result": "failure"}, 1)
	if _, ok := series(t, s, "karpnet_last_success_timestamp_seconds"); ok {
		t.Error("karpnet_last_success_timestamp_seconds: present before any success, want absent")
	}
	if _, ok := series(t, s, "karpnet_findings"); ok {
		t.Error("karpnet_findings: present before any success, want absent")
	}

	// 2: success at 12:01: ready, fresh, the report served.
	clk.advance(time.Minute)
	firstGood := clk.Now()
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatalf("collection 2: %v", err)
	}
	if code := get(t, s, "/readyz").Code; code != http.StatusOK {
		t.Errorf("/readyz after a good collection: %d, want 200", code)
	}
	wantValue(t, s, "karpnet_data_stale", nil, 0)
	wantValue(t, s, "karpnet_last_success_timestamp_seconds", nil, float64(firstGood.Unix()))
	findings := sum(t, s, "karpnet_findings")
	if findings != float64(len(good.Findings)) || findings == 0 {
		t.Errorf("karpnet_findings add up to %v, want the report's %d findings", findings, len(good.Findings))
	}

	// 3: failure at 12:02: still ready and serving the 12:01 data, now marked stale.
	clk.advance(time.Minute)
	if err := s.CollectOnce(t.Context()); err == nil {
		t.Fatal("collection 3: want the script's error")
	}
	if rec := get(t, s, "/readyz"); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "the last one failed") {
		t.Errorf("/readyz after a later failure: %d %q, want 200 saying the last one failed", rec.Code, rec.Body)
	}
	wantValue(t, s, "karpnet_data_stale", nil, 1)
	wantValue(t, s, "karpnet_last_success_timestamp_seconds", nil, float64(firstGood.Unix()))
	if got := sum(t, s, "karpnet_findings"); got != findings {
		t.Errorf("karpnet_findings after a failed collection add up to %v, want the last good %v", got, findings)
	}
	rec := get(t, s, "/report")
	if rec.Code != http.StatusOK || rec.Header().Get("Warning") == "" {
		t.Errorf("/report after a failure: %d, Warning %q; want 200 with a Warning header", rec.Code, rec.Header().Get("Warning"))
	}
	var rep diagnose.Report
	if err := json.Unmarshal(rec.Body.Bytes(), &rep); err != nil || len(rep.Findings) != len(good.Findings) || rep.Kind != "Report" {
		t.Errorf("/report: %v, %d findings; want the last good Report of %d findings", err, len(rep.Findings), len(good.Findings))
	}

	// 4: success again: fresh.
	clk.advance(time.Minute)
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatalf("collection 4: %v", err)
	}
	wantValue(t, s, "karpnet_data_stale", nil, 0)
	wantValue(t, s, "karpnet_last_success_timestamp_seconds", nil, float64(clk.Now().Unix()))
	wantValue(t, s, "karpnet_collections_total", map[string]string{"result": "success"}, 2)
	wantValue(t, s, "karpnet_collections_total", map[string]string{"result": "failure"}, 2)
	if ms, _ := series(t, s, "karpnet_collection_duration_seconds"); len(ms) != 1 || ms[0].GetHistogram().GetSampleCount() != 4 {
		t.Errorf("karpnet_collection_duration_seconds: want one histogram of 4 observations, got %v", ms)
	}

	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("log: got %d lines, want one per collection:\n%s", len(lines), log.String())
	}
	for i, want := range []string{"collection 1 failed", "collection 2: 36 nodes, 23 findings", "collection 3 failed", "collection 4: "} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("log line %d: got %q, want it to contain %q", i+1, lines[i], want)
		}
	}
	if !strings.Contains(lines[2], "serving the data of 2026-12-01T12:01:00Z") {
		t.Errorf("log line 3: got %q, want it to say which data is still served", lines[2])
	}
}

func TestMetricsShowTheDemoReport(t *testing.T) {
	r := demoReport(t)
	s := New(Options{Collect: (&script{steps: []step{{report: r}}}).collect, Interval: 5 * time.Minute, Version: "v1.2.3",
		NodeMetrics: true})
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	wantValue(t, s, "karpnet_build_info", map[string]string{"version": "v1.2.3"}, 1)
	wantValue(t, s, "karpnet_collection_interval_seconds", nil, 300)

	// Findings by check and severity, and by the NodePool, class and subnet they concern: from
	// a node, a NodeClaim, a class, a subnet.
	wantValue(t, s, "karpnet_findings", map[string]string{"check": "max-pods-exceeds-ip-capacity", "severity": "critical"}, 1)
	wantValue(t, s, "karpnet_nodepool_findings", map[string]string{"check": "max-pods-exceeds-ip-capacity", "severity": "critical",
		"nodepool": "batch"}, 1)
	wantValue(t, s, "karpnet_nodeclass_findings", map[string]string{"check": "max-pods-exceeds-ip-capacity", "severity": "critical",
		"nodeclass": "batch"}, 1)
	wantValue(t, s, "karpnet_nodepool_findings", map[string]string{"check": "nodeclaim-not-registered", "nodepool": "batch"}, 1)
	// A class's finding carries its only NodePool, as its subjects name it.
	wantValue(t, s, "karpnet_nodepool_findings", map[string]string{"check": "nodeclass-not-ready", "nodepool": "staging"}, 1)
	wantValue(t, s, "karpnet_nodeclass_findings", map[string]string{"check": "nodeclass-not-ready", "nodeclass": "staging"}, 1)
	wantValue(t, s, "karpnet_findings", map[string]string{"check": "subnet-ip-exhaustion", "severity": "critical"}, 1)
	wantValue(t, s, "karpnet_nodepool_findings", map[string]string{"check": "max-pods-below-ip-capacity", "nodepool": "training"}, 2)
	bySeverity := map[string]float64{}
	ms, _ := series(t, s, "karpnet_findings")
	for _, m := range ms {
		for _, l := range m.GetLabel() {
			if l.GetName() == "severity" {
				bySeverity[l.GetValue()] += m.GetGauge().GetValue()
			}
		}
	}
	for sev, n := range r.Summary.Findings {
		if bySeverity[sev] != float64(n) {
			t.Errorf("karpnet_findings{severity=%q} add up to %v, want the summary's %d", sev, bySeverity[sev], n)
		}
	}

	// Per node: one info series for each Karpenter node on EC2, capacity where it was worked out.
	karpenterNodes := 0
	for _, n := range r.Nodes {
		id := n.Identity
		if id.NodePool != "" && id.NodeClass != "" && id.InstanceType != "" && id.Zone != "" {
			karpenterNodes++
		}
	}
	if ms, _ := series(t, s, "karpnet_node_info"); len(ms) != karpenterNodes || karpenterNodes == 0 {
		t.Errorf("karpnet_node_info: %d series, want one per Karpenter node on EC2 (%d)", len(ms), karpenterNodes)
	}
	for _, n := range r.Nodes {
		c := n.Capacity
		if c == nil {
			if _, ok := value(t, s, "karpnet_node_max_pods", map[string]string{"node": n.Identity.Node}); ok {
				t.Errorf("karpnet_node_max_pods{node=%q}: present for a node without capacity", n.Identity.Node)
			}
			continue
		}
		wantValue(t, s, "karpnet_node_max_pods", map[string]string{"node": n.Identity.Node}, float64(c.Pods))
		wantValue(t, s, "karpnet_node_pod_ip_capacity", map[string]string{"node": n.Identity.Node}, float64(c.IPCapacity))
	}
	// Subnets: free and usable addresses of each.
	if len(r.Subnets) == 0 {
		t.Fatal("the demo report has no subnets")
	}
	for _, sn := range r.Subnets {
		wantValue(t, s, "karpnet_subnet_free_addresses", map[string]string{"subnet_id": sn.ID, "zone": sn.Zone}, float64(sn.AvailableIPs))
		wantValue(t, s, "karpnet_subnet_addresses", map[string]string{"subnet_id": sn.ID, "zone": sn.Zone}, float64(sn.UsableIPs))
	}
	// Node statuses: every status present, adding up to the nodes.
	if got := sum(t, s, "karpnet_nodes"); got != float64(len(r.Nodes)) {
		t.Errorf("karpnet_nodes add up to %v, want %d", got, len(r.Nodes))
	}
	statuses := map[string]float64{}
	for _, n := range r.Nodes {
		statuses[n.Status]++
	}
	for _, st := range nodeStatuses {
		wantValue(t, s, "karpnet_nodes", map[string]string{"status": st}, statuses[st])
	}
	if statuses["critical"] == 0 || statuses["ok"] == 0 {
		t.Errorf("the demo's node statuses %v: want some ok and some critical", statuses)
	}

	// The exposition follows Prometheus' naming conventions.
	rec := get(t, s, "/metrics")
	problems, err := promlint.New(strings.NewReader(rec.Body.String())).Lint()
	if err != nil {
		t.Fatalf("linting /metrics: %v", err)
	}
	for _, p := range problems {
		if strings.HasPrefix(p.Metric, "karpnet_") {
			t.Errorf("promlint: %s: %s", p.Metric, p.Text)
		}
	}
}

func TestPerNodeFindingsAndGaps(t *testing.T) {
	r := diagnose.Report{
		Nodes: []diagnose.NodeReport{{Identity: diagnose.Identity{Node: "a", NodePool: "p", NodeClass: "c"}, Status: "warning"}},
		Findings: []diagnose.Finding{
			{ID: "data-unavailable", Severity: diagnose.Warning, Resource: "ec2:DescribeSubnets"},
			{ID: "security-group-drift", Severity: diagnose.Warning, Node: "a"},
			{ID: "security-group-drift", Severity: diagnose.Warning, Node: "a", Resource: "sg/x"},
			{ID: "nodepool-zone-unavailable", Severity: diagnose.Warning, Resource: "nodepool/p",
				Subjects: []string{"nodepool/p", "ec2nodeclass/c"}},
			{ID: "subnet-ip-exhaustion", Severity: diagnose.Warning, Resource: "subnet/s",
				Subjects: []string{"subnet/s", "ec2nodeclass/c", "ec2nodeclass/d", "nodepool/p", "nodepool/q"}},
		},
	}
	r.Gaps = append(r.Gaps, gap("ec2:DescribeSubnets"), gap("ec2:DescribeSubnets"), gap("nodepools.karpenter.sh"))
	r.NotRun = []diagnose.NotRun{{ID: "subnet-ip-exhaustion", Needs: []string{"ec2:DescribeSubnets"}},
		{ID: "nodepool-zone-unavailable", Needs: []string{"ec2:DescribeSubnets", "nodepools.karpenter.sh"}}}
	s := New(Options{Collect: (&script{steps: []step{{report: r}}}).collect, NodeMetrics: true})
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	wantValue(t, s, "karpnet_node_findings", map[string]string{"node": "a", "check": "security-group-drift", "severity": "warning"}, 2)
	if ms, _ := series(t, s, "karpnet_node_findings"); len(ms) != 1 {
		t.Errorf("karpnet_node_findings: %d series, want 1 (findings without a node have none)", len(ms))
	}
	// A NodePool's finding carries the class its subjects name; a subnet's used by two classes
	// and two NodePools carries neither, but its subnet.
	wantValue(t, s, "karpnet_nodepool_findings", map[string]string{"check": "nodepool-zone-unavailable", "nodepool": "p"}, 1)
	wantValue(t, s, "karpnet_nodeclass_findings", map[string]string{"check": "nodepool-zone-unavailable", "nodeclass": "c"}, 1)
	wantValue(t, s, "karpnet_findings", map[string]string{"check": "subnet-ip-exhaustion", "severity": "warning"}, 1)
	wantValue(t, s, "karpnet_subnet_findings", map[string]string{"check": "subnet-ip-exhaustion", "subnet": "s"}, 1)
	for _, name := range []string{"karpnet_nodepool_findings", "karpnet_nodeclass_findings"} {
		if _, ok := value(t, s, name, map[string]string{"check": "subnet-ip-exhaustion"}); ok {
			t.Errorf("%s{check=\"subnet-ip-exhaustion\"}: present for a subnet of two NodePools and classes, want absent", name)
		}
	}
	wantValue(t, s, "karpnet_gaps", map[string]string{"source": "ec2:DescribeSubnets"}, 2)
	wantValue(t, s, "karpnet_gaps", map[string]string{"source": "nodepools.karpenter.sh"}, 1)
	// Each check not run, once per source it needs that could not be read.
	wantValue(t, s, "karpnet_check_not_run", map[string]string{"check": "subnet-ip-exhaustion", "source": "ec2:DescribeSubnets"}, 1)
	wantValue(t, s, "karpnet_check_not_run", map[string]string{"check": "nodepool-zone-unavailable", "source": "nodepools.karpenter.sh"}, 1)
	if ms, _ := series(t, s, "karpnet_check_not_run"); len(ms) != 3 {
		t.Errorf("karpnet_check_not_run: %d series, want 3", len(ms))
	}
}

func TestUntrustedLabelValuesNeverBreakAScrape(t *testing.T) {
	bad := "node\xff\xfe" + strings.Repeat("x", 1000)
	r := diagnose.Report{
		Nodes: []diagnose.NodeReport{
			{Identity: diagnose.Identity{Node: bad, NodePool: "p", NodeClass: "c", InstanceType: "m5.large", Zone: "z"}, Status: "ok"},
			{Identity: diagnose.Identity{Node: bad, NodePool: "p", NodeClass: "c", InstanceType: "m5.large", Zone: "z"}, Status: "ok"}, // the same name twice
		},
		Subnets: []diagnose.SubnetUse{{ID: "subnet-1", Zone: "z"}, {ID: "subnet-1", Zone: "z"}},
	}
	s := New(Options{Collect: (&script{steps: []step{{report: r}}}).collect, NodeMetrics: true})
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	rec := get(t, s, "/metrics")
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
	ms, _ := series(t, s, "karpnet_node_info")
	if len(ms) != 1 {
		t.Fatalf("karpnet_node_info: %d series, want 1", len(ms))
	}
	var v string
	for _, l := range ms[0].GetLabel() {
		if l.GetName() == "node" {
			v = l.GetValue()
		}
	}
	if len(v) > maxLabelBytes+3 || !strings.Contains(v, "\uFFFD") || !utf8.ValidString(v) {
		t.Errorf("node label: %d bytes %q, want at most %d bytes of valid UTF-8", len(v), v, maxLabelBytes)
	}
	wantValue(t, s, "karpnet_subnet_free_addresses", map[string]string{"subnet_id": "subnet-1"}, 0)
}

// TestOldReportsAreNotKept runs many collections and fails if a replaced report stays
// reachable or the heap grows with the number of collections.
func TestOldReportsAreNotKept(t *testing.T) {
	s := New(Options{Collect: func(context.Context) (Collection, error) { return Collection{Report: demoReport(t)}, nil },
		Report: ReportAccess{Open: true}})
	var heap []uint64
	var first weak.Pointer[reportBody]
	for i := range 30 {
		if err := s.CollectOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		_ = get(t, s, "/metrics")
		_ = get(t, s, "/report")
		if i == 0 {
			s.mu.RLock()
			first = weak.Make(s.st.view.body)
			s.mu.RUnlock()
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = append(heap, ms.HeapAlloc)
	}
	if first.Value() != nil {
		t.Error("the first collection's /report body is still reachable after 29 more: old reports accumulate")
	}
	// After warming up, the live heap is the same at collection 10 and 30 within 1 MiB (one
	// demo report is about 0.5 MiB; keeping them all would add 10 MiB).
	if grew := int64(heap[29]) - int64(heap[9]); grew > 1<<20 {
		t.Errorf("heap grew by %d KiB from collection 10 to 30 (%d -> %d bytes)", grew>>10, heap[9], heap[29])
	}
}

// TestReleaseComesBetweenTheNewViewAndItsCount checks where serve gives a collection's
// memory back: after a success only, with the new view served and the old one unreachable,
// and before karpnet_collections_total counts it.
func TestReleaseComesBetweenTheNewViewAndItsCount(t *testing.T) {
	sc := &script{steps: []step{{report: demoReport(t)}, {err: errors.New("EC2 unreachable")}, {report: demoReport(t)}}}
	var s *Server
	var old weak.Pointer[view]
	type seen struct {
		successes int
		newView   bool
		oldGone   bool
	}
	var calls []seen
	s = New(Options{Collect: sc.collect, Release: func() {
		runtime.GC()
		s.mu.RLock()
		defer s.mu.RUnlock()
		calls = append(calls, seen{successes: s.st.successes, newView: s.st.view != nil && old.Value() != s.st.view,
			oldGone: old.Value() == nil})
	}})
	for i := range 3 {
		s.mu.RLock()
		if s.st.view != nil {
			old = weak.Make(s.st.view)
		}
		s.mu.RUnlock()
		err := s.CollectOnce(t.Context())
		if (err != nil) != (i == 1) {
			t.Fatalf("collection %d: error %v", i+1, err)
		}
	}
	want := []seen{{successes: 0, newView: true, oldGone: true}, {successes: 1, newView: true, oldGone: true}}
	if !slices.Equal(calls, want) {
		t.Errorf("release saw %+v, want %+v (once per success, new view served, old one gone, not yet counted)", calls, want)
	}
	wantValue(t, s, "karpnet_collections_total", map[string]string{"result": "success"}, 2)
}

func TestRunCollectsOnTheIntervalAndStopsWithTheContext(t *testing.T) {
	r := takenAt(demoReport(t), time.Now())
	sc := &script{steps: []step{{report: r}}}
	s := New(Options{Collect: sc.collect, Interval: 20 * time.Millisecond, MaxAge: time.Hour})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, ln) }()
	url := "http://" + ln.Addr().String()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz never answered 200: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for sc.count() < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("%d collections in 10s at a 20ms interval, want 3", sc.count())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run after cancel: %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10s of its context ending")
	}
	if _, err := http.Get(url + "/healthz"); err == nil {
		t.Error("the server still answers after Run returned")
	}
	n := sc.count()
	time.Sleep(60 * time.Millisecond)
	if sc.count() != n {
		t.Error("collections go on after Run returned")
	}
}

func TestACancelledCollectionChangesNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	s := New(Options{Collect: func(ctx context.Context) (Collection, error) {
		cancel()
		return Collection{}, ctx.Err()
	}})
	if err := s.CollectOnce(ctx); err == nil {
		t.Fatal("want the context's error")
	}
	wantValue(t, s, "karpnet_collections_total", map[string]string{"result": "failure"}, 0)
	if ms, _ := series(t, s, "karpnet_collection_duration_seconds"); ms[0].GetHistogram().GetSampleCount() != 0 {
		t.Error("a cancelled collection was observed")
	}
}

func gap(source string) snapshot.Gap { return snapshot.Gap{Source: source, Reason: "forbidden"} }
