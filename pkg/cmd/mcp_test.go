package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// demoCriticals are the IDs of the demo's critical findings, as check lists them.
var demoCriticals = []string{
	"instance-not-found", "instance-not-running", "max-pods-exceeds-ip-capacity", "nodeclaim-not-registered",
	"nodeclass-not-ready", "nodepool-registration-unhealthy", "pod-ip-allocation-failures", "pod-subnet-zone-missing",
	"subnet-ip-exhaustion", "subnet-no-egress-route", "subnet-prefix-fragmented",
}

// maxAnswer is the most a tool's answer may hold: an assistant reads it whole.
const maxAnswer = 64 << 10

// startMCP runs karpnet with args (a command serving MCP) over in-memory pipes and returns
// the SDK's client session connected to it. The server must end cleanly when the session
// closes.
func startMCP(t *testing.T, args ...string) *sdk.ClientSession {
	t.Helper()
	o, _, _ := newTestOptions()
	cs, _ := startMCPWith(t, o, args...)
	return cs
}

// startMCPWith is startMCP over o, whose ErrOut must be a bytes.Buffer. The exit code comes on
// the channel once the session is closed.
func startMCPWith(t *testing.T, o *commonOptions, args ...string) (*sdk.ClientSession, <-chan int) {
	t.Helper()
	errOut := o.ErrOut
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	o.In, o.Out = inR, outW
	ctx, cancel := context.WithCancel(t.Context())
	code, exited := make(chan int, 1), make(chan int, 1)
	go func() {
		c := execute(ctx, o, args)
		outW.Close()
		code <- c
		exited <- c
	}()
	client := sdk.NewClient(&sdk.Implementation{Name: "karpnet-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		cancel()
		c := <-code
		t.Fatalf("connecting to karpnet %s: %v (exit %d)\nstderr:\n%s", strings.Join(args, " "), err, c, errOut)
	}
	t.Cleanup(func() {
		cs.Close()
		inW.Close()
		if c := <-code; c != ExitOK {
			t.Errorf("karpnet %s exited %d\nstderr:\n%s", strings.Join(args, " "), c, errOut)
		}
		cancel()
	})
	return cs, exited
}

// runMCPExample runs an example of mcp: a client lists the tools and calls check, then
// closes the session; stdout holds check's answer.
func runMCPExample(t *testing.T, o *commonOptions, args []string) result {
	t.Helper()
	cs, exited := startMCPWith(t, o, args...)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools/list: %v", err)
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "check", Arguments: map[string]any{"limit": 3}})
	if err != nil {
		t.Fatal(err)
	}
	text := toolText(t, res)
	if res.IsError {
		t.Fatalf("check: %s", text)
	}
	cs.Close()
	return result{code: <-exited, stdout: text, stderr: bufString(o.ErrOut)}
}

// call calls a tool and returns its text answer, failing the test on a tool error.
func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	text := toolText(t, res)
	if res.IsError {
		t.Fatalf("%s %v: tool error: %s", tool, args, text)
	}
	if len(text) > maxAnswer {
		t.Errorf("%s %v: answer of %d bytes, above %d", tool, args, len(text), maxAnswer)
	}
	if res.StructuredContent == nil {
		t.Errorf("%s %v: no structured content", tool, args)
	}
	return text
}

// toolText is the text of a tool's answer, its one content block.
func toolText(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("answer has %d content blocks, want 1", len(res.Content))
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("answer is %T, want text", res.Content[0])
	}
	return tc.Text
}

// decode reads a tool's JSON answer into v.
func decode(t *testing.T, text string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(text), v); err != nil {
		t.Fatalf("answer is not JSON: %v\n%s", err, text)
	}
}

type checkAnswer struct {
	Summary struct {
		Context     string           `json:"context"`
		Nodes       diagnose.Summary `json:"nodes"`
		MinSeverity string           `json:"minSeverity"`
		Findings    struct {
			Total, Offset, Returned, NextOffset int
		} `json:"findings"`
		Next string `json:"next"`
	} `json:"summary"`
	Findings []diagnose.Finding `json:"findings"`
}

func TestMCPDemoTools(t *testing.T) {
	cs := startMCP(t, "demo", "mcp")

	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Annotations == nil || !tl.Annotations.ReadOnlyHint {
			t.Errorf("tool %s is not marked read-only", tl.Name)
		}
	}
	if want := []string{"check", "describe", "diff", "explain", "max-pods"}; !slices.Equal(names, want) {
		t.Errorf("tools: got %v, want %v", names, want)
	}

	t.Run("check lists the criticals", func(t *testing.T) {
		var a checkAnswer
		decode(t, call(t, cs, "check", map[string]any{"minSeverity": "critical", "limit": 100}), &a)
		var ids []string
		withCommands := 0
		for _, f := range a.Findings {
			if f.Severity != diagnose.Critical {
				t.Errorf("minSeverity critical listed %s %s", f.Severity, f.ID)
			}
			if !slices.Contains(ids, f.ID) {
				ids = append(ids, f.ID)
			}
			if len(f.Subjects) == 0 {
				t.Errorf("finding %s has no subjects", f.ID)
			}
			if len(f.Commands) > 0 {
				withCommands++
			}
		}
		if !slices.Equal(ids, demoCriticals) {
			t.Errorf("critical IDs:\n got %v\nwant %v", ids, demoCriticals)
		}
		if withCommands == 0 {
			t.Error("no critical finding carries its remedy's commands as data")
		}
		if a.Summary.Context != demo.Context || a.Summary.Findings.Total != len(a.Findings) ||
			a.Summary.Nodes.Findings["critical"] != len(a.Findings) || a.Summary.Nodes.WithCritical != 4 || a.Summary.MinSeverity != "critical" {
			t.Errorf("summary: %+v", a.Summary)
		}
	})

	t.Run("check pages", func(t *testing.T) {
		var first, last checkAnswer
		decode(t, call(t, cs, "check", map[string]any{"limit": 5}), &first)
		total := first.Summary.Nodes.Findings["critical"] + first.Summary.Nodes.Findings["warning"] + first.Summary.Nodes.Findings["info"]
		if len(first.Findings) != 5 || first.Summary.Findings.NextOffset != 5 || first.Summary.Findings.Total != total ||
			!strings.Contains(first.Summary.Next, "offset 5") {
			t.Errorf("first page: %d findings, summary %+v", len(first.Findings), first.Summary.Findings)
		}
		decode(t, call(t, cs, "check", map[string]any{"limit": 5, "offset": total - 2}), &last)
		if len(last.Findings) != 2 || last.Summary.Findings.NextOffset != 0 || last.Summary.Next != "" {
			t.Errorf("last page: %d findings, summary %+v", len(last.Findings), last.Summary.Findings)
		}
		var def checkAnswer
		decode(t, call(t, cs, "check", nil), &def)
		if len(def.Findings) != 20 {
			t.Errorf("default page: %d findings, want 20", len(def.Findings))
		}
	})

	t.Run("check a NodePool", func(t *testing.T) {
		var a checkAnswer
		decode(t, call(t, cs, "check", map[string]any{"nodepool": "batch", "minSeverity": "critical"}), &a)
		if !slices.ContainsFunc(a.Findings, func(f diagnose.Finding) bool { return f.ID == "nodepool-registration-unhealthy" }) ||
			slices.ContainsFunc(a.Findings, func(f diagnose.Finding) bool { return f.ID == "instance-not-found" }) {
			t.Errorf("batch's criticals: %v", a.Findings)
		}
	})

	t.Run("describe a node", func(t *testing.T) {
		const node = "ip-10-0-50-20.us-west-2.compute.internal"
		var a struct {
			Sheets []struct {
				Name    string              `json:"name"`
				Data    diagnose.NodeReport `json:"data"`
				Related []diagnose.Finding  `json:"related"`
			} `json:"sheets"`
		}
		decode(t, call(t, cs, "describe", map[string]any{"kind": "node", "names": []string{node}}), &a)
		if len(a.Sheets) != 1 || a.Sheets[0].Name != node || a.Sheets[0].Data.Identity.Node != node {
			t.Fatalf("sheets: %+v", a.Sheets)
		}
		if !slices.ContainsFunc(a.Sheets[0].Data.Findings, func(f diagnose.Finding) bool { return f.ID == "max-pods-exceeds-ip-capacity" }) {
			t.Errorf("the node's sheet lacks max-pods-exceeds-ip-capacity: %v", a.Sheets[0].Data.Findings)
		}
		// As text, the answer is the sheet as describe node prints it.
		text := call(t, cs, "describe", map[string]any{"kind": "node", "names": []string{node}, "format": "text"})
		if !strings.HasPrefix(text, "node/"+node) || !strings.Contains(text, "max-pods-exceeds-ip-capacity") || strings.Contains(text, `"sheets"`) {
			t.Errorf("text sheet:\n%s", text)
		}
	})

	t.Run("describe pages a selector", func(t *testing.T) {
		var a struct {
			Page   struct{ Total, Returned, NextOffset int } `json:"page"`
			Sheets []json.RawMessage                         `json:"sheets"`
		}
		decode(t, call(t, cs, "describe", map[string]any{"kind": "node", "selector": "karpenter.sh/nodepool=general", "limit": 2}), &a)
		if len(a.Sheets) != 2 || a.Page.Returned != 2 || a.Page.NextOffset != 2 || a.Page.Total <= 2 {
			t.Errorf("page: %+v, %d sheets", a.Page, len(a.Sheets))
		}
	})

	t.Run("describe other kinds", func(t *testing.T) {
		for _, c := range []struct{ kind, name, want string }{
			{"subnet", "subnet-0c8ae009df552f60f", `"availableIPs":12`},
			{"nodeclaim", "batch-szxd6", "nodeclaim-not-registered"},
			{"nodepool", "batch", "nodepool-registration-unhealthy"},
			{"nodeclass", "staging", "nodeclass-not-ready"},
		} {
			got := call(t, cs, "describe", map[string]any{"kind": c.kind, "names": []string{c.name}})
			if !strings.Contains(got, c.want) {
				t.Errorf("describe %s %s lacks %s:\n%.600s", c.kind, c.name, c.want, got)
			}
		}
	})

	t.Run("explain", func(t *testing.T) {
		var a struct {
			Checks []struct{ ID, FiresWhen, Remedy string } `json:"checks"`
			List   []struct{ ID string }                    `json:"list"`
		}
		decode(t, call(t, cs, "explain", map[string]any{"ids": []string{"subnet-ip-exhaustion"}}), &a)
		if len(a.Checks) != 1 || a.Checks[0].ID != "subnet-ip-exhaustion" || a.Checks[0].FiresWhen == "" || a.Checks[0].Remedy == "" {
			t.Errorf("explain: %+v", a.Checks)
		}
		if text := call(t, cs, "explain", map[string]any{"ids": []string{"subnet-ip-exhaustion"}, "format": "text"}); !strings.HasPrefix(text, "subnet-ip-exhaustion") ||
			!strings.Contains(text, "\nFires when\n") {
			t.Errorf("explain text:\n%s", text)
		}
		decode(t, call(t, cs, "explain", nil), &a)
		if len(a.List) != len(diagnose.Checks()) {
			t.Errorf("explain list: %d checks, want %d", len(a.List), len(diagnose.Checks()))
		}
	})

	t.Run("diff a snapshot and now", func(t *testing.T) {
		old := filepath.Join(t.TempDir(), "cilium.json")
		s, err := demo.SnapshotOf(demo.CiliumContext)
		if err != nil {
			t.Fatal(err)
		}
		writeTestSnapshot(t, old, s)
		var a struct {
			Summary struct{ FindingsAdded, FindingsResolved, NodesAdded, Limit int } `json:"summary"`
			New     struct{ Source string }                                          `json:"new"`
			Warns   []string                                                         `json:"warnings"`
		}
		decode(t, call(t, cs, "diff", map[string]any{"old": old, "limit": 3}), &a)
		if a.New.Source != "demo" || a.Summary.NodesAdded == 0 || a.Summary.Limit != 3 {
			t.Errorf("diff: %+v", a)
		}
		same := filepath.Join(t.TempDir(), "demo.json")
		s, _ = demo.SnapshotOf("")
		writeTestSnapshot(t, same, s)
		decode(t, call(t, cs, "diff", map[string]any{"old": same}), &a)
		if a.Summary.FindingsAdded != 0 || a.Summary.FindingsResolved != 0 || a.Summary.NodesAdded != 0 {
			t.Errorf("diff of the demo with itself: %+v", a.Summary)
		}
	})

	t.Run("max-pods", func(t *testing.T) {
		var a struct {
			Rows []struct {
				InstanceType string
				SecondaryIP  int64
			} `json:"rows"`
		}
		decode(t, call(t, cs, "max-pods", map[string]any{"types": []string{"m5.large"}}), &a)
		// eni-max-pods.txt: m5.large 29 (3 ENIs x (10 - 1) + 2).
		if len(a.Rows) != 1 || a.Rows[0].InstanceType != "m5.large" || a.Rows[0].SecondaryIP != 29 {
			t.Errorf("max-pods: %+v", a.Rows)
		}
	})
}

func writeTestSnapshot(t *testing.T, name string, s *snapshot.Snapshot) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := snapshot.Write(f, s); err != nil {
		t.Fatal(err)
	}
}

// TestMCPBadArguments: a bad argument is the call's tool error, one line that says what to
// give, and the server goes on answering.
func TestMCPBadArguments(t *testing.T) {
	cs := startMCP(t, "demo", "mcp")
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"check", map[string]any{"minSeverity": "bad"}, `minSeverity "bad": use critical, warning or info`},
		{"check", map[string]any{"limit": 1000}, "limit 1000 is above 100"},
		{"check", map[string]any{"offset": -1}, "offset -1"},
		{"check", map[string]any{"bogus": true}, "bogus"},
		{"check", map[string]any{"limit": "ten"}, "limit"},
		{"check", map[string]any{"nodes": []string{"ip-10-0-50-2.us-west-2.compute.internal"}}, "not found"},
		{"check", map[string]any{"nodepool": "bach"}, `NodePool "bach" not found`},
		{"check", map[string]any{"only": []string{"subnet-ip-exhaustio"}}, "subnet-ip-exhaustion"},
		{"check", map[string]any{"selector": "a b"}, "selector"},
		{"describe", map[string]any{"kind": "pod", "names": []string{"x"}}, `kind "pod": use one of node, nodeclaim`},
		{"describe", map[string]any{"kind": "node"}, "name at least one node"},
		{"describe", map[string]any{"kind": "subnet", "names": []string{"subnet-nope"}}, `subnet "subnet-nope" not found`},
		{"describe", map[string]any{"kind": "nodeclaim", "names": []string{"nope"}}, `nodeclaim "nope" not found`},
		{"describe", map[string]any{"kind": "subnet", "selector": "a=b"}, "use it with kind node"},
		{"describe", map[string]any{"kind": "node", "names": []string{"x"}, "format": "yaml"}, `format "yaml"`},
		{"explain", map[string]any{"ids": []string{"subnet-exhaustion"}}, "unknown check ID"},
		{"diff", map[string]any{"old": "/nonexistent/old.json"}, "/nonexistent/old.json"},
		{"diff", map[string]any{}, "old"},
		{"max-pods", map[string]any{"types": []string{"m5.lrge"}}, "does not know instance type m5.lrge"},
		{"max-pods", map[string]any{"types": []string{"m5.large"}, "live": true}, "live asks EC2"},
		{"max-pods", map[string]any{"types": []string{}}, "types"},
	} {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Errorf("%s %v: a protocol error, want a tool error: %v", c.tool, c.args, err)
			continue
		}
		text := toolText(t, res)
		if !res.IsError || !strings.Contains(text, c.want) || strings.Contains(text, "\n") || text == "" {
			t.Errorf("%s %v: isError %v, answer %q; want one line with %q", c.tool, c.args, res.IsError, text, c.want)
		}
	}
	call(t, cs, "check", map[string]any{"limit": 1})
}

// TestMCPFlags: what the command refuses before serving.
func TestMCPFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"demo", "mcp", "--save-snapshot", "x.json"}, "--save-snapshot does not apply to mcp"},
		{[]string{"mcp", "--max-age", "1s"}, "--max-age 1s is below 15s"},
		{[]string{"mcp", "extra"}, "unknown command"},
	} {
		r := run(t, c.args...)
		wantCode(t, r, ExitUsage)
		if !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("%v: stdout %q, stderr %q; want %q", c.args, r.stdout, r.stderr, c.want)
		}
	}
}

// TestMCPLiveReadsOnceAndOnlyReads: over a live cluster the server collects as check does,
// once: the next calls, and a refresh inside the request budget's 15s floor, answer from that
// collection. Every request it makes is a Kubernetes get or list and an EC2 Describe or Get.
func TestMCPLiveReadsOnceAndOnlyReads(t *testing.T) {
	c := newLiveCluster(t)
	o := c.options()
	builds := 0
	build := o.newCollector
	o.newCollector = func(ctx context.Context, o *commonOptions) (*collect.Collector, error) {
		builds++
		return build(ctx, o)
	}
	cs, _ := startMCPWith(t, o, "mcp")
	var a checkAnswer
	decode(t, call(t, cs, "check", nil), &a)
	if a.Summary.Context != "live" || a.Summary.Nodes.Nodes != 2 {
		t.Fatalf("check: %+v", a.Summary)
	}
	requests := c.sim.Total()
	if requests == 0 {
		t.Fatal("no EC2 request: the cluster was not read")
	}
	call(t, cs, "check", map[string]any{"refresh": true, "minSeverity": "warning"})
	call(t, cs, "describe", map[string]any{"kind": "node", "selector": "karpenter.sh/nodepool"})
	old := filepath.Join(t.TempDir(), "old.json")
	s, _ := demo.SnapshotOf("")
	writeTestSnapshot(t, old, s)
	var d struct {
		New struct{ Source string } `json:"new"`
	}
	decode(t, call(t, cs, "diff", map[string]any{"old": old}), &d)
	if d.New.Source != liveSource {
		t.Errorf("diff's new side: %q, want %q", d.New.Source, liveSource)
	}
	if got := c.sim.Total(); got != requests || builds != 1 {
		t.Errorf("after three more calls: %d EC2 requests (want %d), %d collectors built (want 1)", got, requests, builds)
	}
	for _, req := range c.sim.Requests() {
		if !strings.HasPrefix(req.Action, "Describe") && !strings.HasPrefix(req.Action, "Get") {
			t.Errorf("EC2 %s: not a read", req.Action)
		}
	}
	for _, act := range append(c.kube.Actions(), c.dyn.Actions()...) {
		if v := act.GetVerb(); v != "get" && v != "list" {
			t.Errorf("Kubernetes %s %s: not a read", v, act.GetResource().Resource)
		}
	}
}

// TestMCPConcurrentCalls: an assistant may call tools at once; the answers are the ones each
// would get alone.
func TestMCPConcurrentCalls(t *testing.T) {
	cs := startMCP(t, "demo", "mcp")
	calls := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"check", map[string]any{"minSeverity": "critical", "limit": 1}, "instance-not-found"},
		{"describe", map[string]any{"kind": "subnet", "names": []string{"subnet-0c8ae009df552f60f"}}, `"availableIPs":12`},
		{"explain", map[string]any{"ids": []string{"subnet-ip-exhaustion"}}, `"id":"subnet-ip-exhaustion"`},
		{"max-pods", map[string]any{"types": []string{"m5.large"}}, `"secondaryIP":29`},
	}
	errs := make(chan string, 4*len(calls))
	var wg sync.WaitGroup
	for range 4 {
		for _, c := range calls {
			wg.Go(func() {
				res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
				switch {
				case err != nil:
					errs <- fmt.Sprintf("%s: %v", c.tool, err)
				case res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, c.want):
					errs <- fmt.Sprintf("%s: %.200s", c.tool, res.Content[0].(*sdk.TextContent).Text)
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
