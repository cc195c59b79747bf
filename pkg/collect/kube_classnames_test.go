package collect

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestKubeClassNames(t *testing.T) {
	ec2 := snapshot.NodeClassRef{Group: snapshot.AWSGroup, Kind: snapshot.KindEC2NodeClass, Name: "e-claim"}
	auto := snapshot.NodeClassRef{Group: snapshot.AutoModeGroup, Kind: snapshot.KindNodeClass, Name: "a-pool"}
	node := func(name string, labels map[string]string) corev1.Node {
		return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	}
	pool := func(p string) map[string]string { return map[string]string{snapshot.LabelNodePool: p} }
	x := kubeIndexClaims([]snapshot.NodeClaim{{Name: "c", NodeName: "by-claim", NodeClassRef: ec2}})
	x.indexPools([]snapshot.NodePool{{Name: "auto", NodeClassRef: auto}, {Name: "bare"}})
	named := []corev1.Node{
		node("ec2-label", map[string]string{snapshot.LabelNodePool: "x", snapshot.LabelEC2NodeClass: "e-label"}),
		node("auto-label", map[string]string{snapshot.LabelAutoNodeClass: "a-label"}),
		node("by-claim", pool("bare")),
		node("by-pool", pool("auto")),
		node("not-karpenter", map[string]string{snapshot.LabelEC2NodeClass: "ignored"}),
	}
	tests := []struct {
		name      string
		nodes     []corev1.Node
		kind      kubeClassKind
		want      []string
		wantKnown bool
	}{
		{"ec2 names", named, kubeEC2NodeClassKind(), []string{"e-claim", "e-label"}, true},
		{"auto names", named, kubeAutoNodeClassKind(), []string{"a-label", "a-pool"}, true},
		{"karpenter node without a class leaves ec2 unknown", []corev1.Node{node("k", pool("bare"))},
			kubeEC2NodeClassKind(), nil, false},
		{"karpenter node without a class needs no auto class", []corev1.Node{node("k", pool("bare"))},
			kubeAutoNodeClassKind(), nil, true},
		{"auto node without a class leaves auto unknown",
			[]corev1.Node{node("a", map[string]string{snapshot.LabelComputeType: snapshot.ComputeTypeAuto})},
			kubeAutoNodeClassKind(), nil, false},
		{"auto node that is not a karpenter node needs no ec2 class",
			[]corev1.Node{node("a", map[string]string{snapshot.LabelComputeType: snapshot.ComputeTypeAuto})},
			kubeEC2NodeClassKind(), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, known := kubeClassNames(tt.nodes, x, tt.kind)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
			if known != tt.wantKnown {
				t.Errorf("known = %t, want %t", known, tt.wantKnown)
			}
		})
	}
}
