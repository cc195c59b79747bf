package collect

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	kube := k8sfake.NewClientset(
		event("a", "node-a", "NetworkingReady", conntrack, 3),
		event("b", "node-a", "NetworkingReady", "MissingDefaultRoutes: no default route", 1),        // not an allowance
		event("c", "node-b", "NetworkingReady", "PPSExceeded: pps_allowance_exceeded increased", 1), // a node not read
		event("d", "node-a", "NodeNotReady", "PPSExceeded: look-alike", 1),
	)
	s := &snapshot.Snapshot{Nodes: []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}}}
	if err := (&Collector{Kube: kube}).kubeNodeAgentEvents(t.Context(), s, Scope{}); err != nil {
		t.Fatalf("kubeNodeAgentEvents: %v", err)
	}
	want := []snapshot.KubeEvent{{Kind: "Node", Name: "node-a", Type: "Warning", Reason: "NetworkingReady", Message: conntrack,
		Count: 3, First: at, Last: at.Add(20 * time.Minute)}}
	if diff := cmp.Diff(want, s.NodeEvents); diff != "" {
		t.Errorf("node events (-want +got):\n%s", diff)
	}
}
