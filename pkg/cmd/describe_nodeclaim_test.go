package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostiletext"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// liveFailedClaim is a NodeClaim of the live cluster whose launch failed.
const liveFailedClaim = "general-f4il3"

// withFailedClaim adds to the cluster a NodeClaim of NodePool general whose launch failed for
// want of capacity: it has no providerID and no Node.
func withFailedClaim(t *testing.T, c *liveCluster) {
	t.Helper()
	claim := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
		"metadata": map[string]any{
			"name": liveFailedClaim, "creationTimestamp": "2026-11-20T09:26:00Z",
			"labels": map[string]any{"karpenter.sh/nodepool": "general", "karpenter.k8s.aws/ec2nodeclass": "default"},
		},
		"spec": map[string]any{"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}},
		"status": map[string]any{"conditions": []any{
			map[string]any{"type": "Launched", "status": "False", "reason": "InsufficientCapacityError",
				"message":            "creating instance, insufficient capacity, InsufficientInstanceCapacity: We currently do not have sufficient m6i.large capacity in us-west-2a.",
				"lastTransitionTime": "2026-11-20T09:27:00Z"},
		}},
	}}
	gvr := schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"}
	if err := c.dyn.Tracker().Create(gvr, claim, ""); err != nil {
		t.Fatalf("creating NodeClaim %s: %v", liveFailedClaim, err)
	}
}

func TestLiveDescribeNodeClaim(t *testing.T) {
	c := newLiveCluster(t)
	withFailedClaim(t, c)

	r := c.run(t, "describe", "nodeclaim", liveFailedClaim)
	wantCode(t, r, ExitOK)
	testutil.Assert(t, filepath.Join("testdata", "live-describe-nodeclaim.table.golden"), r.stdout)

	r = c.run(t, "describe", "nodeclaim", liveFailedClaim, "-o", "json")
	wantCode(t, r, ExitOK)
	var got diagnose.NodeClaimReport
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("decoding -o json: %v\n%s", err, r.stdout)
	}
	if got.Name != liveFailedClaim || got.Status != diagnose.ClaimLaunchFailed || len(got.Findings) == 0 ||
		got.Findings[0].ID != "nodeclaim-launch-failed" {
		t.Errorf("-o json: got %+v, want %s, launch failed, with its nodeclaim-launch-failed finding", got, liveFailedClaim)
	}

	r = c.run(t, "describe", "nodeclaim", liveFailedClaim, "-o", "yaml")
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stdout, "name: "+liveFailedClaim+"\n") || !strings.Contains(r.stdout, "status: launch failed\n") {
		t.Errorf("-o yaml: got\n%s\nwant the NodeClaim's name and status", r.stdout)
	}
}

func TestLiveDescribeNodeClaimNotDescribed(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{name: "unknown name", args: []string{"no-such-claim"}, code: ExitUsage,
			want: []string{`nodeclaim "no-such-claim" not found`, "kubectl get nodeclaims"}},
		{name: "a NodeClaim with a Node", args: []string{"general-x7k2p"}, code: ExitUsage,
			want: []string{"has Node " + liveNodeA, "kubectl karpnet describe node " + liveNodeA}},
		{name: "a NodeClaim with a Node, json", args: []string{"general-x7k2p", "-o", "json"}, code: ExitUsage,
			want: []string{"kubectl karpnet describe node " + liveNodeA}},
		{name: "no name", args: nil, code: ExitUsage, want: []string{"name a NodeClaim", "kubectl get nodeclaims"}},
		{name: "two names", args: []string{liveFailedClaim, "general-x7k2p"}, code: ExitUsage, want: []string{"name one NodeClaim"}},
		{name: "-o wide", args: []string{liveFailedClaim, "-o", "wide"}, code: ExitUsage, want: []string{"-o/--output", "json or yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newLiveCluster(t)
			withFailedClaim(t, c)
			r := c.run(t, append([]string{"describe", "nodeclaim"}, tt.args...)...)
			wantCode(t, r, tt.code)
			if r.stdout != "" {
				t.Errorf("stdout: got %q, want nothing", r.stdout)
			}
			wantOneErrorLine(t, r, tt.want...)
		})
	}
}

func TestDescribeNodeClaimOfTheDemo(t *testing.T) {
	// A NodeClaim of the demo with a Node points to its node's sheet, under demo.
	r := run(t, "demo", "describe", "nodeclaim", "web-mf8z7")
	wantCode(t, r, ExitUsage)
	wantOneErrorLine(t, r, `nodeclaim "web-mf8z7" has Node`, "kubectl karpnet demo describe node i-09b6fa2b0d0d83659")
}

// TestDescribeNodeClaimOfHostileSnapshot names a NodeClaim whose name and Node carry escape
// sequences: the line pointing to the node's sheet shows them escaped.
func TestDescribeNodeClaimOfHostileSnapshot(t *testing.T) {
	path, _ := hostileSnapshot(t)
	back, err := readSnapshotFile(path, 0)
	if err != nil {
		t.Fatalf("reading the snapshot back: %v", err)
	}
	var name string
	for _, c := range back.NodeClaims {
		if c.NodeName != "" {
			name = c.Name
			break
		}
	}
	if name == "" {
		t.Fatal("the hostile snapshot has no NodeClaim with a Node")
	}
	r := run(t, "describe", "nodeclaim", name, "--snapshot", path)
	wantCode(t, r, ExitUsage)
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "error: ") || !strings.Contains(last, "kubectl karpnet describe node") {
		t.Errorf("stderr: got %q, want it to end with the error pointing to describe node", r.stderr)
	}
	if bad := hostiletext.RawControls(r.stderr, false); len(bad) > 0 {
		t.Errorf("stderr: %d raw control characters, e.g. %q", len(bad), bad[0])
	}
}
