package collect

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeAutoNodeClassesCRD describes the EKS Auto Mode NodeClass (cluster-scoped).
func kubeAutoNodeClassesCRD() kubeCRD {
	return kubeCRD{snapshot.SourceAutoNodeClasses, snapshot.AutoModeGroup, "nodeclasses", []string{"v1"}}
}

// kubeAutoNodeClasses appends the EKS Auto Mode NodeClasses to s.NodeClasses, after the
// EC2NodeClasses and sorted by name. It reads nothing when no node, NodeClaim or NodePool refers
// to Auto Mode. With named nodes it GETs the NodeClasses those nodes use, and lists them only
// when a name cannot be known. A missing CRD (a cluster without Auto Mode) is no Gap.
func (c *Collector) kubeAutoNodeClasses(ctx context.Context, s *snapshot.Snapshot, scope Scope, x *kubeKarpenterIndex) error {
	scoped := len(scope.Names) > 0
	names, known := kubeAutoClassNames(s.Nodes, x)
	if scoped && known && len(names) == 0 {
		return nil
	}
	if !scoped && !kubeRefersToAutoMode(s) {
		return nil
	}
	var classes []snapshot.EC2NodeClass
	err := c.kubeReadCRD(ctx, s, kubeAutoNodeClassesCRD(), scoped && known, names, "",
		func(u *unstructured.Unstructured) { classes = append(classes, kubeDecodeAutoNodeClass(u)) })
	kubeSortByName(classes, func(v *snapshot.EC2NodeClass) string { return v.Name })
	s.NodeClasses = append(s.NodeClasses, classes...)
	return err
}

// kubeIsAutoNode reports whether n is an EKS Auto Mode node: it carries the Auto Mode compute
// type or NodeClass label.
func kubeIsAutoNode(n *corev1.Node) bool {
	return n.Labels[snapshot.LabelComputeType] == snapshot.ComputeTypeAuto || n.Labels[snapshot.LabelAutoNodeClass] != ""
}

// kubeIsAutoNodeClass reports whether ref names an EKS Auto Mode NodeClass.
func kubeIsAutoNodeClass(ref snapshot.NodeClassRef) bool {
	return ref.Name != "" && ref.Group == snapshot.AutoModeGroup && ref.Kind == snapshot.KindNodeClass
}

// kubeAutoClassNames returns the Auto Mode NodeClasses of the nodes, from the node label, the
// node's claim or its pool; known is false when an Auto Mode node's NodeClass cannot be named.
// A node that uses an EC2NodeClass, or whose class is unknown and that carries no Auto Mode
// label, needs none.
func kubeAutoClassNames(nodes []corev1.Node, x *kubeKarpenterIndex) (names []string, known bool) {
	known = true
	for i := range nodes {
		n := &nodes[i]
		auto := kubeIsAutoNode(n)
		if !auto && !kubeIsKarpenterNode(n) {
			continue
		}
		if c := n.Labels[snapshot.LabelAutoNodeClass]; c != "" {
			names = append(names, c)
			continue
		}
		if n.Labels[snapshot.LabelEC2NodeClass] != "" {
			continue
		}
		ref := x.classRef(n)
		switch {
		case kubeIsAutoNodeClass(ref):
			names = append(names, ref.Name)
		case ref.Name == "" && auto:
			known = false
		}
	}
	return kubeSorted(names), known
}

// kubeRefersToAutoMode reports whether a node of s is an Auto Mode node or a NodeClaim or
// NodePool of s points at an Auto Mode NodeClass.
func kubeRefersToAutoMode(s *snapshot.Snapshot) bool {
	return slices.ContainsFunc(s.Nodes, func(n corev1.Node) bool { return kubeIsAutoNode(&n) }) ||
		slices.ContainsFunc(s.NodeClaims, func(c snapshot.NodeClaim) bool { return kubeIsAutoNodeClass(c.NodeClassRef) }) ||
		slices.ContainsFunc(s.NodePools, func(p snapshot.NodePool) bool { return kubeIsAutoNodeClass(p.NodeClassRef) })
}

// kubeRefersToEC2NodeClass reports whether a node of s carries the EC2NodeClass label or a
// NodeClaim or NodePool of s points at an EC2NodeClass.
func kubeRefersToEC2NodeClass(s *snapshot.Snapshot) bool {
	return slices.ContainsFunc(s.Nodes, func(n corev1.Node) bool { return n.Labels[snapshot.LabelEC2NodeClass] != "" }) ||
		slices.ContainsFunc(s.NodeClaims, func(c snapshot.NodeClaim) bool { return kubeIsEC2NodeClass(c.NodeClassRef) }) ||
		slices.ContainsFunc(s.NodePools, func(p snapshot.NodePool) bool { return kubeIsEC2NodeClass(p.NodeClassRef) })
}

// kubeEC2NodeClassRemedy returns the remedy of a missing EC2NodeClass CRD, or "" (no Gap) on a
// cluster that uses only EKS Auto Mode, where that CRD is not installed.
func kubeEC2NodeClassRemedy(s *snapshot.Snapshot) string {
	if kubeRefersToAutoMode(s) && !kubeRefersToEC2NodeClass(s) {
		return ""
	}
	return kubeKarpenterRemedy
}
