package cmd

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostile"
)

// TestHostileKubePaging runs check against an API server whose node continue tokens cycle: the
// run ends at the first token seen again, with a gap for the node list and the nodes read.
func TestHostileKubePaging(t *testing.T) {
	for _, args := range [][]string{{"check", "-o", "json"}, {"check", "-o", "json", "--request-timeout", "2s"}} {
		h := newHostileCluster(t)
		h.Kube.Page("/api/v1/nodes", hostile.CycleTokens)
		r, took := h.run(t, args...)
		wantCode(t, r, ExitOK)
		wantWithin(t, took, 10*time.Second)
		rep := decodeReport(t, r.stdout)
		wantGap(t, rep, "nodes", "continue token already followed", "proxy")
		if diff := cmp.Diff([]string{liveNodeA, liveNodeB}, rep.nodeNames()); diff != "" {
			t.Errorf("nodes (-want +got):\n%s", diff)
		}
		if got := h.Kube.Count("/api/v1/nodes"); got != 1+3 {
			t.Errorf("node list requests: got %d, want 4 (one for the count, then three pages: the third token is the first again)", got)
		}
		h.wantReadOnly(t)
	}
}

// TestHostileEC2Paging runs check against an EC2 endpoint whose DescribeInstances NextTokens
// cycle or never end: the calls stop at a token seen again or at the page limit, with a gap
// for DescribeInstances and no instance-not-found, which needs a complete answer.
func TestHostileEC2Paging(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tokens ec2sim.Tokens
		calls  int
		reason string
	}{
		{"cycle", ec2sim.CycleTokens, 3, "NextToken already followed"},
		{"endless", ec2sim.EndlessTokens, 20, "still more after 20 pages"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHostileCluster(t)
			h.EC2.SetTokens(ec2sim.DescribeInstances, tc.tokens)
			r, took := h.run(t, "check", "-o", "json")
			wantCode(t, r, ExitOK)
			wantWithin(t, took, 10*time.Second)
			rep := decodeReport(t, r.stdout)
			wantGap(t, rep, "ec2:DescribeInstances", tc.reason)
			wantNoFinding(t, rep, "instance-not-found")
			if got := h.EC2.Count(ec2sim.DescribeInstances); got != tc.calls {
				t.Errorf("DescribeInstances calls: got %d, want %d", got, tc.calls)
			}
			h.wantReadOnly(t)
		})
	}
}
