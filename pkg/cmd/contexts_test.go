package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
	"github.com/karpnet/kubectl-karpnet/pkg/collect"
)

// multiReport is the part of a report over several clusters that tests read.
type multiReport struct {
	Clusters []struct {
		Context     string `json:"context"`
		ClusterName string `json:"clusterName"`
		Region      string `json:"region"`
		Account     string `json:"account"`
		Status      string `json:"status"`
		Gap         string `json:"gap"`
		Summary     struct {
			Nodes int `json:"nodes"`
		} `json:"summary"`
	} `json:"clusters"`
	Nodes []struct {
		Context  string `json:"context"`
		Identity struct {
			Node string `json:"node"`
		} `json:"identity"`
	} `json:"nodes"`
	Findings []struct {
		Context  string `json:"context"`
		ID       string `json:"id"`
		Resource string `json:"resource"`
	} `json:"findings"`
	Summary struct {
		Nodes int `json:"nodes"`
	} `json:"summary"`
}

func TestContextsReportEveryCluster(t *testing.T) {
	m := standardClusters(t)
	m.accounts = map[string]string{"a": "111122223333"}
	text := m.run(t, "check", "--contexts", "a,b,c")
	wantCode(t, text, ExitCollect) // c could not be read; the report of all three is printed
	testutil.Assert(t, filepath.Join("testdata", "contexts-check.table.golden"), text.stdout)

	j := m.run(t, "check", "--contexts", "a,b,c", "-o", "json", "--allow-unreachable")
	wantCode(t, j, ExitFindings) // b has a critical finding
	testutil.Assert(t, filepath.Join("testdata", "contexts-check.json.golden"), j.stdout)
	var rep multiReport
	if err := json.Unmarshal([]byte(j.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	type cluster struct{ ctx, status, account string }
	var got []cluster
	for _, c := range rep.Clusters {
		got = append(got, cluster{c.Context, c.Status, c.Account})
	}
	want := []cluster{{"a", "ok", "111122223333"}, {"b", "critical", "123456789012"}, {"c", "unreachable", ""}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(cluster{})); diff != "" {
		t.Errorf("clusters (-want +got):\n%s", diff)
	}
	if rep.Clusters[2].Gap == "" || !strings.Contains(rep.Clusters[2].Gap, "connection refused") {
		t.Errorf("unreachable cluster's gap: got %q, want the connection error", rep.Clusters[2].Gap)
	}
	if rep.Summary.Nodes != 4 || len(rep.Nodes) != 4 {
		t.Errorf("summary.nodes %d, %d nodes: want 4 (2 per readable cluster)", rep.Summary.Nodes, len(rep.Nodes))
	}
	for _, n := range rep.Nodes {
		if n.Context != "a" && n.Context != "b" {
			t.Errorf("node %s has context %q, want a or b", n.Identity.Node, n.Context)
		}
	}
	gap := false
	for _, f := range rep.Findings {
		if f.Context == "" {
			t.Errorf("finding %s %s has no context", f.ID, f.Resource)
		}
		if f.Context == "c" && f.ID == "data-unavailable" && f.Resource == "kubernetes" {
			gap = true
		}
	}
	if !gap {
		t.Errorf("findings: want a data-unavailable finding on resource kubernetes for context c, got %+v", rep.Findings)
	}
}

func TestContextsExitCodes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want int
		line []string
	}{
		{"a critical in one cluster fails the run", []string{"check", "--contexts", "a,b"}, ExitFindings, nil},
		{"every cluster read, no finding", []string{"check", "--contexts", "a"}, ExitOK, nil},
		{"an unreachable cluster fails the run", []string{"check", "--contexts", "a,c"}, ExitCollect,
			[]string{"1 of 2 clusters could not be read: context c (", "connection refused", "pass --allow-unreachable"}},
		{"an unreachable cluster fails the run over a critical", []string{"check", "--contexts", "a,b,c,d"}, ExitCollect,
			[]string{"2 of 4 clusters could not be read: contexts c (", "; d ("}},
		{"--allow-unreachable: an unreachable cluster is a warning", []string{"check", "--contexts", "a,c", "--allow-unreachable"}, ExitOK, nil},
		{"--allow-unreachable: it fails --fail-on warning", []string{"check", "--contexts", "a,c", "--fail-on", "warning", "--allow-unreachable"}, ExitFindings, nil},
		{"--allow-unreachable: a critical still fails", []string{"check", "--all-contexts", "--allow-unreachable"}, ExitFindings, nil},
		{"--allow-unreachable: none read is still 3", []string{"check", "--contexts", "c,d", "--allow-unreachable"}, ExitCollect,
			[]string{"no cluster could be read"}},
		{"every cluster unreachable", []string{"check", "--contexts", "c,d"}, ExitCollect,
			[]string{"no cluster could be read", "c: ", "d: "}},
		{"one context, unreachable", []string{"check", "--contexts", "c"}, ExitCollect, []string{"no cluster could be read"}},
		{"unknown context", []string{"check", "--contexts", "a,nope"}, ExitUsage,
			[]string{`--contexts: unknown context "nope": the kubeconfig has a, b, c, d`}},
		{"--contexts and --all-contexts", []string{"check", "--contexts", "a", "--all-contexts"}, ExitUsage,
			[]string{"--contexts and --all-contexts cannot be used together"}},
		{"--contexts and --context", []string{"check", "--contexts", "a", "--context", "b"}, ExitUsage,
			[]string{"--context cannot be used with --contexts or --all-contexts"}},
		{"--contexts and --server", []string{"check", "--all-contexts", "--server", "https://x"}, ExitUsage,
			[]string{"--server cannot be used with --contexts"}},
		{"--contexts and --snapshot", []string{"check", "--contexts", "a", "--snapshot", "x.json"}, ExitUsage,
			[]string{"cannot be used with --snapshot"}},
		{"an empty name", []string{"check", "--contexts", "a,,b"}, ExitUsage, []string{"--contexts has an empty name"}},
		{"no name at all", []string{"check", "--contexts", ""}, ExitUsage, []string{"--contexts names no context"}},
		{"no name after =", []string{"check", "--contexts="}, ExitUsage, []string{"--contexts names no context"}},
		{"diff reads one cluster", []string{"diff", "old.json", "--contexts", "a,b"}, ExitUsage,
			[]string{"--contexts and --all-contexts work with check, describe node and the terminal UI"}},
		{"describe subnet reads one cluster", []string{"describe", "subnet", "subnet-1", "--all-contexts"}, ExitUsage,
			[]string{"work with check, describe node and the terminal UI"}},
		{"demo", []string{"demo", "check", "--contexts", "a"}, ExitUsage, []string{"cannot be used with demo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := standardClusters(t)
			m.kubeconfig = multiKubeconfig(t, "a", "b", "c", "d")
			m.make["d"] = func(*testing.T) *collect.Collector { return unreachableCollector("d") }
			r := m.run(t, tt.args...)
			wantCode(t, r, tt.want)
			if tt.line != nil {
				wantOneErrorLine(t, r, tt.line...)
			}
		})
	}
}

func TestAllContextsReadsEveryContextInOrder(t *testing.T) {
	m := standardClusters(t)
	m.kubeconfig = multiKubeconfig(t, "c", "b", "a") // current context c; sorted by name
	r := m.run(t, "check", "--all-contexts", "-o", "json")
	wantCode(t, r, ExitCollect) // c could not be read
	var rep multiReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range rep.Clusters {
		got = append(got, c.Context)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, got); diff != "" {
		t.Errorf("clusters (-want +got):\n%s", diff)
	}
}

// TestContextsBoundedConcurrency runs six contexts whose node lists each wait for the others
// and counts how many are read at once.
func TestContextsBoundedConcurrency(t *testing.T) {
	names := []string{"c1", "c2", "c3", "c4", "c5", "c6"}
	var now, most atomic.Int32
	m := &multiClusters{kubeconfig: multiKubeconfig(t, names...), make: map[string]func(*testing.T) *collect.Collector{}}
	for _, name := range names {
		m.make[name] = func(t *testing.T) *collect.Collector {
			c := healthyCollector(t, newLiveCluster(t), name)
			kube := c.Kube.(*k8sfake.Clientset)
			kube.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
				n := now.Add(1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				// Hold the list until as many clusters as may be read at once are in (or 5s have
				// passed, on a machine too loaded to start them), then 50ms more, so that a
				// cluster read beyond the bound would be counted.
				for deadline := time.Now().Add(5 * time.Second); most.Load() < maxClusters && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
				time.Sleep(50 * time.Millisecond)
				now.Add(-1)
				return false, nil, nil // the fake's own answer
			})
			return c
		}
	}
	r := m.run(t, "check", "--all-contexts", "-o", "json")
	wantCode(t, r, ExitOK)
	if got := most.Load(); got != maxClusters {
		t.Errorf("clusters read at once: got %d, want %d", got, maxClusters)
	}
	if n := strings.Count(r.stdout, `"context": "c`); n < 6 {
		t.Errorf("report: got %d context fields, want every cluster's", n)
	}
}

// TestContextsShareTheEC2Budget checks that every context of a run gets the same budget, and
// that two clusters in one account and Region go through one gate.
func TestContextsShareTheEC2Budget(t *testing.T) {
	m := standardClusters(t)
	m.accounts = map[string]string{"a": "123456789012", "b": "123456789012"}
	r := m.run(t, "check", "--contexts", "a,b")
	wantCode(t, r, ExitFindings)
	use := m.budgets.Load().Use()
	gate, ok := use["account:123456789012/us-west-2"]
	if !ok || len(use) != 1 {
		t.Fatalf("gates: got %v, want one, account:123456789012/us-west-2", use)
	}
	if gate.MaxInFlight > collect.BudgetInFlight || gate.Requests < 8 {
		t.Errorf("the shared gate: got %+v, want both clusters' requests (at least 8) and at most %d in flight",
			gate, collect.BudgetInFlight)
	}
}

func TestContextsSnapshotReplays(t *testing.T) {
	m := standardClusters(t)
	file := filepath.Join(t.TempDir(), "several.json.gz")
	live := m.run(t, "check", "--contexts", "a,b,c", "-o", "wide", "--save-snapshot", file)
	wantCode(t, live, ExitCollect) // c could not be read, in the snapshot as live
	o, _, _ := newTestOptions()
	replay := runWith(t, o, "check", "-o", "wide", "--snapshot", file)
	wantCode(t, replay, ExitCollect)
	if replay.stderr != strings.Replace(live.stderr, "snapshot saved to "+file+"\n", "", 1) {
		t.Errorf("replay's stderr %q, want live's %q", replay.stderr, live.stderr)
	}
	o, _, _ = newTestOptions()
	wantCode(t, runWith(t, o, "check", "--snapshot", file, "--allow-unreachable"), ExitFindings)
	if replay.stdout != live.stdout {
		t.Errorf("replayed report differs:\n--- live\n%s\n--- replay\n%s", live.stdout, replay.stdout)
	}
	o, _, _ = newTestOptions()
	d := runWith(t, o, "diff", file, file)
	wantCode(t, d, ExitUsage)
	wantOneErrorLine(t, d, "holds 3 clusters: diff compares snapshots of one cluster")
	o, _, _ = newTestOptions()
	s := runWith(t, o, "describe", "subnet", "subnet-1", "--snapshot", file)
	wantCode(t, s, ExitUsage)
	wantOneErrorLine(t, s, "holds 3 clusters, which check, describe node and the terminal UI read")
}

func TestContextsDescribeNode(t *testing.T) {
	m := standardClusters(t)
	// liveNodeA is in a and b: one sheet per cluster, each under its context.
	r := m.run(t, "describe", "node", liveNodeA, "--contexts", "a,b,c")
	wantCode(t, r, ExitOK)
	if n := strings.Count(r.stdout, "node/"+liveNodeA+"  "); n != 2 {
		t.Errorf("sheets of %s: got %d, want one per cluster:\n%s", liveNodeA, n, r.stdout)
	}
	ia, ib := strings.Index(r.stdout, "context: a\n"), strings.Index(r.stdout, "context: b\n")
	if ia < 0 || ib < ia {
		t.Errorf("want the sheet of context a, then b:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "warning: context c could not be read: ") {
		t.Errorf("stderr: got %q, want a warning about context c", r.stderr)
	}
	// Only in a.
	m.make["b"] = func(*testing.T) *collect.Collector { return unreachableCollector("b") }
	one := m.run(t, "describe", "node", liveNodeA, "--contexts", "a,b")
	wantCode(t, one, ExitOK)
	if n := strings.Count(one.stdout, "context: "); n != 1 {
		t.Errorf("sheets: got %d, want 1:\n%s", n, one.stdout)
	}
	none := m.run(t, "describe", "node", "ip-10-9-9-9.us-west-2.compute.internal", "--contexts", "a,b")
	wantCode(t, none, ExitUsage)
	wantOneErrorLine(t, none, `node "ip-10-9-9-9.us-west-2.compute.internal" not found in any of the contexts a`)
}

func TestContextsCompletion(t *testing.T) {
	m := standardClusters(t)
	r := m.run(t, "__complete", "check", "--contexts", "a,")
	wantCode(t, r, ExitOK)
	got := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if diff := cmp.Diff([]string{"a,b", "a,c", ":6"}, got); diff != "" {
		t.Errorf("completion of --contexts a, (-want +got):\n%s", diff)
	}
}

// TestUnknownContextIsAUsageError: a context the kubeconfig does not have exits 2 with the
// contexts it has, with --context as with --contexts, before anything is read.
func TestUnknownContextIsAUsageError(t *testing.T) {
	kubeconfig := multiKubeconfig(t, "a", "b")
	for _, args := range [][]string{
		{"check", "--context", "nope"},
		{"describe", "node", "x", "--context", "nope"},
		{"check", "--contexts", "nope"},
		{"serve", "--context", "nope", "--listen", "127.0.0.1:0"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			o, _, _ := newTestOptions()
			o.newCollector = liveCollector
			r := runWith(t, o, append([]string{"--kubeconfig", kubeconfig}, args...)...)
			wantCode(t, r, ExitUsage)
			wantOneErrorLine(t, r, `unknown context "nope": the kubeconfig has a, b`)
		})
	}
}
