package cmd

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/hostile"
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
		if got := h.Kube.Count("/api/v1/nodes"); got != 3 {
			t.Errorf("node list requests: got %d, want 3 (the third token is the first again)", got)
		}
		h.wantReadOnly(t)
	}
}
