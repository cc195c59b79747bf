package collect

import (
	"context"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/karpnet/kubectl-karpnet/internal/kubeobj"
	"github.com/karpnet/kubectl-karpnet/internal/kubestream"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeKarpenterRemedy is the remedy of a missing Karpenter CRD.
const kubeKarpenterRemedy = "install Karpenter's CRDs, or ignore this on clusters without Karpenter"

// kubeKarpenter reads NodeClaims, NodePools, EC2NodeClasses and EKS Auto Mode NodeClasses.
// With named nodes it GETs the objects those nodes point at, and lists a kind only when a
// Karpenter node's object of that kind cannot be named; otherwise it lists them all.
func (c *Collector) kubeKarpenter(ctx context.Context, s *snapshot.Snapshot, scope Scope, ahead *kubeAhead) error {
	scoped := len(scope.Names) > 0

	var err error
	if ahead != nil {
		err = ahead.wait(s)
	} else {
		names, known := kubeClaimNames(s.Nodes)
		err = c.kubeReadClaims(ctx, s, scoped && known, names)
	}
	if err != nil {
		return err
	}

	x := kubeIndexClaims(s.NodeClaims)
	names, known := kubePoolNames(s.Nodes, x)
	s.NodePools = nil
	err = c.kubeReadCRD(ctx, s, kubeNodePoolsCRD(), scoped && known, names, kubeKarpenterRemedy,
		func(u *unstructured.Unstructured) { s.NodePools = append(s.NodePools, kubeobj.DecodeNodePool(u)) })
	if err != nil {
		return err
	}
	kubeSortByName(s.NodePools, func(v *snapshot.NodePool) string { return v.Name })
	x.indexPools(s.NodePools)

	names, known = kubeClassNames(s.Nodes, x, kubeEC2NodeClassKind())
	s.NodeClasses = nil
	if ahead != nil {
		err = ahead.classes.wait(c, s)
	} else {
		err = c.kubeReadCRD(ctx, s, kubeNodeClassesCRD(), scoped && known, names, kubeEC2NodeClassRemedy(s),
			func(u *unstructured.Unstructured) { s.NodeClasses = append(s.NodeClasses, kubeobj.DecodeNodeClass(u)) })
	}
	if err != nil {
		return err
	}
	kubeSortByName(s.NodeClasses, func(v *snapshot.EC2NodeClass) string { return v.Name })
	return c.kubeAutoNodeClasses(ctx, s, scope, x)
}

// kubeReadClaims reads the NodeClaims into s, sorted by name: the named ones when byName,
// else every one.
func (c *Collector) kubeReadClaims(ctx context.Context, s *snapshot.Snapshot, byName bool, names []string) error {
	return c.kubeReadClaimsSeen(ctx, s, byName, names, nil)
}

// kubeReadClaimsSeen is kubeReadClaims that also passes each NodeClaim's providerID to seen
// (when set) as it is read. A listed NodeClaim is read straight from its JSON text
// (kubestream.ReadNodeClaim) when it can be, else decoded by the parts kubeobj.DecodeNodeClaim reads.
func (c *Collector) kubeReadClaimsSeen(ctx context.Context, s *snapshot.Snapshot, byName bool, names []string, seen func(providerID string)) error {
	s.NodeClaims = nil
	add := func(claim snapshot.NodeClaim) {
		if s.NodeClaims == nil && !byName {
			// About one NodeClaim a node: room for the nodes counted so far and a sixteenth
			// more, made once (100,000 claims grown by doubling: 0.4 s of copying).
			if n := c.Meter.Progress().NodesExpected; n > 0 {
				s.NodeClaims = make([]snapshot.NodeClaim, 0, min(n+n/16+1, kubeNodesPresized))
			}
		}
		s.NodeClaims = append(s.NodeClaims, claim)
		kept := &s.NodeClaims[len(s.NodeClaims)-1]
		internerOf(ctx).Claim(kept)
		if seen != nil {
			seen(kept.ProviderID)
		}
	}
	r := kubeNodeClaimsCRD()
	r.take = func(raw []byte, names *kubestream.Names) bool {
		claim, ok := kubestream.ReadNodeClaim(raw, names)
		if ok {
			add(claim)
		}
		return ok
	}
	err := c.kubeReadCRD(ctx, s, r, byName, names, kubeKarpenterRemedy,
		func(u *unstructured.Unstructured) { add(kubeobj.DecodeNodeClaim(u)) })
	if err != nil {
		return err
	}
	kubeSortByName(s.NodeClaims, func(v *snapshot.NodeClaim) string { return v.Name })
	return nil
}

// kubeIsKarpenterNode reports whether Karpenter launched n: it carries a NodePool label or is
// owned by a NodeClaim.
func kubeIsKarpenterNode(n *corev1.Node) bool {
	_, labelled := n.Labels[snapshot.LabelNodePool]
	return labelled || kubeOwningClaim(n) != ""
}

// kubeOwningClaim returns the name of the NodeClaim that owns n, or "".
func kubeOwningClaim(n *corev1.Node) string {
	for _, ref := range n.OwnerReferences {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if ref.Kind == "NodeClaim" && err == nil && gv.Group == snapshot.KarpenterGroup {
			return ref.Name
		}
	}
	return ""
}

// kubeClaimNames returns the NodeClaims that own the nodes; known is false when a Karpenter
// node has no owning NodeClaim.
func kubeClaimNames(nodes []corev1.Node) (names []string, known bool) {
	known = true
	for i := range nodes {
		n := &nodes[i]
		if claim := kubeOwningClaim(n); claim != "" {
			names = append(names, claim)
		} else if kubeIsKarpenterNode(n) {
			known = false
		}
	}
	return kubeSorted(names), known
}

// kubePoolNames returns the NodePools of the Karpenter nodes, from the node label or the
// node's claim; known is false when one cannot be named.
func kubePoolNames(nodes []corev1.Node, x *kubeKarpenterIndex) (names []string, known bool) {
	known = true
	for i := range nodes {
		n := &nodes[i]
		if !kubeIsKarpenterNode(n) {
			continue
		}
		if p := kubeNodePool(n, x.claimFor(n)); p != "" {
			names = append(names, p)
		} else {
			known = false
		}
	}
	return kubeSorted(names), known
}

// kubeNodePool returns the NodePool of n from its label, else from its claim's label.
func kubeNodePool(n *corev1.Node, claim *snapshot.NodeClaim) string {
	if p := n.Labels[snapshot.LabelNodePool]; p != "" {
		return p
	}
	if claim != nil {
		return claim.NodePool()
	}
	return ""
}

// kubeSorted returns names sorted, without repeats or empty strings.
func kubeSorted(names []string) []string {
	out := kubeUnique(names)
	slices.SortFunc(out, strings.Compare)
	return out
}
