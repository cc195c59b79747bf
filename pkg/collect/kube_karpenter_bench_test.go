package collect

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeBenchKarpenter returns n nodes, n NodeClaims and 10 NodePools. Owned nodes carry the
// NodePool and EC2NodeClass labels and are owned by their claim; the others are EKS Auto Mode
// nodes with no other label, whose claim is found by its providerID.
func kubeBenchKarpenter(n int, owned bool) ([]corev1.Node, []snapshot.NodeClaim, []snapshot.NodePool) {
	nodes := make([]corev1.Node, n)
	claims := make([]snapshot.NodeClaim, n)
	pools := make([]snapshot.NodePool, 10)
	for i := range pools {
		pools[i] = snapshot.NodePool{Name: fmt.Sprintf("pool-%d", i),
			NodeClassRef: snapshot.NodeClassRef{Group: snapshot.AWSGroup, Kind: snapshot.KindEC2NodeClass, Name: "default"}}
	}
	for i := range nodes {
		name := fmt.Sprintf("ip-10-0-%d-%d.ec2.internal", i/256, i%256)
		claim := fmt.Sprintf("pool-%d-%05d", i%10, i)
		pid := fmt.Sprintf("aws:///us-east-1a/i-%017x", i)
		nodes[i] = corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: pid}}
		if owned {
			nodes[i].Labels = map[string]string{snapshot.LabelNodePool: pools[i%10].Name, snapshot.LabelEC2NodeClass: "default"}
			nodes[i].OwnerReferences = []metav1.OwnerReference{{APIVersion: "karpenter.sh/v1", Kind: "NodeClaim", Name: claim}}
		} else {
			nodes[i].Labels = map[string]string{snapshot.LabelComputeType: snapshot.ComputeTypeAuto}
		}
		claims[i] = snapshot.NodeClaim{Name: claim, ProviderID: pid, Labels: map[string]string{snapshot.LabelNodePool: pools[i%10].Name}}
	}
	kubeSortByName(claims, func(v *snapshot.NodeClaim) string { return v.Name })
	return nodes, claims, pools
}

// BenchmarkKubeKarpenterNames measures naming the NodePools, EC2NodeClasses and Auto Mode
// NodeClasses of 10,000 nodes from their NodeClaims and NodePools.
func BenchmarkKubeKarpenterNames(b *testing.B) {
	for _, owned := range []bool{true, false} {
		nodes, claims, pools := kubeBenchKarpenter(10000, owned)
		b.Run(fmt.Sprintf("owned=%t", owned), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				x := kubeIndexClaims(claims)
				x.indexPools(pools)
				kubePoolNames(nodes, x)
				kubeClassNames(nodes, x, kubeEC2NodeClassKind())
				kubeClassNames(nodes, x, kubeAutoNodeClassKind())
			}
		})
	}
}
