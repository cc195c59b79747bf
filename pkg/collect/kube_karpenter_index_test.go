package collect

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestKubeKarpenterIndexClaimFor(t *testing.T) {
	claims := []snapshot.NodeClaim{
		{Name: "a", NodeName: "node-b", ProviderID: "aws:///z/i-a"},
		{Name: "b", NodeName: "node-b", ProviderID: "aws:///z/i-b"},
		{Name: "c", ProviderID: "aws:///z/i-c"},
		{Name: "d"},
		{Name: "c", NodeName: "node-c2"},
	}
	node := func(name, providerID, owner string) corev1.Node {
		n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID}}
		if owner != "" {
			n.OwnerReferences = []metav1.OwnerReference{{APIVersion: "karpenter.sh/v1", Kind: "NodeClaim", Name: owner}}
		}
		return n
	}
	tests := []struct {
		name string
		node corev1.Node
		want int // position in claims, -1 for none
	}{
		{"owner", node("node-b", "", "d"), 3},
		{"first claim of a repeated owner name", node("node-c2", "", "c"), 2},
		{"unknown owner falls back to the node name", node("node-b", "", "x"), 0},
		{"first claim naming the node", node("node-b", "", ""), 0},
		{"earlier providerID before a later node name", node("node-c2", "aws:///z/i-c", ""), 2},
		{"earlier node name before a later providerID", node("node-b", "aws:///z/i-b", ""), 0},
		{"providerID only", node("other", "aws:///z/i-b", ""), 1},
		{"empty name and providerID match no claim", node("", "", ""), -1},
		{"no claim", node("other", "aws:///z/i-x", ""), -1},
	}
	x := kubeIndexClaims(claims)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := -1
			c := x.claimFor(&tt.node)
			for i := range claims {
				if c == &claims[i] {
					got = i
				}
			}
			if c != nil && got < 0 {
				t.Fatalf("claimFor returned a claim outside the indexed slice: %+v", c)
			}
			if got != tt.want {
				t.Errorf("claimFor = claims[%d], want claims[%d]", got, tt.want)
			}
		})
	}
}

func TestKubeKarpenterIndexClassRef(t *testing.T) {
	ec2 := func(name string) snapshot.NodeClassRef {
		return snapshot.NodeClassRef{Group: snapshot.AWSGroup, Kind: snapshot.KindEC2NodeClass, Name: name}
	}
	claims := []snapshot.NodeClaim{
		{Name: "own-ref", NodeName: "n1", NodeClassRef: ec2("from-claim"), Labels: map[string]string{snapshot.LabelNodePool: "p"}},
		{Name: "pool-ref", NodeName: "n2", Labels: map[string]string{snapshot.LabelNodePool: "p"}},
	}
	x := kubeIndexClaims(claims)
	x.indexPools([]snapshot.NodePool{{Name: "p", NodeClassRef: ec2("from-pool")}, {Name: "p", NodeClassRef: ec2("second")},
		{Name: "q", NodeClassRef: ec2("from-label")}})
	tests := []struct {
		name string
		node corev1.Node
		want string
	}{
		{"claim's ref", corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, "from-claim"},
		{"first pool of the claim's pool label", corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2"}}, "from-pool"},
		{"pool of the node label", corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n3",
			Labels: map[string]string{snapshot.LabelNodePool: "q"}}}, "from-label"},
		{"no claim and no pool", corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n3"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := x.classRef(&tt.node).Name; got != tt.want {
				t.Errorf("classRef = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestKubeReadClaimsMakeRoomForTheNodesCounted: the NodeClaims of a whole-cluster run get room
// for the nodes counted (a sixteenth more) in one allocation, not by doubling; with no count,
// or NodeClaims read by name, the list grows as it is read.
func TestKubeReadClaimsMakeRoomForTheNodesCounted(t *testing.T) {
	for _, c := range []struct {
		name     string
		expected int64
		byName   bool
		want     func(n int) bool
	}{
		{"nodes counted", 32, false, func(n int) bool { return n == 32+2+1 }},
		{"no count", 0, false, func(n int) bool { return n < 32 }},
		{"by name", 32, true, func(n int) bool { return n < 32 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			kube, dyn := kubeFixture(t)
			meter := &Meter{}
			meter.addNodes(1, c.expected)
			col := &Collector{Kube: kube, Dynamic: dyn, Meter: meter}
			var s snapshot.Snapshot
			var names []string
			if c.byName {
				names = []string{"default-abcde"}
			}
			if err := col.kubeReadClaims(t.Context(), &s, c.byName, names); err != nil {
				t.Fatal(err)
			}
			if !c.byName && len(s.NodeClaims) == 0 {
				t.Fatal("no NodeClaim read")
			}
			if !c.want(cap(s.NodeClaims)) {
				t.Errorf("%d NodeClaims read into room for %d", len(s.NodeClaims), cap(s.NodeClaims))
			}
		})
	}
}
