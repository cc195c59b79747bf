package diagnose

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestCountText(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{{0, "0 prefixes"}, {1, "1 prefix"}, {4, "4 prefixes"}} {
		if got := countText(tc.n, "prefix", "prefixes"); got != tc.want {
			t.Errorf("countText(%d, prefix, prefixes) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if got, want := countText(2, "pod", "pods"), "2 pods"; got != want {
		t.Errorf("countText of an int = %q, want %q", got, want)
	}
}

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "check IDs"}, {1, "check ID"}, {2, "check IDs"}} {
		if got := plural(tc.n, "check ID", "check IDs"); got != tc.want {
			t.Errorf("plural(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestAbbreviate(t *testing.T) {
	for _, tc := range []struct {
		items []string
		want  string
	}{
		{nil, ""},
		{[]string{"a", "b", "c", "d"}, "a, b, c, d"},
		{[]string{"a", "b", "c", "d", "e"}, "a, b, c and 2 more"},
	} {
		if got := abbreviate(tc.items, 3); got != tc.want {
			t.Errorf("abbreviate(%q, 3) = %q, want %q", tc.items, got, tc.want)
		}
	}
}

func TestSortedUniqueAndKeys(t *testing.T) {
	in := []string{"b", "", "a", "b"}
	if diff := cmp.Diff([]string{"a", "b"}, sortedUnique(in)); diff != "" {
		t.Errorf("sortedUnique (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b", "", "a", "b"}, in); diff != "" {
		t.Errorf("sortedUnique changed its input (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"x", "y"}, sortedKeys(map[string]int{"y": 1, "x": 2})); diff != "" {
		t.Errorf("sortedKeys (-want +got):\n%s", diff)
	}
}

func TestFindCondition(t *testing.T) {
	conds := []snapshot.Condition{{Type: "Ready", Status: "False"}, {Type: "SubnetsReady", Status: "True"}}
	if got := findCondition(conds, "SubnetsReady"); got == nil || got.Status != "True" {
		t.Errorf("findCondition(SubnetsReady) = %+v, want the SubnetsReady condition", got)
	}
	if got := findCondition(conds, "Drifted"); got != nil {
		t.Errorf("findCondition(Drifted) = %+v, want nil", got)
	}
}

func TestNodeZoneAndPodsCapacity(t *testing.T) {
	labelled := &NodeInfo{Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Labels: map[string]string{corev1.LabelTopologyZone: "us-east-1b"}}}}
	if got := nodeZone(labelled); got != "us-east-1b" {
		t.Errorf("nodeZone without an instance = %q, want the label's us-east-1b", got)
	}
	withInstance := &NodeInfo{Node: labelled.Node, Instance: &snapshot.Instance{Zone: "us-east-1a"}}
	if got := nodeZone(withInstance); got != "us-east-1a" {
		t.Errorf("nodeZone with an instance = %q, want the instance's us-east-1a", got)
	}
	if _, ok := podsCapacity(labelled); ok {
		t.Error("podsCapacity of a node without capacity.pods is ok, want false")
	}
	labelled.Node.Status.Capacity = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("29")}
	if got, ok := podsCapacity(labelled); !ok || got != 29 {
		t.Errorf("podsCapacity = %d, %v, want 29, true", got, ok)
	}
}
