package collect

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/karpnet/kubectl-karpnet/internal/kubeobj"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeListServer answers custom resource lists at the given versions, page by page, as the API
// server does, and records every list request's query.
type kubeListServer struct {
	items  map[string][]unstructured.Unstructured // by path
	broken bool                                   // cut every answer short

	mu      *sync.Mutex
	queries *[]string
}

func (k *kubeListServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k.mu.Lock()
	*k.queries = append(*k.queries, r.URL.Path+"?"+r.URL.RawQuery)
	k.mu.Unlock()
	items, ok := k.items[r.URL.Path]
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure",
			"reason": "NotFound", "code": 404, "message": "the server could not find the requested resource"})
		return
	}
	q := r.URL.Query()
	var limit int64
	if l := q.Get("limit"); l != "" {
		_ = json.Unmarshal([]byte(l), &limit)
	}
	start, end, next, err := kubePageBounds(len(items), metav1.ListOptions{Limit: limit, Continue: q.Get("continue")})
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	list := map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodeClaimList",
		"metadata": map[string]any{"continue": next, "resourceVersion": "42"}}
	var objs []any
	for _, u := range items[start:end] {
		objs = append(objs, u.Object)
	}
	list["items"] = objs
	b, _ := json.Marshal(list)
	if k.broken {
		b = b[:len(b)/2]
	}
	_, _ = w.Write(b)
}

func TestStreamedCustomResourceLists(t *testing.T) {
	v1 := kubeLoadList(t, "nodeclaims-v1.yaml")
	v1beta1 := kubeLoadList(t, "nodeclaims-v1beta1.yaml")
	decode := func(items []unstructured.Unstructured) []snapshot.NodeClaim {
		var out []snapshot.NodeClaim
		for i := range items {
			out = append(out, kubeobj.DecodeNodeClaim(&items[i]))
		}
		kubeSortByName(out, func(v *snapshot.NodeClaim) string { return v.Name })
		return out
	}
	const v1Path, v1beta1Path = "/apis/karpenter.sh/v1/nodeclaims", "/apis/karpenter.sh/v1beta1/nodeclaims"
	tests := []struct {
		name        string
		server      kubeListServer
		want        []snapshot.NodeClaim
		wantGaps    []string
		wantQueries []string
	}{
		{
			name:        "v1 in pages of two",
			server:      kubeListServer{items: map[string][]unstructured.Unstructured{v1Path: v1}},
			want:        decode(v1),
			wantQueries: []string{v1Path + "?limit=2&resourceVersion=0", v1Path + "?continue=2&limit=2"},
		},
		{
			name:        "only v1beta1 served",
			server:      kubeListServer{items: map[string][]unstructured.Unstructured{v1beta1Path: v1beta1}},
			want:        decode(v1beta1),
			wantQueries: []string{v1Path + "?limit=2&resourceVersion=0", v1beta1Path + "?limit=2&resourceVersion=0"},
		},
		{
			name:        "no version served",
			server:      kubeListServer{items: map[string][]unstructured.Unstructured{}},
			wantGaps:    []string{snapshot.SourceNodeClaims + ": CRD not installed (karpenter.sh v1/v1beta1)"},
			wantQueries: []string{v1Path + "?limit=2&resourceVersion=0", v1beta1Path + "?limit=2&resourceVersion=0"},
		},
		{
			name:   "answer cut short",
			server: kubeListServer{items: map[string][]unstructured.Unstructured{v1Path: v1}, broken: true},
			wantGaps: []string{snapshot.SourceNodeClaims +
				": the API server answered with something that is not a Kubernetes nodeclaims list: unexpected EOF"},
			wantQueries: []string{v1Path + "?limit=2&resourceVersion=0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var queries []string
			tt.server.mu, tt.server.queries = &sync.Mutex{}, &queries
			ts := httptest.NewServer(&tt.server)
			defer ts.Close()
			kube, err := kubernetes.NewForConfig(&rest.Config{Host: ts.URL})
			if err != nil {
				t.Fatal(err)
			}
			c := &Collector{REST: kube.CoreV1().RESTClient(), PageSize: 2}
			s := &snapshot.Snapshot{}
			var got []snapshot.NodeClaim
			err = c.kubeReadCRD(t.Context(), s, kubeNodeClaimsCRD(), false, nil, kubeKarpenterRemedy,
				func(u *unstructured.Unstructured) { got = append(got, kubeobj.DecodeNodeClaim(u)) })
			if err != nil {
				t.Fatalf("kubeReadCRD: %v", err)
			}
			kubeSortByName(got, func(v *snapshot.NodeClaim) string { return v.Name })
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("NodeClaims (-want +got):\n%s", diff)
			}
			var gaps []string
			for _, g := range s.Gaps {
				gaps = append(gaps, g.Source+": "+g.Reason)
			}
			if diff := cmp.Diff(tt.wantGaps, gaps); diff != "" {
				t.Errorf("gaps (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantQueries, queries); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}
