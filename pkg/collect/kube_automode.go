package collect

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/karpnet/kubectl-karpnet/internal/kubeobj"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeAutoNodeClassesCRD describes the EKS Auto Mode NodeClass (cluster-scoped).
func kubeAutoNodeClassesCRD() kubeCRD {
	return kubeCRD{source: snapshot.SourceAutoNodeClasses, group: snapshot.AutoModeGroup, resource: "nodeclasses", versions: []string{"v1"}}
}

// kubeAutoNodeClasses appends the EKS Auto Mode NodeClasses to s.NodeClasses, after the
// EC2NodeClasses and sorted by name. It reads nothing when no node, NodeClaim or NodePool refers
// to Auto Mode. With named nodes it GETs the NodeClasses those nodes use, and lists them only
// when a name cannot be known. A missing CRD (a cluster without Auto Mode) is no Gap.
func (c *Collector) kubeAutoNodeClasses(ctx context.Context, s *snapshot.Snapshot, scope Scope, x *kubeKarpenterIndex) error {
	scoped := len(scope.Names) > 0
	names, known := kubeClassNames(s.Nodes, x, kubeAutoNodeClassKind())
	if scoped && known && len(names) == 0 {
		return nil
	}
	if !scoped && !kubeAutoNodeClassKind().usedIn(s) {
		return nil
	}
	var classes []snapshot.EC2NodeClass
	err := c.kubeReadCRD(ctx, s, kubeAutoNodeClassesCRD(), scoped && known, names, "",
		func(u *unstructured.Unstructured) { classes = append(classes, kubeobj.DecodeAutoNodeClass(u)) })
	kubeSortByName(classes, func(v *snapshot.EC2NodeClass) string { return v.Name })
	s.NodeClasses = append(s.NodeClasses, classes...)
	return err
}

// kubeIsAutoNode reports whether n is an EKS Auto Mode node: it carries the Auto Mode compute
// type or NodeClass label.
func kubeIsAutoNode(n *corev1.Node) bool {
	return n.Labels[snapshot.LabelComputeType] == snapshot.ComputeTypeAuto || n.Labels[snapshot.LabelAutoNodeClass] != ""
}

// kubeEC2NodeClassRemedy returns the remedy of a missing EC2NodeClass CRD, or "" (no Gap) on a
// cluster that uses only EKS Auto Mode, where that CRD is not installed.
func kubeEC2NodeClassRemedy(s *snapshot.Snapshot) string {
	if kubeAutoNodeClassKind().usedIn(s) && !kubeEC2NodeClassKind().usedIn(s) {
		return ""
	}
	return kubeKarpenterRemedy
}
