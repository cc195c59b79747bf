package cmd

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// demoAutoNode is the demo's EKS Auto Mode node in us-west-2c, where its NodeClass has no pod
// subnet: one critical, pod-subnet-zone-missing.
const demoAutoNode = "i-0aabd605ffdb17f34"

func TestDemoGoldens(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		golden string
		code   int
	}{
		{name: "check table", args: []string{"demo", "check"}, golden: "demo-check.table.golden", code: ExitFindings},
		{name: "check wide", args: []string{"demo", "check", "-o", "wide"}, golden: "demo-check.wide.golden", code: ExitFindings},
		{name: "check json", args: []string{"demo", "check", "-o", "json"}, golden: "demo-check.json.golden", code: ExitFindings},
		{name: "check yaml", args: []string{"demo", "check", "-o", "yaml"}, golden: "demo-check.yaml.golden", code: ExitFindings},
		{
			name: "describe node text", args: []string{"demo", "describe", "node", demoWarnNode},
			golden: "demo-describe-node.table.golden", code: ExitOK,
		},
		{
			name: "describe node json", args: []string{"demo", "describe", "node", demoWarnNode, "-o", "json"},
			golden: "demo-describe-node.json.golden", code: ExitOK,
		},
		{
			name: "describe Auto Mode node text", args: []string{"demo", "describe", "node", demoAutoNode},
			golden: "demo-describe-auto-node.table.golden", code: ExitOK,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.args...)
			wantCode(t, r, tt.code)
			if r.stderr != "" {
				t.Errorf("stderr: got %q, want nothing", r.stderr)
			}
			testutil.Assert(t, filepath.Join("testdata", tt.golden), r.stdout)
		})
	}
}

func TestDemoFailOnAndCheckFilters(t *testing.T) {
	all := []string{
		"eni-leaked", "instance-not-found", "instance-not-running", "instance-orphaned", "instance-type-mismatch",
		"max-pods-below-ip-capacity", "max-pods-exceeds-ip-capacity", "network-policy-not-enforced", "nodeclaim-drifted",
		"nodeclaim-not-registered", "nodeclass-not-ready", "nodepool-registration-unhealthy", "pod-ip-allocation-failures",
		"pod-subnet-zone-missing", "security-group-drift", "subnet-ip-exhaustion", "subnet-no-egress-route",
		"subnet-not-selected", "subnet-prefix-fragmented",
	}
	tests := []struct {
		name    string
		args    []string
		code    int
		wantIDs []string
	}{
		{name: "default fails on critical", args: nil, code: ExitFindings, wantIDs: all},
		{name: "never", args: []string{"--fail-on", "never"}, code: ExitOK, wantIDs: all},
		{name: "warning", args: []string{"--fail-on", "warning"}, code: ExitFindings, wantIDs: all},
		{name: "severity in any case", args: []string{"--fail-on", "CRITICAL"}, code: ExitFindings, wantIDs: all},
		{
			name: "only a warning check, fail on critical",
			args: []string{"--only", "instance-type-mismatch", "--fail-on", "critical"},
			code: ExitOK, wantIDs: []string{"instance-type-mismatch"},
		},
		{
			name: "only a warning check, fail on warning",
			args: []string{"--only", "instance-type-mismatch", "--fail-on", "warning"},
			code: ExitFindings, wantIDs: []string{"instance-type-mismatch"},
		},
		{
			name: "only two checks",
			args: []string{"--only", "subnet-not-selected,security-group-drift"},
			code: ExitOK, wantIDs: []string{"security-group-drift", "subnet-not-selected"},
		},
		{
			name: "skip every check with criticals",
			args: []string{"--skip", "instance-not-found,instance-not-running,max-pods-exceeds-ip-capacity",
				"--skip", "nodeclass-not-ready,subnet-ip-exhaustion,pod-ip-allocation-failures,pod-subnet-zone-missing",
				"--skip", "nodeclaim-not-registered,nodepool-registration-unhealthy,subnet-no-egress-route",
				"--skip", "subnet-prefix-fragmented"},
			code: ExitOK,
			wantIDs: []string{"eni-leaked", "instance-orphaned", "instance-type-mismatch", "max-pods-below-ip-capacity",
				"network-policy-not-enforced", "nodeclaim-drifted", "security-group-drift", "subnet-not-selected"},
		},
		{
			name: "skip one check",
			args: []string{"--skip", "instance-type-mismatch"},
			code: ExitFindings,
			wantIDs: []string{
				"eni-leaked", "instance-not-found", "instance-not-running", "instance-orphaned", "max-pods-below-ip-capacity",
				"max-pods-exceeds-ip-capacity", "network-policy-not-enforced", "nodeclaim-drifted", "nodeclaim-not-registered",
				"nodeclass-not-ready", "nodepool-registration-unhealthy", "pod-ip-allocation-failures", "pod-subnet-zone-missing",
				"security-group-drift", "subnet-ip-exhaustion", "subnet-no-egress-route", "subnet-not-selected",
				"subnet-prefix-fragmented",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"demo", "check", "-o", "json"}, tt.args...)
			r := run(t, args...)
			wantCode(t, r, tt.code)
			if diff := cmp.Diff(tt.wantIDs, findingIDs(t, r.stdout)); diff != "" {
				t.Errorf("finding IDs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDemoOnlyText checks that the text report of --only prints that check's finding and no
// other check ID.
func TestDemoOnlyText(t *testing.T) {
	r := run(t, "demo", "check", "--only", "instance-type-mismatch", "--fail-on", "critical")
	wantCode(t, r, ExitOK)
	if got := strings.Count(r.stdout, "instance-type-mismatch"); got != 1 {
		t.Errorf("instance-type-mismatch: got %d mentions, want 1:\n%s", got, r.stdout)
	}
	for _, id := range diagnose.CheckIDs() {
		if id != "instance-type-mismatch" && strings.Contains(r.stdout, id) {
			t.Errorf("stdout mentions check %s, want only instance-type-mismatch:\n%s", id, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "node/"+demoWarnNode) {
		t.Errorf("stdout: got\n%s\nwant the finding of node %s", r.stdout, demoWarnNode)
	}
}

func TestDemoCheckNamedNodes(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		code      int
		wantNodes []string
		wantIDs   []string
	}{
		{name: "clean node", args: []string{demoNode}, code: ExitOK, wantNodes: []string{demoNode}},
		// The node in us-west-2b also gets the finding on its zone's exhausted pod subnet: its
		// next pods take addresses there.
		{
			name: "node with a warning", args: []string{demoWarnNode, "--fail-on", "warning"},
			code: ExitFindings, wantNodes: []string{demoWarnNode}, wantIDs: []string{"instance-type-mismatch", "subnet-ip-exhaustion"},
		},
		{
			name: "two nodes", args: []string{demoWarnNode, demoNode, "--fail-on", "never"},
			code: ExitOK, wantNodes: []string{demoNode, demoWarnNode}, wantIDs: []string{"instance-type-mismatch", "subnet-ip-exhaustion"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, append([]string{"demo", "check", "-o", "json"}, tt.args...)...)
			wantCode(t, r, tt.code)
			rep := decodeReport(t, r.stdout)
			if diff := cmp.Diff(tt.wantNodes, rep.nodeNames()); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantIDs, findingIDs(t, r.stdout)); diff != "" {
				t.Errorf("finding IDs (-want +got):\n%s", diff)
			}
			for _, f := range rep.Findings {
				if f.Node != "" && !slices.Contains(tt.wantNodes, f.Node) {
					t.Errorf("finding %s is about node %q, want only the named nodes", f.ID, f.Node)
				}
			}
		})
	}
	t.Run("text of a clean node", func(t *testing.T) {
		r := run(t, "demo", "check", demoNode)
		wantCode(t, r, ExitOK)
		if !strings.Contains(r.stdout, "no findings") || !strings.Contains(r.stdout, "1 node: 1 ok,") {
			t.Errorf("stdout: got\n%s\nwant no findings and one clean node", r.stdout)
		}
	})
}

func TestDemoNodePoolAndSelectorChooseTheSameNodes(t *testing.T) {
	byPool := run(t, "demo", "check", "--nodepool", "general", "-o", "json")
	bySelector := run(t, "demo", "check", "-l", "karpenter.sh/nodepool=general", "-o", "json")
	everything := run(t, "demo", "check", "-o", "json")
	pool := decodeReport(t, byPool.stdout)
	sel := decodeReport(t, bySelector.stdout)
	all := decodeReport(t, everything.stdout)
	if diff := cmp.Diff(pool.nodeNames(), sel.nodeNames()); diff != "" {
		t.Errorf("--nodepool general vs -l karpenter.sh/nodepool=general (-nodepool +selector):\n%s", diff)
	}
	if n := len(pool.Nodes); n == 0 || n >= len(all.Nodes) {
		t.Errorf("--nodepool general: got %d nodes, want some but fewer than all %d", n, len(all.Nodes))
	}
	for _, n := range pool.Nodes {
		if n.Identity.NodePool != "general" {
			t.Errorf("node %s is in NodePool %q, want general", n.Identity.Node, n.Identity.NodePool)
		}
	}
	if byPool.code != bySelector.code {
		t.Errorf("exit codes: --nodepool %d, -l %d, want the same", byPool.code, bySelector.code)
	}
}

// TestDemoNodePoolWithoutNodes checks that --nodepool reports the pool's EC2NodeClass even when
// the pool has no node: the demo's staging pool launches none because its class is not Ready.
func TestDemoNodePoolWithoutNodes(t *testing.T) {
	r := run(t, "demo", "check", "--nodepool", "staging", "-o", "json")
	wantCode(t, r, ExitFindings)
	rep := decodeReport(t, r.stdout)
	want := []jsonFinding{{ID: "nodeclass-not-ready", Severity: "critical", Resource: "ec2nodeclass/staging"}}
	if diff := cmp.Diff(want, rep.Findings, cmpopts.IgnoreFields(jsonFinding{}, "Message", "Remedy")); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if len(rep.Nodes) != 0 {
		t.Errorf("nodes: got %v, want none in NodePool staging", rep.nodeNames())
	}
	other := run(t, "demo", "check", "--nodepool", "training", "--skip", "subnet-ip-exhaustion,max-pods-below-ip-capacity", "-o", "json")
	wantCode(t, other, ExitOK)
	if ids := findingIDs(t, other.stdout); len(ids) != 0 {
		t.Errorf("--nodepool training: got findings %v, want none: the staging class is not training's", ids)
	}
}

func TestDemoDescribeBySelector(t *testing.T) {
	r := run(t, "demo", "describe", "node", "-l", "karpenter.sh/nodepool=training", "-o", "json")
	wantCode(t, r, ExitOK)
	rep := decodeReport(t, r.stdout)
	if len(rep.Nodes) == 0 {
		t.Fatal("describe -l karpenter.sh/nodepool=training: got no nodes, want the training nodes")
	}
	for _, n := range rep.Nodes {
		if n.Identity.NodePool != "training" {
			t.Errorf("node %s: NodePool %q, want training", n.Identity.Node, n.Identity.NodePool)
		}
	}
}

// TestDemoCiliumContext checks the demo's second context: its findings are the ones planted in
// it, its NodePool sheet shows the startup taint, and a context the demo does not have is a
// usage error that names the two.
func TestDemoCiliumContext(t *testing.T) {
	r := run(t, "demo", "check", "--context", "demo-cilium", "-o", "json")
	wantCode(t, r, ExitFindings)
	want := []string{"cilium-eni-selection-mismatch", "cilium-max-pods-exceeds-ip-capacity",
		"connection-tracking-not-inherited", "instance-network-allowance-exceeded", "nodepool-startup-taint-missing"}
	if diff := cmp.Diff(want, findingIDs(t, r.stdout)); diff != "" {
		t.Errorf("finding IDs (-want +got):\n%s", diff)
	}
	r = run(t, "demo", "describe", "nodepool", "prefix", "--context", "demo-cilium")
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stdout, "Startup taints:       node.cilium.io/agent-not-ready=true:NoExecute") {
		t.Errorf("the prefix NodePool's sheet does not show its startup taint:\n%s", r.stdout)
	}
	r = run(t, "demo", "check", "--context", "prod")
	wantCode(t, r, ExitUsage)
	if !strings.Contains(r.stderr, `--context "prod": the demo has the contexts demo and demo-cilium`) {
		t.Errorf("stderr %q does not name the demo's contexts", r.stderr)
	}
}
