package collect

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeClassKind is a kind of NodeClass a Karpenter node can use: Karpenter's EC2NodeClass or
// the EKS Auto Mode NodeClass.
type kubeClassKind struct {
	group, kind string // of a nodeClassRef naming this kind
	label       string // the node label naming a NodeClass of this kind
	otherLabel  string // the node label naming a NodeClass of the other kind
	// needs reports whether a node must use this kind, so that a node whose NodeClass
	// cannot be named leaves the names unknown.
	needs func(*corev1.Node) bool
	// marks reports whether a node's labels say it uses this kind.
	marks func(*corev1.Node) bool
}

// kubeEC2NodeClassKind returns Karpenter's EC2NodeClass, which every Karpenter node outside
// EKS Auto Mode uses.
func kubeEC2NodeClassKind() kubeClassKind {
	return kubeClassKind{snapshot.AWSGroup, snapshot.KindEC2NodeClass, snapshot.LabelEC2NodeClass, snapshot.LabelAutoNodeClass,
		kubeIsKarpenterNode, func(n *corev1.Node) bool { return n.Labels[snapshot.LabelEC2NodeClass] != "" }}
}

// kubeAutoNodeClassKind returns the EKS Auto Mode NodeClass, which every Auto Mode node uses.
func kubeAutoNodeClassKind() kubeClassKind {
	return kubeClassKind{snapshot.AutoModeGroup, snapshot.KindNodeClass, snapshot.LabelAutoNodeClass, snapshot.LabelEC2NodeClass,
		kubeIsAutoNode, kubeIsAutoNode}
}

// names reports whether ref names a NodeClass of kind k.
func (k kubeClassKind) names(ref snapshot.NodeClassRef) bool {
	return ref.Name != "" && ref.Group == k.group && ref.Kind == k.kind
}

// usedIn reports whether a node of s is labelled with kind k or a NodeClaim or NodePool of s
// points at a NodeClass of kind k.
func (k kubeClassKind) usedIn(s *snapshot.Snapshot) bool {
	return kubeAnyNode(s.Nodes, k.marks) ||
		slices.ContainsFunc(s.NodeClaims, func(c snapshot.NodeClaim) bool { return k.names(c.NodeClassRef) }) ||
		slices.ContainsFunc(s.NodePools, func(p snapshot.NodePool) bool { return k.names(p.NodeClassRef) })
}

// kubeAnyNode reports whether f holds for a node of nodes, handing f each node where it is:
// a copy of each handed by address would be a heap object (100,000 of 1 KiB for a cluster
// where f holds for none).
func kubeAnyNode(nodes []corev1.Node, f func(*corev1.Node) bool) bool {
	for i := range nodes {
		if f(&nodes[i]) {
			return true
		}
	}
	return false
}

// kubeClassNames returns the NodeClasses of kind k of the Karpenter nodes and of the nodes
// that need kind k, from the node label, the node's claim or its pool; known is false when a
// node that needs kind k has a NodeClass that cannot be named. A node labelled with the other
// kind, or whose claim or pool points at another kind, needs none.
func kubeClassNames(nodes []corev1.Node, x *kubeKarpenterIndex, k kubeClassKind) (names []string, known bool) {
	known = true
	for i := range nodes {
		n := &nodes[i]
		needs := k.needs(n)
		if !needs && !kubeIsKarpenterNode(n) {
			continue
		}
		if c := n.Labels[k.label]; c != "" {
			names = append(names, c)
			continue
		}
		if n.Labels[k.otherLabel] != "" {
			continue
		}
		switch ref := x.classRef(n); {
		case k.names(ref):
			names = append(names, ref.Name)
		case ref.Name == "" && needs:
			known = false
		}
	}
	return kubeSorted(names), known
}
