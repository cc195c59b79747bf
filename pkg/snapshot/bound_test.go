package snapshot_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// hostileLive is a snapshot as a live run reads it from hostile answers: an Event message of
// 1.2 MB, a 5 MB cilium-config value, an annotation of 200 KiB of '<' (1.2 MB once escaped in
// JSON), 110,000 events, numbers no object has. Its healthy twins (a 64 KiB message, a
// 3-ENI type, capacity.pods 29) sit beside each.
func hostileLive() *snapshot.Snapshot {
	s := snapshot.New(time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC))
	s.Nodes = []corev1.Node{
		{ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-1-5", Annotations: map[string]string{"note": strings.Repeat("<", 200<<10)}},
			Status: corev1.NodeStatus{Capacity: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("99999999999999999999")}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-1-6"},
			Status: corev1.NodeStatus{Capacity: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("29")}}},
	}
	s.Events = make([]snapshot.KubeEvent, 110_000)
	for i := range s.Events {
		s.Events[i] = snapshot.KubeEvent{Kind: "Node", Name: "ip-10-0-1-5", Reason: "NetworkingReady", Count: 1}
	}
	s.Events[0].Message = "Failed to create pod sandbox: " + strings.Repeat("x", 1_200_000)
	s.Events[1].Message = strings.Repeat("y", 64<<10)
	s.Cilium = &snapshot.Cilium{ConfigRead: true, Config: map[string]string{
		snapshot.CiliumKeyIPAM: strings.Repeat("e", 5_000_000), snapshot.CiliumKeyTaintKey: "node.cilium.io/agent-not-ready"}}
	s.InstanceTypes = []snapshot.InstanceType{
		{Name: "c5.large", MaxENIs: 3, IPv4PerENI: 10, NetworkCards: []snapshot.NetworkCard{{MaxENIs: 3}}},
		{Name: "m5.large", MaxENIs: 2147483647, IPv4PerENI: 2147483647},
		{Name: "t3.medium", MaxENIs: -1, IPv4PerENI: 6},
	}
	return s
}

// roundTrip writes s and reads it back, returning the read snapshot and the file's size.
func roundTrip(t *testing.T, s *snapshot.Snapshot) (*snapshot.Snapshot, int, error) {
	t.Helper()
	var buf bytes.Buffer
	if err := snapshot.Write(&buf, s); err != nil {
		t.Fatalf("Write: %v", err)
	}
	n := buf.Len()
	start := time.Now()
	got, err := snapshot.Read(&buf)
	t.Logf("snapshot of %d bytes read in %s (err %v)", n, time.Since(start).Round(time.Millisecond), err)
	return got, n, err
}

// TestBoundReadsBack checks that what a live run keeps reads back: unbounded, the hostile
// snapshot is refused by Read; bounded, it reads back and says what was cut or left out.
func TestBoundReadsBack(t *testing.T) {
	if _, _, err := roundTrip(t, hostileLive()); err == nil {
		t.Fatal("the unbounded hostile snapshot read back: want Read to refuse it, or this test proves nothing")
	}
	s := hostileLive()
	s.Bound()
	got, _, err := roundTrip(t, s)
	if err != nil {
		t.Fatalf("the bounded snapshot: %v", err)
	}
	if n, want := len(got.Events), int(snapshot.MaxElements(snapshot.DefaultMaxBytes)); n != want {
		t.Errorf("events: got %d, want the first %d", n, want)
	}
	if names := typeNames(got.InstanceTypes); !slices.Equal(names, []string{"c5.large"}) {
		t.Errorf("instance types: got %v, want c5.large only: a type with a number out of range is left out", names)
	}
	if _, ok := got.Nodes[0].Status.Capacity[corev1.ResourcePods]; ok {
		t.Errorf("node %s keeps capacity.pods %v: want it left out", got.Nodes[0].Name, got.Nodes[0].Status.Capacity.Pods())
	}
	if p := got.Nodes[1].Status.Capacity.Pods(); p.Value() != 29 {
		t.Errorf("node %s: capacity.pods %v, want 29 kept", got.Nodes[1].Name, p)
	}
	for _, want := range []string{
		"nodes[ip-10-0-1-5].status.capacity.pods: 99999999999999999999 is out of range (0 to 10000000)",
		"instanceTypes[m5.large].maxENIs: 2147483647 is out of range (0 to 1024)",
		"instanceTypes[m5.large].ipv4PerENI: 2147483647 is out of range (0 to 1024)",
		"instanceTypes[t3.medium].maxENIs: -1 is out of range (0 to 1024)",
		"events holds 110,000 elements, more than the 104,857 a snapshot holds: the first 104,857 are kept",
	} {
		if !slices.ContainsFunc(got.Gaps, func(g snapshot.Gap) bool { return strings.Contains(g.Reason, want) }) {
			t.Errorf("gaps %+v: want one saying %q", got.Gaps, want)
		}
	}
	note := strings.Join(got.Notes, "\n")
	for _, want := range []string{"3 strings longer than 1 MiB", "events[0].message (1,200,030 bytes)",
		"cilium.config.ipam (5,000,000 bytes)", "nodes[0].metadata.annotations.note (204,800 bytes, 1,228,800 as JSON)"} {
		if !strings.Contains(note, want) {
			t.Errorf("notes %q: want them to say %q", note, want)
		}
	}
	if m := got.Events[0].Message; !strings.HasPrefix(m, "Failed to create pod sandbox: xxx") ||
		!strings.HasSuffix(m, " [cut by karpnet: 1,134,494 more bytes]") {
		t.Errorf("the cut message: got %q...%q", m[:40], m[len(m)-60:])
	}
	if m := got.Events[1].Message; len(m) != 64<<10 {
		t.Errorf("a 64 KiB message: got %d bytes, want it whole", len(m))
	}
	if v := got.Cilium.Config[snapshot.CiliumKeyTaintKey]; v != "node.cilium.io/agent-not-ready" {
		t.Errorf("cilium-config's taint key: got %q, want it whole", v)
	}
	if a := got.Nodes[0].Annotations["note"]; !strings.HasPrefix(a, "<<<") || len(a) > snapshot.CutString {
		t.Errorf("the annotation of '<': got %d bytes, want it cut to at most %d (its JSON escapes counted)", len(a), snapshot.CutString)
	}
}

// TestBoundLeavesHealthyAlone checks that the demo snapshots, which hold nothing out of
// bounds, are the same once bounded, and that bounding twice changes nothing more.
func TestBoundLeavesHealthyAlone(t *testing.T) {
	for _, context := range demo.Contexts() {
		s, err := demo.SnapshotOf(context)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := demo.SnapshotOf(context)
		s.Bound()
		if diff := cmp.Diff(want, s); diff != "" {
			t.Errorf("a healthy snapshot changed when bounded (-want +got):\n%s", diff)
		}
	}
	s := hostileLive()
	s.Bound()
	gaps, notes := len(s.Gaps), len(s.Notes)
	s.Bound()
	if len(s.Gaps) != gaps || len(s.Notes) != notes {
		t.Errorf("bounding twice: %d gaps and %d notes, want the %d and %d of the first time", len(s.Gaps), len(s.Notes), gaps, notes)
	}
}

func typeNames(types []snapshot.InstanceType) []string {
	var out []string
	for _, t := range types {
		out = append(out, t.Name)
	}
	return out
}

// TestBoundNamesAFewValues checks that a run with thousands of numbers out of range names the
// first 20 in gaps of their own and counts the rest in one more, so hostile answers cannot
// grow the gap list without bound.
func TestBoundNamesAFewValues(t *testing.T) {
	s := snapshot.New(time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC))
	for i := range 5000 {
		s.InstanceTypes = append(s.InstanceTypes, snapshot.InstanceType{Name: fmt.Sprintf("x%d.large", i), MaxENIs: -1})
	}
	s.Bound()
	if len(s.Gaps) != 21 || len(s.InstanceTypes) != 0 {
		t.Fatalf("%d gaps and %d instance types kept, want 21 gaps and none kept", len(s.Gaps), len(s.InstanceTypes))
	}
	if g := s.Gaps[20]; g.Source != snapshot.SourceBound || g.Reason != "4980 more values out of range were left out" {
		t.Errorf("the last gap: got %+v, want it to count the 4980 values not named", g)
	}
}
