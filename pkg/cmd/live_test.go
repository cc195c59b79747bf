package cmd

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestLiveHealthyCluster(t *testing.T) {
	c := newLiveCluster(t)
	r := c.run(t, "check")
	wantCode(t, r, ExitOK)
	if r.stderr != "" {
		t.Errorf("stderr: got %q, want nothing", r.stderr)
	}
	for _, want := range []string{
		"context: live  region: us-west-2  taken: 2026-11-20T09:30:00Z",
		"no findings: every check passed",
		"2 nodes: 2 ok, 0 with warnings, 0 with criticals\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout: got\n%s\nwant it to contain %q", r.stdout, want)
		}
	}

	// Requests must not grow per node: ceil(N/200) DescribeInstances, one call per other kind,
	// one of each network kind and one DescribeNetworkInterfaces of the available interfaces
	// per 200 VPCs, one DescribeInstances by cluster tag (nothing carves prefixes, so no
	// subnet is read for its addresses), and the VPC's DNS: a DescribeVpcs and its two
	// attributes (no DHCP options set).
	const nodes, vpcs = 2, 1
	budget := (nodes+199)/200 + 4 + 5*((vpcs+199)/200) + 1 + (vpcs+199)/200 + 2*vpcs
	if got := c.sim.Total(); got == 0 || got > budget {
		t.Errorf("EC2 requests: got %d, want between 1 and %d", got, budget)
	}
	if got := c.sim.Count(ec2sim.DescribeInstances); got != 2 {
		t.Errorf("DescribeInstances requests: got %d, want 2 (by ID, by cluster tag)", got)
	}
	for _, req := range c.sim.Requests() {
		if req.Region != "us-west-2" {
			t.Errorf("%s was signed for Region %q, want us-west-2", req.Action, req.Region)
		}
	}
}

// TestLiveJoinsEveryNode checks that the report joins each node with its Karpenter objects
// and EC2 data, so "clean" means the checks ran, not that data was missing.
func TestLiveJoinsEveryNode(t *testing.T) {
	c := newLiveCluster(t)
	r := c.run(t, "check", "-o", "json")
	wantCode(t, r, ExitOK)
	rep := decodeReport(t, r.stdout)
	if diff := cmp.Diff([]string{liveNodeA, liveNodeB}, rep.nodeNames()); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	if rep.Summary.Nodes != 2 || rep.Summary.Clean != 2 || len(rep.Findings) != 0 || len(rep.Gaps) != 0 {
		t.Errorf("summary %+v, %d findings, %d gaps: want 2 clean nodes, no findings, no gaps",
			rep.Summary, len(rep.Findings), len(rep.Gaps))
	}
	for _, n := range rep.Nodes {
		if n.Identity.NodePool != "general" || n.Status != "ok" {
			t.Errorf("node %s: NodePool %q status %q, want general and ok", n.Identity.Node, n.Identity.NodePool, n.Status)
		}
	}
	sheet := c.run(t, "describe", "node", liveNodeB)
	wantCode(t, sheet, ExitOK)
	for _, want := range []string{"node/" + liveNodeB, "i-0a1b2c3d4e5f60002 (running)", "NodeClaim:     general-q9m4t",
		"Selected by EC2NodeClass: yes", "Matches EC2NodeClass: yes"} {
		if !strings.Contains(sheet.stdout, want) {
			t.Errorf("describe node %s: got\n%s\nwant it to contain %q", liveNodeB, sheet.stdout, want)
		}
	}
}

func TestLiveUnknownNodePoolOrClass(t *testing.T) {
	for _, args := range [][]string{{"--nodeclass", "gpu"}, {"--nodepool", "gpu"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := newLiveCluster(t).run(t, append([]string{"check"}, args...)...)
			wantCode(t, r, ExitUsage)
			if !strings.Contains(r.stderr, `"gpu" not found`) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("stderr: got %q, want one line saying gpu is not found", r.stderr)
			}
		})
	}
}

func TestLiveSelection(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{name: "named node", args: []string{liveNodeA}, want: []string{liveNodeA}},
		{name: "selector", args: []string{"-l", "karpenter.sh/capacity-type=spot"}, want: []string{liveNodeB}},
		{name: "nodepool", args: []string{"--nodepool", "general"}, want: []string{liveNodeA, liveNodeB}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newLiveCluster(t)
			r := c.run(t, append([]string{"check", "-o", "json"}, tt.args...)...)
			wantCode(t, r, ExitOK)
			if diff := cmp.Diff(tt.want, decodeReport(t, r.stdout).nodeNames()); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("named node that does not exist", func(t *testing.T) {
		c := newLiveCluster(t)
		r := c.run(t, "check", liveNodeA, "ip-10-9-9-9.us-west-2.compute.internal")
		wantCode(t, r, ExitUsage)
		wantOneErrorLine(t, r, `"ip-10-9-9-9.us-west-2.compute.internal" not found`)
		if r.stdout != "" || c.sim.Total() != 0 {
			t.Errorf("got stdout %q and %d EC2 requests, want neither", r.stdout, c.sim.Total())
		}
	})
}

func TestLiveEC2Unauthorized(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{name: "default fail-on", args: nil, code: ExitOK},
		{name: "fail on warning", args: []string{"--fail-on", "warning"}, code: ExitFindings},
		{name: "skip data-unavailable", args: []string{"--skip", "data-unavailable", "--fail-on", "warning"}, code: ExitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newLiveCluster(t)
			c.sim.Fail(ec2sim.DescribeSubnets, "UnauthorizedOperation", 0)
			r := c.run(t, append([]string{"check", "-o", "json"}, tt.args...)...)
			wantCode(t, r, tt.code)
			rep := decodeReport(t, r.stdout)
			if !slices.ContainsFunc(rep.Gaps, func(g jsonGap) bool { return g.Source == "ec2:DescribeSubnets" }) {
				t.Errorf("gaps: got %+v, want one for ec2:DescribeSubnets", rep.Gaps)
			}
			var unavailable []jsonFinding
			for _, f := range rep.Findings {
				if f.ID == "data-unavailable" {
					unavailable = append(unavailable, f)
				} else {
					t.Errorf("finding %s (%s): want only data-unavailable when subnets cannot be read", f.ID, f.Message)
				}
			}
			skipped := slices.Contains(tt.args, "data-unavailable")
			if skipped {
				if len(unavailable) != 0 {
					t.Errorf("data-unavailable findings: got %d, want none with --skip data-unavailable", len(unavailable))
				}
				return
			}
			if len(unavailable) != 1 {
				t.Fatalf("data-unavailable findings: got %d, want 1: %+v", len(unavailable), rep.Findings)
			}
			f := unavailable[0]
			if f.Severity != "warning" || !strings.Contains(f.Message, "ec2:DescribeSubnets") ||
				!strings.Contains(f.Message, "UnauthorizedOperation") || !strings.Contains(f.Remedy, "ec2:DescribeSubnets") {
				t.Errorf("data-unavailable: got %+v, want a warning naming ec2:DescribeSubnets, the error and the permission", f)
			}
		})
	}
	t.Run("text", func(t *testing.T) {
		c := newLiveCluster(t)
		c.sim.Fail(ec2sim.DescribeSubnets, "UnauthorizedOperation", 0)
		r := c.run(t, "check", "--fail-on", "warning")
		wantCode(t, r, ExitFindings)
		if !strings.Contains(r.stdout, "data-unavailable  ec2:DescribeSubnets") {
			t.Errorf("stdout: got\n%s\nwant the data-unavailable finding for ec2:DescribeSubnets", r.stdout)
		}
		if r.stderr != "" {
			t.Errorf("stderr: got %q, want nothing: a gap is a finding, not an error", r.stderr)
		}
	})
}

// TestLiveWithoutAWS checks that a missing AWS configuration is a finding, not a failure.
func TestLiveWithoutAWS(t *testing.T) {
	c := newLiveCluster(t)
	o, _, _ := newTestOptions()
	o.newCollector = func(ctx context.Context, o *commonOptions) (*collect.Collector, error) {
		col, err := c.collector()(ctx, o)
		if err != nil {
			return nil, err
		}
		col.EC2 = nil
		return col, nil
	}
	r := runWith(t, o, "check", "-o", "json", "--fail-on", "warning")
	wantCode(t, r, ExitFindings)
	if diff := cmp.Diff([]string{"data-unavailable"}, findingIDs(t, r.stdout)); diff != "" {
		t.Errorf("finding IDs (-want +got):\n%s", diff)
	}
	if c.sim.Total() != 0 {
		t.Errorf("EC2 requests: got %d, want none without an EC2 client", c.sim.Total())
	}
}

func TestLiveSaveAndReplay(t *testing.T) {
	for _, file := range []string{"live.json", "live.json.gz"} {
		t.Run(file, func(t *testing.T) {
			c := newLiveCluster(t)
			c.sim.Fail(ec2sim.DescribeSecurityGroups, "UnauthorizedOperation", 0)
			path := filepath.Join(t.TempDir(), file)
			saved := c.run(t, "check", "-o", "wide", "--fail-on", "warning", "--save-snapshot", path)
			wantCode(t, saved, ExitFindings)
			if want := "snapshot saved to " + path + "\n"; saved.stderr != want {
				t.Errorf("stderr: got %q, want %q", saved.stderr, want)
			}
			requests := c.sim.Total()

			// The default test collector fails: a replay must not collect.
			replayed := run(t, "check", "-o", "wide", "--fail-on", "warning", "--snapshot", path)
			wantCode(t, replayed, saved.code)
			if replayed.stdout != saved.stdout {
				t.Errorf("replay stdout:\n%s\nwant the output of the live run:\n%s", replayed.stdout, saved.stdout)
			}
			if !strings.Contains(replayed.stdout, "ec2:DescribeSecurityGroups") {
				t.Errorf("replay stdout: got\n%s\nwant the gap saved with the snapshot", replayed.stdout)
			}
			if c.sim.Total() != requests {
				t.Errorf("EC2 requests: %d after the replay, want still %d", c.sim.Total(), requests)
			}
			sheetLive := c.run(t, "describe", "node", liveNodeA)
			sheetSaved := run(t, "describe", "node", liveNodeA, "--snapshot", path)
			if sheetSaved.stdout != sheetLive.stdout || sheetSaved.code != ExitOK {
				t.Errorf("describe from the snapshot (exit %d):\n%s\nwant the live sheet:\n%s", sheetSaved.code, sheetSaved.stdout, sheetLive.stdout)
			}
		})
	}
}

func TestLiveClusterNameFlag(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"from the kubeconfig", nil, "live"},
		{"from --cluster-name", []string{"--cluster-name", "prod-east"}, "prod-east"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newLiveCluster(t)
			path := filepath.Join(t.TempDir(), "snap.json")
			r := c.run(t, append([]string{"check", "--save-snapshot", path}, tc.args...)...)
			wantCode(t, r, ExitOK)
			f, err := os.Open(path)
			if err != nil {
				t.Fatalf("opening the snapshot: %v", err)
			}
			defer f.Close()
			s, err := snapshot.Read(f)
			if err != nil {
				t.Fatalf("reading the snapshot: %v", err)
			}
			if s.ClusterName != tc.want {
				t.Errorf("clusterName: got %q, want %q", s.ClusterName, tc.want)
			}
			searched := false
			for _, req := range c.sim.Requests() {
				if v := req.Filters["tag:kubernetes.io/cluster/"+tc.want]; req.Action == ec2sim.DescribeInstances && len(v) == 1 && v[0] == "owned" {
					searched = true
				}
			}
			if !searched {
				t.Errorf("no DescribeInstances by tag:kubernetes.io/cluster/%s=owned; requests %+v", tc.want, c.sim.Requests())
			}
		})
	}
}
