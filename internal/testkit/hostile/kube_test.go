package hostile

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

func testObjects() []unstructured.Unstructured {
	node := func(name, pool string) unstructured.Unstructured {
		return unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Node",
			"metadata": map[string]any{"name": name, "labels": map[string]any{"karpenter.sh/nodepool": pool}},
		}}
	}
	return []unstructured.Unstructured{
		node("c", "general"), node("a", "general"), node("b", "gpu"),
		{Object: map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": "general"}}},
		{Object: map[string]any{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": map[string]any{"name": "aws-node", "namespace": "kube-system"}}},
		{Object: map[string]any{"apiVersion": "v1", "kind": "Event", "reason": "FailedCreatePodSandBox", "metadata": map[string]any{"name": "e1", "namespace": "default"}}},
		{Object: map[string]any{"apiVersion": "v1", "kind": "Event", "reason": "Scheduled", "metadata": map[string]any{"name": "e2", "namespace": "default"}}},
	}
}

func clients(t *testing.T, k *Kube, timeout time.Duration) (kubernetes.Interface, dynamic.Interface) {
	t.Helper()
	cfg := &rest.Config{Host: k.Start(t), Timeout: timeout}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return kube, dyn
}

func names(list *unstructured.UnstructuredList) []string {
	var out []string
	for _, u := range list.Items {
		out = append(out, u.GetName())
	}
	return out
}

func TestKubeServesWhatCollectionReads(t *testing.T) {
	k := NewKube(testObjects()...)
	k.Serve("crd.k8s.amazonaws.com/v1alpha1", "ENIConfig")
	kube, dyn := clients(t, k, 0)
	ctx := t.Context()

	page, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 2 || page.Items[0].Name != "a" || page.Continue == "" {
		t.Fatalf("first page: got %d nodes from %q, continue %q; want a, b and a token", len(page.Items), page.Items[0].Name, page.Continue)
	}
	rest, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: 2, Continue: page.Continue})
	if err != nil || len(rest.Items) != 1 || rest.Items[0].Name != "c" || rest.Continue != "" {
		t.Fatalf("second page: got %v, %v; want c and no token", rest, err)
	}
	gpu, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "karpenter.sh/nodepool=gpu"})
	if err != nil || len(gpu.Items) != 1 || gpu.Items[0].Name != "b" {
		t.Fatalf("label selector: got %v, %v; want node b", gpu, err)
	}
	if n, err := kube.CoreV1().Nodes().Get(ctx, "b", metav1.GetOptions{}); err != nil || n.Name != "b" {
		t.Fatalf("get node b: got %v, %v", n, err)
	}
	if _, err := kube.CoreV1().Nodes().Get(ctx, "z", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get node z: got %v, want NotFound", err)
	}
	if ds, err := kube.AppsV1().DaemonSets("kube-system").Get(ctx, "aws-node", metav1.GetOptions{}); err != nil || ds.Name != "aws-node" {
		t.Fatalf("get aws-node: got %v, %v", ds, err)
	}
	events, err := kube.CoreV1().Events("").List(ctx, metav1.ListOptions{FieldSelector: "reason=FailedCreatePodSandBox", Limit: 1, ResourceVersion: "0"})
	if err != nil || len(events.Items) != 1 || events.Items[0].Name != "e1" {
		t.Fatalf("events by reason: got %v, %v; want e1", events, err)
	}
	pools, err := dyn.Resource(schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}).
		List(ctx, metav1.ListOptions{Limit: 1, ResourceVersion: "0"})
	if err != nil || cmp.Diff([]string{"general"}, names(pools)) != "" {
		t.Fatalf("nodepools: got %v, %v; want general", pools, err)
	}
	eni, err := dyn.Resource(schema.GroupVersionResource{Group: "crd.k8s.amazonaws.com", Version: "v1alpha1", Resource: "eniconfigs"}).
		List(ctx, metav1.ListOptions{})
	if err != nil || len(eni.Items) != 0 {
		t.Fatalf("served empty eniconfigs: got %v, %v; want an empty list", eni, err)
	}
	_, err = dyn.Resource(schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1beta1", Resource: "nodeclaims"}).
		List(ctx, metav1.ListOptions{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("a resource not served: got %v, want NotFound", err)
	}
	for _, r := range k.Requests() {
		if r.Method != http.MethodGet {
			t.Errorf("request %s %s: want only GETs from a reader", r.Method, r.Path)
		}
	}
	if got := k.Count("/api/v1/nodes"); got != 5 {
		t.Errorf("requests under /api/v1/nodes: got %d, want 5", got)
	}
}

func TestKubeFaults(t *testing.T) {
	list := func(kube kubernetes.Interface, token string) (*metav1.ListMeta, error) {
		l, err := kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{Limit: 1, Continue: token})
		if err != nil {
			return nil, err
		}
		return &l.ListMeta, nil
	}
	t.Run("cycling tokens", func(t *testing.T) {
		k := NewKube(testObjects()...)
		k.Page("/api/v1/nodes", CycleTokens)
		kube, _ := clients(t, k, 0)
		var got []string
		token := ""
		for range 4 {
			m, err := list(kube, token)
			if err != nil {
				t.Fatal(err)
			}
			token = m.Continue
			got = append(got, token)
		}
		if diff := cmp.Diff([]string{"cycle-a", "cycle-b", "cycle-a", "cycle-b"}, got); diff != "" {
			t.Errorf("tokens (-want +got):\n%s", diff)
		}
	})
	t.Run("endless tokens", func(t *testing.T) {
		k := NewKube(testObjects()...)
		k.Page("/api/v1/nodes", EndlessTokens)
		kube, _ := clients(t, k, 0)
		seen := map[string]bool{}
		token := ""
		for range 5 {
			m, err := list(kube, token)
			if err != nil {
				t.Fatal(err)
			}
			if token = m.Continue; token == "" || seen[token] {
				t.Fatalf("token %q: want a new one on every page", token)
			}
			seen[token] = true
		}
	})
	t.Run("status failures", func(t *testing.T) {
		k := NewKube(testObjects()...)
		k.Fail("/api/v1/nodes", http.StatusForbidden)
		k.Fail("/apis/apps/", http.StatusInternalServerError)
		kube, _ := clients(t, k, 0)
		if _, err := list(kube, ""); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "nodes is forbidden") {
			t.Errorf("node list: got %v, want Forbidden", err)
		}
		if _, err := kube.CoreV1().Nodes().Get(t.Context(), "a", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
			t.Errorf("node get: got %v, want Forbidden under the same prefix", err)
		}
		if _, err := kube.AppsV1().DaemonSets("kube-system").Get(t.Context(), "aws-node", metav1.GetOptions{}); !apierrors.IsInternalError(err) {
			t.Errorf("aws-node: got %v, want InternalError", err)
		}
	})
	t.Run("raw body", func(t *testing.T) {
		k := NewKube(testObjects()...)
		k.Body("/api/", http.StatusOK, "text/html", "<html><body>sign in</body></html>")
		kube, _ := clients(t, k, 0)
		_, err := list(kube, "")
		var status apierrors.APIStatus
		if err == nil || errors.As(err, &status) || !strings.Contains(err.Error(), "text/html") {
			t.Errorf("node list: got %v, want a decoding error naming text/html", err)
		}
	})
	t.Run("slow", func(t *testing.T) {
		k := NewKube(testObjects()...)
		k.Delay("/apis/", time.Minute)
		kube, dyn := clients(t, k, 200*time.Millisecond)
		if _, err := list(kube, ""); err != nil {
			t.Errorf("node list outside the slow prefix: %v", err)
		}
		start := time.Now()
		_, err := dyn.Resource(schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}).List(t.Context(), metav1.ListOptions{})
		if err == nil || time.Since(start) > 10*time.Second {
			t.Errorf("slow nodepools: got %v after %s, want a timeout after 200ms", err, time.Since(start))
		}
		k.Clear()
		if _, err := dyn.Resource(schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}).List(t.Context(), metav1.ListOptions{}); err != nil {
			t.Errorf("after Clear: %v", err)
		}
	})
}
