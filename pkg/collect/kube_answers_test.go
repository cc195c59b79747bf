package collect

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostile"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubePortal is what a captive portal or a proxy's login page answers instead of the API server.
const kubePortal = "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>\x1b[2JSign in</body></html>"

// TestCollectKubeNodeAnswersThatAreNotKubernetes reads nodes from a server that answers
// something else: collection ends saying that the server answered, with what, and what to
// check, never that it could not be reached.
func TestCollectKubeNodeAnswersThatAreNotKubernetes(t *testing.T) {
	const named = "ip-10-0-1-10.us-west-2.compute.internal"
	for _, tc := range []struct {
		name        string
		scope       Scope
		status      int
		contentType string
		body        string
		want        []string
	}{
		{"HTML node list", Scope{}, http.StatusOK, "text/html; charset=utf-8", kubePortal, []string{
			"cannot list nodes: the API server answered (HTTP 200, text/html; charset=utf-8) with something that is not a Kubernetes node list",
			"check the server URL of --context/--kubeconfig and any proxy in front of the API server"}},
		{"broken JSON node list", Scope{}, http.StatusOK, "application/json", `{"kind":"NodeList","items":[{"metadata":{"name":1}}]}`, []string{
			"cannot list nodes: the API server answered (HTTP 200, application/json) with something that is not a Kubernetes node list: json: cannot unmarshal",
			"any proxy in front of the API server"}},
		{"HTML node get", Scope{Names: []string{named}}, http.StatusOK, "text/html", kubePortal, []string{
			`cannot get node "` + named + `": the API server answered (HTTP 200, text/html) with something that is not a Kubernetes node`}},
		{"HTML 500 node get", Scope{Names: []string{named}}, http.StatusInternalServerError, "text/html", kubePortal, []string{
			`cannot get node "` + named + `": the API server failed (HTTP 500 InternalError: an error on the server`,
			`\x1b[2JSign in`, "retry later"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := kubeHostile(t)
			k.Body("/api/v1/nodes", tc.status, tc.contentType, tc.body)
			_, err := kubeCollect(t, kubeHostileCollector(t, k, 0, 0), tc.scope)
			if !errors.Is(err, ErrNodesUnreadable) || errors.Is(err, ErrAPIServer) || errors.Is(err, ErrNodeNotFound) {
				t.Fatalf("error: got %v, want one wrapping ErrNodesUnreadable only", err)
			}
			msg := err.Error()
			for _, want := range tc.want {
				if !strings.Contains(msg, want) {
					t.Errorf("error:\n%s\nwant it to contain %q", msg, want)
				}
			}
			if strings.ContainsAny(msg, "\x1b\n") || strings.Contains(msg, "cannot reach") {
				t.Errorf("error %q: want one line, control characters escaped, and no 'cannot reach'", msg)
			}
		})
	}
}

// TestCollectKubeSourceFailuresAreGaps fails every source but the nodes in the ways a real API
// server or what stands in front of it does: each becomes a gap saying what happened, and the
// nodes are read.
func TestCollectKubeSourceFailuresAreGaps(t *testing.T) {
	crds := []string{"/apis/karpenter.sh/", "/apis/karpenter.k8s.aws/", "/apis/crd.k8s.amazonaws.com/"}
	for _, tc := range []struct {
		name  string
		fault func(*hostile.Kube)
		want  map[string]string // gap source -> a part of its reason
	}{
		{"slow custom resources", func(k *hostile.Kube) {
			for _, p := range crds {
				k.Delay(p, time.Minute)
			}
		}, map[string]string{
			snapshot.SourceNodeClaims: "timeout: no answer in time", snapshot.SourceNodePools: "timeout: no answer in time",
			snapshot.SourceNodeClasses: "timeout: no answer in time", snapshot.SourceENIConfigs: "timeout: no answer in time",
		}},
		{"slow events and aws-node", func(k *hostile.Kube) {
			k.Delay("/api/v1/events", time.Minute)
			k.Delay("/apis/apps/", time.Minute)
		}, map[string]string{snapshot.SourceEvents: "timeout", snapshot.SourceAWSNode: "timeout"}},
		{"HTML custom resource lists", func(k *hostile.Kube) {
			for _, p := range crds {
				k.Body(p, http.StatusOK, "text/html", kubePortal)
			}
		}, map[string]string{
			snapshot.SourceNodeClaims: "the API server answered with something that is not a Kubernetes nodeclaims list",
			snapshot.SourceENIConfigs: "not a Kubernetes eniconfigs list",
		}},
		{"HTML events", func(k *hostile.Kube) { k.Body("/api/v1/events", http.StatusOK, "text/html", kubePortal) },
			map[string]string{snapshot.SourceEvents: "the API server answered with something that is not a Kubernetes object: serializer for text/html doesn't exist"}},
		{"HTML 500 aws-node", func(k *hostile.Kube) { k.Body("/apis/apps/", http.StatusInternalServerError, "text/html", kubePortal) },
			map[string]string{snapshot.SourceAWSNode: "InternalError"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := kubeHostile(t)
			tc.fault(k)
			start := time.Now()
			s, err := kubeCollect(t, kubeHostileCollector(t, k, time.Second, 0), Scope{})
			if err != nil {
				t.Fatalf("collectKube: got error %v, want gaps", err)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("collection took %s, want each slow source to give up after the 1s request timeout", d)
			}
			if len(s.Nodes) != 3 {
				t.Errorf("nodes: got %d, want the 3 of the fixture", len(s.Nodes))
			}
			for source, part := range tc.want {
				i := slices.IndexFunc(s.Gaps, func(g snapshot.Gap) bool { return g.Source == source })
				if i < 0 {
					t.Errorf("gaps %+v: want one for %s", s.Gaps, source)
					continue
				}
				g := s.Gaps[i]
				if !strings.Contains(g.Reason, part) {
					t.Errorf("gap for %s: got reason %q, want it to contain %q", source, g.Reason, part)
				}
				if strings.ContainsAny(g.Reason+g.Remedy, "\x1b\n") {
					t.Errorf("gap for %s: %q / %q, want control characters escaped", source, g.Reason, g.Remedy)
				}
			}
		})
	}
}
