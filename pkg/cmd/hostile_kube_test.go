package cmd

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// hostilePortal is what a captive portal or a proxy's login page answers instead of an API.
const hostilePortal = "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>\x1b[2JSign in</body></html>"

// TestHostileSlowCustomResources runs check with --request-timeout 2s against an API server
// whose custom resource lists never answer: each becomes a gap and the report is printed.
func TestHostileSlowCustomResources(t *testing.T) {
	h := newHostileCluster(t)
	for _, p := range []string{"/apis/karpenter.sh/", "/apis/karpenter.k8s.aws/", "/apis/crd.k8s.amazonaws.com/", "/apis/eks.amazonaws.com/"} {
		h.Kube.Delay(p, time.Hour)
	}
	r, took := h.run(t, "check", "-o", "json", "--request-timeout", "2s")
	wantCode(t, r, ExitOK)
	wantWithin(t, took, 20*time.Second)
	rep := decodeReport(t, r.stdout)
	for _, source := range []string{"nodeclaims.karpenter.sh", "nodepools.karpenter.sh", "ec2nodeclasses.karpenter.k8s.aws",
		"eniconfigs.crd.k8s.amazonaws.com"} {
		wantGap(t, rep, source, "timeout: no answer in time", "--request-timeout")
	}
	if rep.Summary.Nodes != 2 {
		t.Errorf("nodes checked: got %d, want 2", rep.Summary.Nodes)
	}
	h.wantReadOnly(t)
}

// TestHostileNodeReadErrors asks for named nodes that the API server refuses or fails to
// give: that is a collection failure (exit 3) saying what to do, not a node that does not
// exist (exit 2), which only a real NotFound is.
func TestHostileNodeReadErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		code int
		fail func(h *hostileCluster)
		want []string
	}{
		{"forbidden", ExitCollect, func(h *hostileCluster) { h.Kube.Fail("/api/v1/nodes/", http.StatusForbidden) },
			[]string{`cannot get node "` + liveNodeA + `": forbidden`, "grant get on nodes (see the ClusterRole in docs/permissions.md)"}},
		{"server error", ExitCollect, func(h *hostileCluster) { h.Kube.Fail("/api/v1/nodes/", http.StatusInternalServerError) },
			[]string{`cannot get node "` + liveNodeA + `": the API server failed (HTTP 500 InternalError`, "retry later"}},
		{"HTML server error", ExitCollect, func(h *hostileCluster) {
			h.Kube.Body("/api/v1/nodes/", http.StatusInternalServerError, "text/html", hostilePortal)
		}, []string{"the API server failed (HTTP 500 InternalError", `\x1b[2JSign in`}},
		{"not found", ExitUsage, func(h *hostileCluster) { h.Kube.Fail("/api/v1/nodes/", http.StatusNotFound) },
			[]string{`node "` + liveNodeA + `" not found`, "kubectl get nodes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, args := range [][]string{{"describe", "node", liveNodeA}, {"check", liveNodeA}} {
				h := newHostileCluster(t)
				tc.fail(h)
				r, took := h.run(t, args...)
				wantCode(t, r, tc.code)
				wantWithin(t, took, 10*time.Second)
				line := wantOneErrorLine(t, r, tc.want...)
				if strings.Contains(line, "\x1b") {
					t.Errorf("%v: error %q: want control characters escaped", args, line)
				}
				if r.stdout != "" {
					t.Errorf("%v: stdout %q, want nothing", args, r.stdout)
				}
				if h.EC2.Total() != 0 {
					t.Errorf("%v: %d EC2 requests, want none without nodes", args, h.EC2.Total())
				}
				h.wantReadOnly(t)
			}
		})
	}
}

// TestHostileNodeListUnreadable runs check against API servers that answer the node list but
// not with nodes: a report of no node is no pass, so the run exits 3 saying what to do. A
// cluster that truly has no node passes.
func TestHostileNodeListUnreadable(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail func(h *hostileCluster)
		want []string
	}{
		{"forbidden everywhere", func(h *hostileCluster) { h.Kube.Fail("/", http.StatusForbidden) },
			[]string{"cannot list nodes: forbidden", "grant get/list on nodes (see the ClusterRole in docs/permissions.md)"}},
		{"server error", func(h *hostileCluster) { h.Kube.Fail("/api/v1/nodes", http.StatusInternalServerError) },
			[]string{"cannot list nodes: the API server failed (HTTP 500 InternalError"}},
		{"HTML login page", func(h *hostileCluster) { h.Kube.Body("/api/v1/nodes", http.StatusOK, "text/html", hostilePortal) },
			[]string{"cannot list nodes: the API server answered (HTTP 200, text/html) with something that is not a Kubernetes node list",
				"--context/--kubeconfig", "proxy"}},
		{"broken JSON", func(h *hostileCluster) {
			h.Kube.Body("/api/v1/nodes", http.StatusOK, "application/json", `{"kind":"NodeList","items":[`)
		},
			[]string{"cannot list nodes: the API server answered (HTTP 200, application/json) with something that is not a Kubernetes node list"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, args := range [][]string{{"check"}, {"check", "-o", "json"}} {
				h := newHostileCluster(t)
				tc.fail(h)
				r, took := h.run(t, args...)
				wantCode(t, r, ExitCollect)
				wantWithin(t, took, 10*time.Second)
				line := wantOneErrorLine(t, r, tc.want...)
				if strings.Contains(line, "cannot reach") {
					t.Errorf("%v: error %q: the server answered, so it was reached", args, line)
				}
				if r.stdout != "" {
					t.Errorf("%v: stdout %q, want no report", args, r.stdout)
				}
				h.wantReadOnly(t)
			}
		})
	}
	t.Run("no node", func(t *testing.T) {
		h := newHostileClusterOf(t, "karpenter.yaml")
		r, _ := h.run(t, "check")
		wantCode(t, r, ExitOK)
		if !strings.Contains(r.stdout, "0 nodes: 0 ok") {
			t.Errorf("stdout:\n%s\nwant a report of 0 nodes", r.stdout)
		}
	})
}
