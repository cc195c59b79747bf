package collect

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeAgentEventList is the JSON of n NetworkingReady warnings about node, a minute apart,
// with a message of about 1 KiB as the node monitoring agent's can be.
func kubeAgentEventList(t testing.TB, node string, n int) []byte {
	t.Helper()
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	pad := strings.Repeat("x", 900)
	list := corev1.EventList{TypeMeta: metav1.TypeMeta{Kind: "EventList", APIVersion: "v1"}}
	for i := range n {
		when := metav1.NewTime(at.Add(time.Duration(i) * time.Minute))
		list.Items = append(list.Items, corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("%s.%06d", node, i)},
			InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: node},
			Reason:         snapshot.ConditionNetworkingReady, Type: corev1.EventTypeWarning, Count: 1,
			Message:        `PPSExceeded: pps_allowance_exceeded increased on interface "ens5" from 0 to 512 ` + pad,
			FirstTimestamp: when, LastTimestamp: when,
		})
	}
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// kubeServeEvents starts an API server that answers every events list with body, and returns
// a clientset of it whose answers are bounded at limit bytes (none when 0).
func kubeServeEvents(t testing.TB, body []byte, limit int64) kubernetes.Interface {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/events" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	cfg := &rest.Config{Host: srv.URL, QPS: -1}
	if limit > 0 {
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return kubeLimitAnswers(rt, limit) })
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return kube
}

// TestKubeAnswerLimit: an answer longer than the bound fails the list with a gap that says so,
// rather than being held; one within it is read whole.
func TestKubeAnswerLimit(t *testing.T) {
	const node = "node-a"
	body := kubeAgentEventList(t, node, 200)
	for _, tc := range []struct {
		name  string
		limit int64
		gap   bool
	}{
		{"within the bound", int64(len(body)), false},
		{"past the bound", int64(len(body)) - 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &snapshot.Snapshot{Nodes: []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: node}}}}
			c := &Collector{Kube: kubeServeEvents(t, body, tc.limit)}
			if err := c.kubeNodeAgentEvents(t.Context(), s, Scope{}); err != nil {
				t.Fatalf("kubeNodeAgentEvents: %v", err)
			}
			if !tc.gap {
				if len(s.Gaps) != 0 || len(s.NodeEvents) != kubeEventsPerObject {
					t.Errorf("gaps %+v, %d events: want none and %d", s.Gaps, len(s.NodeEvents), kubeEventsPerObject)
				}
				return
			}
			want := fmt.Sprintf("the API server's answer to /api/v1/events is longer than %d MiB", tc.limit>>20)
			if len(s.Gaps) != 1 || s.Gaps[0].Source != snapshot.SourceEvents || !strings.HasPrefix(s.Gaps[0].Reason, want) {
				t.Errorf("gaps %+v: want one of events saying %q", s.Gaps, want)
			}
			if s.NodeEvents != nil {
				t.Errorf("%d events kept from an answer cut short", len(s.NodeEvents))
			}
		})
	}
}

func TestKubeUnboundedPath(t *testing.T) {
	for path, want := range map[string]bool{
		"/api/v1/nodes": true, "/apis/karpenter.sh/v1/nodeclaims": true, "/api/v1/events": false,
		"/apis/cilium.io/v2/ciliumnodes": true, "/apis/vpcresources.k8s.aws/v1alpha1/cninodes": true,
		"/api/v1/nodes/ip-10-0-1-10": false, "/apis/networking.k8s.aws/v1alpha1/clusternetworkpolicies": false,
		"/api/v1/namespaces/default/configmaps/nodeclaims": false,
	} {
		if got := kubeUnboundedPath(path); got != want {
			t.Errorf("kubeUnboundedPath(%q) = %v, want %v", path, got, want)
		}
	}
}

// BenchmarkKubeNodeAgentEvents reads n NetworkingReady events about one node from an API server
// through a real clientset, with the answer bound of a live run and without it, and reports
// the events kept and the peak of the Go heap in use during the read (sampled every
// millisecond, the fixture's heap taken off).
func BenchmarkKubeNodeAgentEvents(b *testing.B) {
	for _, n := range []int{40000, 100000} {
		for _, limit := range []int64{kubeMaxAnswer, 0} {
			b.Run(fmt.Sprintf("events=%d/bound=%dMiB", n, limit>>20), func(b *testing.B) {
				body := kubeAgentEventList(b, "node-a", n)
				kube := kubeServeEvents(b, body, limit)
				b.ReportAllocs()
				runtime.GC()
				var base runtime.MemStats
				runtime.ReadMemStats(&base)
				peak := kubeHeapPeak()
				b.ResetTimer()
				for range b.N {
					s := &snapshot.Snapshot{Nodes: []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}}}
					if err := (&Collector{Kube: kube}).kubeNodeAgentEvents(b.Context(), s, Scope{}); err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(len(s.NodeEvents)), "kept")
					b.ReportMetric(float64(len(s.Gaps)), "gaps")
				}
				b.StopTimer()
				b.ReportMetric(float64(len(body))/(1<<20), "answer-MiB")
				b.ReportMetric(float64(peak()-base.HeapInuse)/(1<<20), "peak-heap-MiB")
			})
		}
	}
}

// kubeHeapPeak samples the heap in use every millisecond until the returned function is
// called, which returns the largest sample.
func kubeHeapPeak() func() uint64 {
	done := make(chan struct{})
	out := make(chan uint64)
	go func() {
		var peak uint64
		var m runtime.MemStats
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-done:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		return <-out
	}
}
