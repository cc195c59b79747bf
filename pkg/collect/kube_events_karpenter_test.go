package collect

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/karpnet/kubectl-karpnet/internal/kubeobj"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeEvent returns an Event about kind/name in namespace default.
func kubeEvent(name, apiVersion, kind, object, reason, msg string, count int32, last time.Time) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: name, Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{APIVersion: apiVersion, Kind: kind, Name: object},
		Type:           corev1.EventTypeWarning, Reason: reason, Message: msg, Count: count,
		LastTimestamp: metav1.NewTime(last),
	}
}

func TestCollectKubeKarpenterEvents(t *testing.T) {
	t0 := kubeTime(t, "2026-08-20T12:00:00Z")
	var objs []runtime.Object
	// Twelve retries of one NodeClaim's launch: the ten newest are kept.
	for i := range 12 {
		objs = append(objs, kubeEvent(fmt.Sprintf("ice-%02d", i), "karpenter.sh/v1", "NodeClaim", "default-x7k2p",
			"InsufficientCapacityError", fmt.Sprintf("attempt %d", i), 1, t0.Add(time.Duration(i)*time.Minute)))
	}
	series := kubeEvent("np-health", "karpenter.sh/v1", "NodePool", "default", "Unhealthy", "registration failed", 2, time.Time{})
	series.EventTime = metav1.NewMicroTime(t0)
	series.Series = &corev1.EventSeries{Count: 9, LastObservedTime: metav1.NewMicroTime(t0.Add(time.Hour))}
	objs = append(objs, series,
		kubeEvent("no-version", "", "NodeClaim", "gpu-9fq3m", "Launched", "launched", 0, t0),
		kubeEvent("pod", "v1", "Pod", "web", "FailedScheduling", "no nodes", 3, t0),
		kubeEvent("other-group", "example.com/v1", "NodeClaim", "default-x7k2p", "Other", "not ours", 1, t0))
	kube := k8sfake.NewClientset(objs...)
	s := snapshot.New(t0)
	if err := (&Collector{Kube: kube}).kubeKarpenterEvents(t.Context(), s, Scope{}); err != nil {
		t.Fatalf("kubeKarpenterEvents: %v", err)
	}
	var want []snapshot.KubeEvent
	for i := 2; i < 12; i++ {
		want = append(want, snapshot.KubeEvent{Kind: "NodeClaim", Name: "default-x7k2p", Type: "Warning",
			Reason: "InsufficientCapacityError", Message: fmt.Sprintf("attempt %d", i), Count: 1,
			Last: t0.Add(time.Duration(i) * time.Minute)})
	}
	want = append(want,
		snapshot.KubeEvent{Kind: "NodeClaim", Name: "gpu-9fq3m", Type: "Warning", Reason: "Launched", Message: "launched", Count: 1, Last: t0},
		snapshot.KubeEvent{Kind: "NodePool", Name: "default", Type: "Warning", Reason: "Unhealthy", Message: "registration failed",
			Count: 9, Last: t0.Add(time.Hour)})
	if diff := cmp.Diff(want, s.Events); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	if len(s.Gaps) != 0 {
		t.Errorf("gaps = %v, want none", s.Gaps)
	}
	var selectors []string
	for _, a := range kube.Actions() {
		if la, ok := a.(clienttesting.ListActionImpl); ok {
			selectors = append(selectors, la.ListOptions.FieldSelector+" rv="+la.ListOptions.ResourceVersion)
		}
	}
	wantSel := []string{"involvedObject.kind=NodeClaim rv=0", "involvedObject.kind=NodePool rv=0"}
	if diff := cmp.Diff(wantSel, selectors); diff != "" {
		t.Errorf("event lists mismatch (-want +got):\n%s", diff)
	}
}

func TestCollectKubeKarpenterEventsDenied(t *testing.T) {
	kube, dyn := kubeFixture(t)
	kube.PrependReactor("list", "events", func(a clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "events"}, "", fmt.Errorf("denied"))
	})
	s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, Scope{})
	if err != nil {
		t.Fatalf("collectKube: %v", err)
	}
	var got []snapshot.Gap
	for _, g := range s.Gaps {
		if g.Source == snapshot.SourceEvents {
			got = append(got, g)
		}
	}
	want := []snapshot.Gap{{Source: snapshot.SourceEvents, Reason: "forbidden",
		Remedy: "grant list on events (core, all namespaces) (see the ClusterRole in docs/permissions.md)"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events gaps mismatch (-want +got):\n%s", diff)
	}
	if s.Events != nil {
		t.Errorf("events = %v, want none", s.Events)
	}
}

func TestKubeDecodeNodeClaimTimes(t *testing.T) {
	created := kubeTime(t, "2026-08-20T10:00:00Z")
	deleting := kubeTime(t, "2026-08-20T10:15:00Z")
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
		"metadata": map[string]any{"name": "default-x7k2p"}}}
	if got := kubeobj.DecodeNodeClaim(u); !got.Created.IsZero() || !got.Deleting.IsZero() {
		t.Errorf("times of a claim without timestamps = %v, %v; want zero", got.Created, got.Deleting)
	}
	u.SetCreationTimestamp(metav1.NewTime(created.In(time.FixedZone("PDT", -7*3600))))
	d := metav1.NewTime(deleting)
	u.SetDeletionTimestamp(&d)
	got := kubeobj.DecodeNodeClaim(u)
	if !got.Created.Equal(created) || got.Created.Location() != time.UTC {
		t.Errorf("Created = %v, want %v in UTC", got.Created, created)
	}
	if !got.Deleting.Equal(deleting) {
		t.Errorf("Deleting = %v, want %v", got.Deleting, deleting)
	}
}
