package collect

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeFailing is a reactor that answers verb on resource with err.
type kubeFailing struct {
	dynamic  bool // on the dynamic client, else the typed one
	verb     string
	resource string // "daemonsets/aws-node": only a get of that object fails
	err      error
}

// install prepends the reactor to the matching fake.
func (f kubeFailing) install(kube, dyn interface {
	PrependReactor(string, string, clienttesting.ReactionFunc)
}) {
	target := kube
	if f.dynamic {
		target = dyn
	}
	resource, name, _ := strings.Cut(f.resource, "/")
	target.PrependReactor(f.verb, resource, func(a clienttesting.Action) (bool, runtime.Object, error) {
		if g, ok := a.(clienttesting.GetAction); ok && name != "" && g.GetName() != name {
			return false, nil, nil
		}
		return true, nil, f.err
	})
}

func kubeForbidden(group, resource string) error {
	return apierrors.NewForbidden(schema.GroupResource{Group: group, Resource: resource}, "",
		errors.New(`User "system:serviceaccount:ops:karpnet" cannot list resource`))
}

func TestCollectKubeForbiddenIsGap(t *testing.T) {
	const named = "ip-10-0-1-10.us-west-2.compute.internal"
	for _, tc := range []struct {
		name  string
		scope Scope
		fail  kubeFailing
		want  snapshot.Gap
	}{
		{"list nodeclaims", Scope{}, kubeFailing{true, "list", "nodeclaims", kubeForbidden("karpenter.sh", "nodeclaims")},
			snapshot.Gap{Source: snapshot.SourceNodeClaims, Reason: "forbidden", Remedy: "grant list on nodeclaims.karpenter.sh (see the ClusterRole in docs/permissions.md)"}},
		{"list nodepools", Scope{}, kubeFailing{true, "list", "nodepools", kubeForbidden("karpenter.sh", "nodepools")},
			snapshot.Gap{Source: snapshot.SourceNodePools, Reason: "forbidden", Remedy: "grant list on nodepools.karpenter.sh (see the ClusterRole in docs/permissions.md)"}},
		{"get ec2nodeclasses", Scope{Names: []string{named}}, kubeFailing{true, "get", "ec2nodeclasses", kubeForbidden("karpenter.k8s.aws", "ec2nodeclasses")},
			snapshot.Gap{Source: snapshot.SourceNodeClasses, Reason: "forbidden", Remedy: "grant get on ec2nodeclasses.karpenter.k8s.aws (see the ClusterRole in docs/permissions.md)"}},
		{"list eniconfigs", Scope{}, kubeFailing{true, "list", "eniconfigs", kubeForbidden("crd.k8s.amazonaws.com", "eniconfigs")},
			snapshot.Gap{Source: snapshot.SourceENIConfigs, Reason: "forbidden", Remedy: "grant list on eniconfigs.crd.k8s.amazonaws.com (see the ClusterRole in docs/permissions.md)"}},
		{"get aws-node", Scope{}, kubeFailing{false, "get", "daemonsets/aws-node", kubeForbidden("apps", "daemonsets")},
			snapshot.Gap{Source: snapshot.SourceAWSNode, Reason: "forbidden", Remedy: "grant get on daemonsets.apps in kube-system (see the ClusterRole in docs/permissions.md)"}},
		{"get cilium", Scope{}, kubeFailing{false, "get", "daemonsets/cilium", kubeForbidden("apps", "daemonsets")},
			snapshot.Gap{Source: snapshot.SourceCilium, Reason: "forbidden", Remedy: "grant get on daemonsets.apps in kube-system (see the ClusterRole in docs/permissions.md)"}},
		{"get both daemonsets", Scope{}, kubeFailing{false, "get", "daemonsets", kubeForbidden("apps", "daemonsets")},
			snapshot.Gap{Source: snapshot.SourceAWSNode, Reason: "forbidden", Remedy: "grant get on daemonsets.apps in kube-system (see the ClusterRole in docs/permissions.md)"}},
		{"list events", Scope{}, kubeFailing{false, "list", "events", kubeForbidden("", "events")},
			snapshot.Gap{Source: snapshot.SourceEvents, Reason: "forbidden", Remedy: "grant list on events (core, all namespaces) (see the ClusterRole in docs/permissions.md)"}},
		{"server error", Scope{}, kubeFailing{true, "list", "nodepools", apierrors.NewInternalError(errors.New("etcd timeout"))},
			snapshot.Gap{Source: snapshot.SourceNodePools, Reason: "InternalError",
				Remedy: "retry later; the API server answered list nodepools.karpenter.sh: Internal error occurred: etcd timeout"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube, dyn := kubeFixture(t)
			tc.fail.install(kube, dyn)
			s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, tc.scope)
			if err != nil {
				t.Fatalf("collectKube: got error %v, want a gap", err)
			}
			want := []snapshot.Gap{tc.want}
			if tc.name == "get both daemonsets" {
				want = append(want, snapshot.Gap{Source: snapshot.SourceCilium, Reason: "forbidden",
					Remedy: "grant get on daemonsets.apps in kube-system (see the ClusterRole in docs/permissions.md)"})
			}
			if diff := cmp.Diff(want, s.Gaps); diff != "" {
				t.Errorf("gaps mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCollectKubeNodesUnreadable checks that nodes that cannot be read end collection with
// what to do, never a gap: a report of no node would pass a CI gate on nothing.
func TestCollectKubeNodesUnreadable(t *testing.T) {
	const named = "ip-10-0-1-10.us-west-2.compute.internal"
	internal := apierrors.NewInternalError(errors.New("etcd timeout"))
	for _, tc := range []struct {
		name    string
		scope   Scope
		fail    kubeFailing
		wantMsg string
	}{
		{"list forbidden", Scope{}, kubeFailing{false, "list", "nodes", kubeForbidden("", "nodes")},
			`cannot list nodes: forbidden (nodes is forbidden: User "system:serviceaccount:ops:karpnet" cannot list resource): ` +
				"grant get/list on nodes (see the ClusterRole in docs/permissions.md)"},
		{"list forbidden with a selector", Scope{Selector: "karpenter.sh/nodepool=default"}, kubeFailing{false, "list", "nodes", kubeForbidden("", "nodes")},
			`cannot list nodes: forbidden (nodes is forbidden: User "system:serviceaccount:ops:karpnet" cannot list resource): ` +
				"grant get/list on nodes (see the ClusterRole in docs/permissions.md)"},
		{"get forbidden", Scope{Names: []string{named}}, kubeFailing{false, "get", "nodes", kubeForbidden("", "nodes")},
			`cannot get node "` + named + `": forbidden (nodes is forbidden: User "system:serviceaccount:ops:karpnet" cannot list resource): ` +
				"grant get on nodes (see the ClusterRole in docs/permissions.md)"},
		{"list server error", Scope{}, kubeFailing{false, "list", "nodes", internal},
			"cannot list nodes: the API server failed (HTTP 500 InternalError: Internal error occurred: etcd timeout): " +
				"retry later, or check the API server's health"},
		{"get server error", Scope{Names: []string{named}}, kubeFailing{false, "get", "nodes", internal},
			`cannot get node "` + named + `": the API server failed (HTTP 500 InternalError: Internal error occurred: etcd timeout): ` +
				"retry later, or check the API server's health"},
		{"list bad request", Scope{}, kubeFailing{false, "list", "nodes", apierrors.NewBadRequest("unable to parse requirement")},
			"cannot list nodes: the API server answered HTTP 400 BadRequest (unable to parse requirement): check --context/--kubeconfig"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube, dyn := kubeFixture(t)
			tc.fail.install(kube, dyn)
			_, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, tc.scope)
			if !errors.Is(err, ErrNodesUnreadable) {
				t.Fatalf("error: got %v, want one wrapping ErrNodesUnreadable", err)
			}
			if errors.Is(err, ErrNodeNotFound) {
				t.Errorf("error %v reads as a node that does not exist", err)
			}
			if got := err.Error(); got != tc.wantMsg {
				t.Errorf("error:\ngot  %q\nwant %q", got, tc.wantMsg)
			}
		})
	}
}

func TestCollectKubeFatalErrors(t *testing.T) {
	refused := &url.Error{Op: "Get", URL: "https://10.0.0.1:6443/api/v1/nodes?limit=500",
		Err: errors.New("dial tcp 10.0.0.1:6443: connect: connection refused")}
	for _, tc := range []struct {
		name      string
		cluster   string
		fail      kubeFailing
		wantIs    []error
		wantNotIs []error
		wantMsg   string
	}{
		{"unauthorized", "", kubeFailing{false, "list", "nodes", apierrors.NewUnauthorized("Unauthorized")},
			[]error{ErrAPIServer}, nil,
			"the API server refused the credentials: Unauthorized: log in again or check --user"},
		{"unauthorized on a custom resource", "", kubeFailing{true, "list", "nodepools", apierrors.NewUnauthorized("Unauthorized")},
			[]error{ErrAPIServer}, nil,
			"the API server refused the credentials: Unauthorized: log in again or check --user"},
		{"connection refused", "", kubeFailing{false, "list", "nodes", refused},
			[]error{ErrAPIServer}, nil,
			"cannot reach the API server at https://10.0.0.1:6443: dial tcp 10.0.0.1:6443: connect: connection refused: check --context/--kubeconfig"},
		{"timeout without a URL", "https://ABC.gr7.us-west-2.eks.amazonaws.com", kubeFailing{false, "list", "nodes", context.DeadlineExceeded},
			[]error{ErrAPIServer, context.DeadlineExceeded}, nil,
			"cannot reach the API server at https://ABC.gr7.us-west-2.eks.amazonaws.com: context deadline exceeded: check --context/--kubeconfig"},
		{"cancelled", "", kubeFailing{false, "list", "nodes", context.Canceled},
			[]error{context.Canceled}, []error{ErrAPIServer},
			"reading nodes: context canceled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube, dyn := kubeFixture(t)
			tc.fail.install(kube, dyn)
			_, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn, Cluster: tc.cluster}, Scope{})
			if err == nil {
				t.Fatal("collectKube: got no error, want one")
			}
			if got := err.Error(); got != tc.wantMsg {
				t.Errorf("error: got %q, want %q", got, tc.wantMsg)
			}
			for _, target := range tc.wantIs {
				if !errors.Is(err, target) {
					t.Errorf("errors.Is(%v, %v) = false, want true", err, target)
				}
			}
			for _, target := range tc.wantNotIs {
				if errors.Is(err, target) {
					t.Errorf("errors.Is(%v, %v) = true, want false", err, target)
				}
			}
		})
	}
}

func TestCollectKubeNodeNotFound(t *testing.T) {
	for _, tc := range []struct {
		names   []string
		wantMsg string
	}{
		{[]string{"ip-10-0-1-10.us-west-2.compute.internal", "ip-10-9-9-9"},
			`node "ip-10-9-9-9" not found: list nodes with kubectl get nodes`},
		{[]string{"a", "b"}, `nodes "a", "b" not found: list nodes with kubectl get nodes`},
	} {
		t.Run(strings.Join(tc.names, ","), func(t *testing.T) {
			kube, dyn := kubeFixture(t)
			_, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, Scope{Names: tc.names})
			if !errors.Is(err, ErrNodeNotFound) {
				t.Fatalf("error: got %v, want one wrapping ErrNodeNotFound", err)
			}
			if errors.Is(err, ErrAPIServer) {
				t.Errorf("a missing node reads as an unreachable API server: %v", err)
			}
			if got := err.Error(); got != tc.wantMsg {
				t.Errorf("error: got %q, want %q", got, tc.wantMsg)
			}
		})
	}
}
