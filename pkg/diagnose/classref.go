package diagnose

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// autoModeNode reports whether node is an EKS Auto Mode node: it carries
// eks.amazonaws.com/compute-type=auto, or its NodeClaim points at an Auto Mode NodeClass.
func autoModeNode(node *corev1.Node, claim *snapshot.NodeClaim) bool {
	if node.Labels[snapshot.LabelComputeType] == snapshot.ComputeTypeAuto {
		return true
	}
	return claim != nil && claim.NodeClassRef.Name != "" && isAutoModeRef(claim.NodeClassRef)
}

// isEC2NodeClassRef reports whether ref points at an EC2NodeClass (an empty kind counts, as
// v1beta1 NodePools may omit it).
func isEC2NodeClassRef(ref snapshot.NodeClassRef) bool {
	return ref.Kind == "" || ref.Kind == snapshot.KindEC2NodeClass
}

// isAutoModeRef reports whether ref points at an EKS Auto Mode NodeClass
// (eks.amazonaws.com, kind NodeClass).
func isAutoModeRef(ref snapshot.NodeClassRef) bool {
	return ref.Kind == snapshot.KindNodeClass && (ref.Group == "" || ref.Group == snapshot.AutoModeGroup)
}

// ClassKey returns the Index.NodeClasses key of the class of the given kind
// (snapshot.KindEC2NodeClass or snapshot.KindNodeClass) and name.
func ClassKey(kind, name string) string { return kind + "/" + name }

// refKind returns the class kind a NodePool or NodeClaim reference points at, "" for a kind
// karpnet does not know.
func refKind(ref snapshot.NodeClassRef) string {
	switch {
	case isAutoModeRef(ref):
		return snapshot.KindNodeClass
	case isEC2NodeClassRef(ref):
		return snapshot.KindEC2NodeClass
	}
	return ""
}

// NodeClass returns the class of the given kind and name, nil when it is unknown.
func (x *Index) NodeClass(kind, name string) *snapshot.EC2NodeClass {
	return x.NodeClasses[ClassKey(kind, name)]
}

// ClassOf returns the class a NodePool or NodeClaim reference points at, nil when it is
// unknown or of another kind.
func (x *Index) ClassOf(ref snapshot.NodeClassRef) *snapshot.EC2NodeClass {
	kind := refKind(ref)
	if kind == "" || ref.Name == "" {
		return nil
	}
	return x.NodeClass(kind, ref.Name)
}

// refersTo reports whether ref points at class c.
func refersTo(ref snapshot.NodeClassRef, c *snapshot.EC2NodeClass) bool {
	return ref.Name == c.Name && refKind(ref) == c.KindName()
}

// sortedClasses returns every class, EC2NodeClasses first, each kind by name.
func (x *Index) sortedClasses() []*snapshot.EC2NodeClass {
	out := make([]*snapshot.EC2NodeClass, 0, len(x.NodeClasses))
	for _, k := range sortedKeys(x.NodeClasses) {
		out = append(out, x.NodeClasses[k])
	}
	return out
}

// AutoMode reports whether the node is an EKS Auto Mode node, whose class is a NodeClass and
// whose pod networking AWS runs on the node instead of the VPC CNI (aws-node).
func (n *NodeInfo) AutoMode() bool { return n.ClassKind == snapshot.KindNodeClass }

// ClassRef returns the resource name of the node's class: nodeclass/NAME on an Auto Mode node,
// ec2nodeclass/NAME otherwise, or "" when it has none.
func (n *NodeInfo) ClassRef() string {
	if n.ClassName == "" {
		return ""
	}
	return kindRef(n.classKind(), n.ClassName)
}

// ClassLabel names the node's class for messages: "NodeClass NAME" or "EC2NodeClass NAME".
func (n *NodeInfo) ClassLabel() string { return n.classKind() + " " + n.ClassName }

// classKind is ClassKind, defaulting to EC2NodeClass for NodeInfo values built by hand.
func (n *NodeInfo) classKind() string {
	if n.ClassKind == "" {
		return snapshot.KindEC2NodeClass
	}
	return n.ClassKind
}

// kindRef returns the resource name of a class of the given kind: ec2nodeclass/NAME or
// nodeclass/NAME.
func kindRef(kind, name string) string { return strings.ToLower(kind) + "/" + name }

// classRef returns the resource name of class c, ec2nodeclass/NAME or nodeclass/NAME.
func classRef(c *snapshot.EC2NodeClass) string { return kindRef(c.KindName(), c.Name) }

// classLabel names class c for messages: "EC2NodeClass NAME" or "NodeClass NAME".
func classLabel(c *snapshot.EC2NodeClass) string { return c.KindName() + " " + c.Name }

// classField returns the path of an EC2NodeClass spec field in class c: Auto Mode NodeClasses
// keep associatePublicIPAddress and networkInterfaces under spec.advancedNetworking.
func classField(c *snapshot.EC2NodeClass, field string) string {
	if c != nil && c.AutoMode() {
		switch field {
		case "spec.associatePublicIPAddress", "spec.networkInterfaces":
			return "spec.advancedNetworking." + strings.TrimPrefix(field, "spec.")
		}
	}
	return field
}

// launcher names what launches the nodes of class c: Karpenter, or EKS Auto Mode.
func launcher(c *snapshot.EC2NodeClass) string { return launcherName(c != nil && c.AutoMode()) }

// launcher names what launches the node: Karpenter, or EKS Auto Mode.
func (n *NodeInfo) launcher() string { return launcherName(n.AutoMode()) }

func launcherName(autoMode bool) string {
	if autoMode {
		return "EKS Auto Mode"
	}
	return "Karpenter"
}
