package collect

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/karpnet/kubectl-karpnet/internal/kubestream"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeProtoNodeList encodes a NodeList of the named nodes as the API server answers in
// protobuf, with cont as its continue token and remaining as its remainingItemCount.
func kubeProtoNodeList(t testing.TB, cont string, remaining *int64, names ...string) []byte {
	t.Helper()
	list := &corev1.NodeList{ListMeta: metav1.ListMeta{Continue: cont, RemainingItemCount: remaining, ResourceVersion: "42"}}
	for _, name := range names {
		list.Items = append(list.Items, corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"topology.kubernetes.io/zone": "us-west-2a", "karpenter.sh/nodepool": "default"}},
			Spec:       corev1.NodeSpec{ProviderID: "aws:///us-west-2a/i-0" + strings.Repeat("1", 16)},
			Status: corev1.NodeStatus{
				Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.1.10"}},
				Images:    []corev1.ContainerImage{{Names: []string{"public.ecr.aws/eks/pause:3.10"}, SizeBytes: 300000}},
			},
		})
	}
	enc := scheme.Codecs.EncoderForVersion(protobuf.NewSerializer(scheme.Scheme, scheme.Scheme), corev1.SchemeGroupVersion)
	body, err := runtime.Encode(enc, list)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// TestKubeNodePagesAskForTheNextPageWhileDecoding serves three protobuf pages and holds the
// visit of the first until the server has been asked for the second: only a reader that
// requests a page before it has visited the one before gets through. Every node is visited,
// in order.
func TestKubeNodePagesAskForTheNextPageWhileDecoding(t *testing.T) {
	asked := make(chan string, 8)
	pages := map[string][]byte{
		"":   kubeProtoNodeList(t, "p2", nil, "a", "b"),
		"p2": kubeProtoNodeList(t, "p3", nil, "c", "d"),
		"p3": kubeProtoNodeList(t, "", nil, "e"),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cont := r.URL.Query().Get("continue")
		if r.URL.Query().Get("limit") != "1" { // not the first request, of one node, for the count
			asked <- cont
		}
		w.Header().Set("Content-Type", runtime.ContentTypeProtobuf)
		_, _ = w.Write(pages[cont])
	}))
	defer srv.Close()
	kube, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	c := &Collector{Kube: kube, REST: kube.CoreV1().RESTClient(), PageSize: 2}
	var visited []string
	err = c.kubeNodePages(context.Background(), "", func(p *kubeNodePage) error {
		if len(visited) == 0 {
			<-asked // the first page
			select {
			case cont := <-asked:
				if cont != "p2" {
					return fmt.Errorf("asked for %q while the first page was visited, want p2", cont)
				}
			case <-time.After(10 * time.Second):
				return fmt.Errorf("the second page was not asked for while the first was visited")
			}
		}
		nodes, err := p.decode(nil, func(*corev1.Node) bool { return true })
		for _, n := range nodes {
			visited = append(visited, n.Name)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(visited, []string{"a", "b", "c", "d", "e"}) {
		t.Fatalf("visited %v, want a to e in order", visited)
	}
}

// TestKubeNodePagesStopWhenAVisitFails: a visit that fails ends the list with its error, and
// the page being fetched ahead is given up, not left running.
func TestKubeNodePagesStopWhenAVisitFails(t *testing.T) {
	pages := map[string][]byte{"": kubeProtoNodeList(t, "p2", nil, "a"), "p2": kubeProtoNodeList(t, "", nil, "b")}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", runtime.ContentTypeProtobuf)
		_, _ = w.Write(pages[r.URL.Query().Get("continue")])
	}))
	defer srv.Close()
	kube, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	c := &Collector{Kube: kube, REST: kube.CoreV1().RESTClient(), PageSize: 1}
	visits := 0
	err = c.kubeNodePages(context.Background(), "", func(*kubeNodePage) error {
		visits++
		return fmt.Errorf("visit %d failed", visits)
	})
	if err == nil || err.Error() != "visit 1 failed" || visits != 1 {
		t.Fatalf("got %v after %d visits, want the first visit's error after one", err, visits)
	}
}

// TestKubeNodePagesReadAlikeThroughEveryClient serves the node list in protobuf pages, then
// as JSON, then as JSON that does not decode, and reads it with a client that records its
// answers (RecordKubeAnswers), one that does not, and Request.Do's decode of the same answer:
// the nodes, the errors and the number of requests (one a page, and one first for the count)
// are the same, and the recording client's page buffers are reused.
func TestKubeNodePagesReadAlikeThroughEveryClient(t *testing.T) {
	pages := map[string][]byte{"": kubeProtoNodeList(t, "p2", nil, "a", "b"), "p2": kubeProtoNodeList(t, "", nil, "c")}
	jsonList := `{"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"j"},"spec":{"providerID":"aws:///us-west-2a/i-0123456789abcdef0"}}]}`
	for _, tc := range []struct {
		name     string
		serve    func(w http.ResponseWriter, r *http.Request)
		want     []string
		wantErr  string
		requests int
	}{
		{"protobuf", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", runtime.ContentTypeProtobuf)
			_, _ = w.Write(pages[r.URL.Query().Get("continue")])
		}, []string{"a", "b", "c"}, "", 3},
		{"JSON", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(jsonList))
		}, []string{"j"}, "", 2},
		{"broken JSON", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"kind":"NodeList","items":[{"metadata":{"name":1}}]}`))
		}, nil, "json: cannot unmarshal number into Go struct field", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			requests := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				requests++
				mu.Unlock()
				tc.serve(w, r)
			}))
			defer srv.Close()
			var last *Collector
			for _, recorded := range []bool{true, false} {
				cfg := &rest.Config{Host: srv.URL, QPS: -1}
				if recorded {
					cfg.Wrap(RecordKubeAnswers)
				}
				kube, err := kubernetes.NewForConfig(cfg)
				if err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				requests = 0
				mu.Unlock()
				c := &Collector{Kube: kube, REST: kube.CoreV1().RESTClient(), PageSize: 2}
				last = c
				var got []string
				err = c.kubeNodePages(t.Context(), "", func(p *kubeNodePage) error {
					nodes, err := p.decode(nil, func(*corev1.Node) bool { return true })
					for _, n := range nodes {
						got = append(got, n.Name)
					}
					return err
				})
				switch {
				case tc.wantErr == "" && err != nil:
					t.Fatalf("recorded %t: %v", recorded, err)
				case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
					t.Fatalf("recorded %t: error %v, want one with %q", recorded, err, tc.wantErr)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("recorded %t: nodes %v, want %v", recorded, got, tc.want)
				}
				if requests != tc.requests {
					t.Errorf("recorded %t: %d requests, want %d", recorded, requests, tc.requests)
				}
				// What Request.Do makes of the first answer, for comparison.
				page, doErr := kubeNodePageOf(kube.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes").UseProtobufAsDefaultIfPreferred(true).Do(t.Context()))
				if (doErr == nil) != (tc.wantErr == "") || (doErr != nil && !strings.Contains(doErr.Error(), tc.wantErr)) {
					t.Errorf("Request.Do's decode: %v", doErr)
				}
				if page != nil && len(page.items)+len(page.nodes) == 0 {
					t.Errorf("Request.Do's decode: an empty page")
				}
			}
			if tc.name == "protobuf" {
				size := 0
				_, err := kubestream.StreamNodeList(bufio.NewReader(bytes.NewReader(pages[""])), 0, nil, func(p *kubestream.NodePage) error {
					for _, item := range p.Items {
						size += len(item)
					}
					return nil
				})
				if err != nil || size == 0 {
					t.Fatalf("the first page: %d bytes of nodes, %v", size, err)
				}
				if last.kubePages.longest.Load() < int64(size) {
					t.Errorf("longest page recorded %d bytes, want at least the %d of the first page's nodes", last.kubePages.longest.Load(), size)
				}
			}
		})
	}
}

// TestKubeNodesMakeRoomOnceForTheNodesCounted: the nodes the first request counts get their
// room in one allocation, not by doubling as the pages come; a count past kubeNodesPresized (a
// server that lies) makes room for that many only, and the list still grows to what it holds.
func TestKubeNodesMakeRoomOnceForTheNodesCounted(t *testing.T) {
	for _, tc := range []struct {
		name      string
		remaining int64
		wantCap   int
	}{
		{"the count", 4, 5},
		{"a count past the bound", 1 << 40, kubeNodesPresized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			remaining := tc.remaining
			pages := map[string][]byte{
				"":   kubeProtoNodeList(t, "p2", nil, "a", "b"),
				"p2": kubeProtoNodeList(t, "p3", nil, "c", "d"),
				"p3": kubeProtoNodeList(t, "", nil, "e"),
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", runtime.ContentTypeProtobuf)
				if r.URL.Query().Get("limit") == "1" {
					_, _ = w.Write(kubeProtoNodeList(t, "more", &remaining, "a"))
					return
				}
				_, _ = w.Write(pages[r.URL.Query().Get("continue")])
			}))
			defer srv.Close()
			kube, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, QPS: -1})
			if err != nil {
				t.Fatal(err)
			}
			c := &Collector{Kube: kube, REST: kube.CoreV1().RESTClient(), PageSize: 2}
			var s snapshot.Snapshot
			if err := c.kubeNodes(context.Background(), &s, Scope{}, nil); err != nil {
				t.Fatal(err)
			}
			if len(s.Nodes) != 5 || cap(s.Nodes) != tc.wantCap {
				t.Fatalf("read %d nodes into room for %d, want 5 into room for %d", len(s.Nodes), cap(s.Nodes), tc.wantCap)
			}
		})
	}
}

// TestKubeNodePageDecodesEachNodeIntoRoomOfItsOwn: nodes are decoded into the list's room past
// its length as it is; a node dropped (or that fails to decode) leaves that room zero, so the
// next node decoded there carries nothing of it.
func TestKubeNodePageDecodesEachNodeIntoRoomOfItsOwn(t *testing.T) {
	encode := func(n *corev1.Node) []byte {
		b, err := n.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	dropped := encode(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "dropped", Labels: map[string]string{"only": "dropped"}},
		Spec: corev1.NodeSpec{ProviderID: "aws:///us-west-2a/i-0aaaaaaaaaaaaaaaa"}})
	kept := encode(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "kept"}})
	p := &kubeNodePage{items: [][]byte{dropped, kept, {0xff, 0xff}, kept}}
	out, err := p.decode(make([]corev1.Node, 0, 8), func(n *corev1.Node) bool { return n.Name != "dropped" })
	if err == nil {
		t.Fatal("a node that does not decode: no error")
	}
	if len(out) != 1 || out[0].Name != "kept" || out[0].Labels != nil || out[0].Spec.ProviderID != "" {
		t.Fatalf("decoded %+v, want the kept node alone, nothing of the dropped one", out)
	}
	// The room of the node that failed is zero again: the next page decodes into it cleanly.
	p = &kubeNodePage{items: [][]byte{kept}}
	out, err = p.decode(out, func(*corev1.Node) bool { return true })
	if err != nil || len(out) != 2 || out[1].Name != "kept" || out[1].Labels != nil {
		t.Fatalf("decoded %+v, %v; want a second clean kept node", out, err)
	}
}
