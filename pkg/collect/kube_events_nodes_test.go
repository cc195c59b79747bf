package collect

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sfake "k8s.io/client-go/kubernetes/fake"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestKubeNodeAgentEvents(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	event := func(name, node, reason, msg string, count int32) *corev1.Event {
		return &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Namespace: "default", Name: name},
			InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: node},
			Reason:         reason, Message: msg, Type: corev1.EventTypeWarning, Count: count,
			FirstTimestamp: metav1.NewTime(at), LastTimestamp: metav1.NewTime(at.Add(20 * time.Minute)),
			Source: corev1.EventSource{Component: "eks-node-monitoring-agent"},
		}
	}
	const conntrack = `ConntrackExceeded: conntrack_allowance_exceeded increased on interface "ens5" from 10 to 2410`
	const combined = "(combined from similar events): " + conntrack
	const pps = `PPSExceeded: pps_allowance_exceeded increased on interface "ens5" from 0 to 512`
	const linkLocal = `LinkLocalExceeded: linklocal_allowance_exceeded increased on interface "ens5" from 0 to 40`
	kube := k8sfake.NewClientset(
		event("a", "node-a", "NetworkingReady", conntrack, 3),
		event("b", "node-a", "NetworkingReady", "MissingDefaultRoutes: no default route", 1),        // not an allowance
		event("c", "node-b", "NetworkingReady", "PPSExceeded: pps_allowance_exceeded increased", 1), // a node not read
		event("d", "node-a", "NodeNotReady", "PPSExceeded: look-alike", 1),
		// client-go's correlator combined the agent's similar warnings: kept, with its count.
		event("e", "node-a", "NetworkingReady", combined, 57),
		// the agent's Info events are Normal: not an allowance it warns of.
		func() *corev1.Event {
			e := event("f", "node-a", "NetworkingReady", pps, 1)
			e.Type = corev1.EventTypeNormal
			return e
		}(),
		// an events.k8s.io event: eventTime first, the series' count and lastObservedTime.
		func() *corev1.Event {
			e := event("g", "node-a", "NetworkingReady", pps, 0)
			e.FirstTimestamp, e.LastTimestamp = metav1.Time{}, metav1.Time{}
			e.EventTime = metav1.NewMicroTime(at.Add(5 * time.Minute))
			e.Series = &corev1.EventSeries{Count: 12, LastObservedTime: metav1.NewMicroTime(at.Add(25 * time.Minute))}
			return e
		}(),
		// a first time after the last one (another writer's clock): first is brought back to last.
		func() *corev1.Event {
			e := event("h", "node-a", "NetworkingReady", linkLocal, 2)
			e.FirstTimestamp = metav1.NewTime(at.Add(30 * time.Minute))
			return e
		}(),
	)
	s := &snapshot.Snapshot{Nodes: []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}}}
	if err := (&Collector{Kube: kube}).kubeNodeAgentEvents(t.Context(), s, Scope{}); err != nil {
		t.Fatalf("kubeNodeAgentEvents: %v", err)
	}
	want := []snapshot.KubeEvent{
		{Kind: "Node", Name: "node-a", Type: "Warning", Reason: "NetworkingReady", Message: combined,
			Count: 57, First: at, Last: at.Add(20 * time.Minute)},
		{Kind: "Node", Name: "node-a", Type: "Warning", Reason: "NetworkingReady", Message: conntrack,
			Count: 3, First: at, Last: at.Add(20 * time.Minute)},
		{Kind: "Node", Name: "node-a", Type: "Warning", Reason: "NetworkingReady", Message: pps,
			Count: 12, First: at.Add(5 * time.Minute), Last: at.Add(25 * time.Minute)},
		{Kind: "Node", Name: "node-a", Type: "Warning", Reason: "NetworkingReady", Message: linkLocal,
			Count: 2, First: at.Add(20 * time.Minute), Last: at.Add(20 * time.Minute)},
	}
	if diff := cmp.Diff(want, s.NodeEvents); diff != "" {
		t.Errorf("node events (-want +got):\n%s", diff)
	}
}

// TestKubeNodeAgentEventsPerNode: of a node's many NetworkingReady warnings the newest
// kubeEventsPerObject are kept, and a note says how many older ones were left out; a node with
// fewer keeps them all.
func TestKubeNodeAgentEventsPerNode(t *testing.T) {
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var objs []runtime.Object
	add := func(node string, n int) {
		for i := range n {
			when := metav1.NewTime(at.Add(time.Duration(i) * time.Minute))
			objs = append(objs, &corev1.Event{
				ObjectMeta:     metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("%s.%05d", node, i)},
				InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: node},
				Reason:         "NetworkingReady", Type: corev1.EventTypeWarning, Count: 1,
				Message:        `PPSExceeded: pps_allowance_exceeded increased on interface "ens5" from 0 to 512`,
				FirstTimestamp: when, LastTimestamp: when,
			})
		}
	}
	add("node-a", 1000)
	add("node-b", 3)
	s := &snapshot.Snapshot{Nodes: []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "node-b"}}}}
	if err := (&Collector{Kube: k8sfake.NewClientset(objs...)}).kubeNodeAgentEvents(t.Context(), s, Scope{}); err != nil {
		t.Fatalf("kubeNodeAgentEvents: %v", err)
	}
	per := map[string]int{}
	for _, e := range s.NodeEvents {
		per[e.Name]++
	}
	if diff := cmp.Diff(map[string]int{"node-a": kubeEventsPerObject, "node-b": 3}, per); diff != "" {
		t.Errorf("events per node (-want +got):\n%s", diff)
	}
	if first := s.NodeEvents[0]; first.Name != "node-a" || !first.Last.Equal(at.Add(990*time.Minute)) {
		t.Errorf("node-a's oldest kept event %s at %s, want the newest ten (from %s)", first.Name, first.Last, at.Add(990*time.Minute))
	}
	want := []string{"events: 990 older NetworkingReady events about 1 node were left out; karpnet keeps the newest 10 of each node"}
	if diff := cmp.Diff(want, s.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}
