package collect

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// BenchmarkKubeKarpenterEventsHostile lists 50,000 events of 1 KiB about 1,000 NodeClaims
// (50 each, a NodeClaim retried for hours), answered in one page as the watch cache does:
// karpnet keeps the newest kubeEventsPerObject of each.
func BenchmarkKubeKarpenterEventsHostile(b *testing.B) {
	const claims, perClaim = 1000, 50
	t0 := time.Date(2026, 8, 20, 12, 0, 0, 0, time.UTC)
	msg := strings.Repeat("x", 1024)
	list := &corev1.EventList{}
	for c := range claims {
		for i := range perClaim {
			list.Items = append(list.Items, *kubeEvent(fmt.Sprintf("e-%d-%d", c, i), "karpenter.sh/v1", "NodeClaim",
				fmt.Sprintf("default-%04d", c), "InsufficientCapacityError", msg, 1, t0.Add(time.Duration(i)*time.Minute)))
		}
	}
	kube := k8sfake.NewClientset()
	kube.PrependReactor("list", "events", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.(clienttesting.ListActionImpl).ListOptions.FieldSelector == "involvedObject.kind=NodeClaim" {
			return true, list.DeepCopy(), nil
		}
		return true, &corev1.EventList{ListMeta: metav1.ListMeta{}}, nil
	})
	c := &Collector{Kube: kube}
	b.ReportAllocs()
	var kept int
	for b.Loop() {
		s := snapshot.New(t0)
		if err := c.kubeKarpenterEvents(b.Context(), s, Scope{}); err != nil {
			b.Fatal(err)
		}
		kept = len(s.Events)
	}
	if want := claims * min(perClaim, kubeEventsPerObject); kept != want {
		b.Fatalf("kept %d events, want %d", kept, want)
	}
	b.ReportMetric(float64(kept), "events-kept")
}
