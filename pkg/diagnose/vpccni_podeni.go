package diagnose

import (
	"fmt"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Security groups for pods: the node label the VPC CNI and resource controller keep, and the
// extended resource branch ENIs are counted in.
const (
	labelHasTrunkAttached = "vpc.amazonaws.com/has-trunk-attached"
	resourcePodENI        = corev1.ResourceName("vpc.amazonaws.com/pod-eni")
)

var specTrunkENIMissing = &Spec{
	ID:       "trunk-eni-missing",
	Severity: Warning,
	Family:   FamilyVPCCNI,
	Needs:    []string{snapshot.SourceAWSNode},
	Examines: []string{SubjectNode},
	Title:    "the node should have a trunk ENI for security groups for pods but has none",
	FiresWhen: "aws-node runs on the node with ENABLE_POD_ENI=true, its type supports trunking (its NodeClaim's " +
		"or its own `vpc.amazonaws.com/pod-eni` capacity, which Karpenter derives from the VPC limits), " +
		"the node is past its start-up, and no attached ENI has InterfaceType trunk; or the node is " +
		"labelled `vpc.amazonaws.com/has-trunk-attached=true` without one. The message says whether the " +
		"node's CNINode (`cninodes.vpcresources.k8s.aws`, VPC CNI 1.15+) asks for `SecurityGroupsForPods`",
	NotOn: "types without trunking (no pod-eni capacity), nodes still initialising, nodes aws-node does not " +
		"run on, nodes that are not running; a CNINode CRD or permission that is missing is a " +
		"`data-unavailable` gap, not a finding",
	Why: "when the VPC resource controller cannot attach the trunk neither the label nor pod-eni capacity " +
		"ever appears; pods selected by a SecurityGroupPolicy get no branch ENI and stay in " +
		"ContainerCreating",
	Remedy: "read the node's events for the VPC resource controller's reason (unsupported type, " +
		"AmazonEKSVPCResourceController missing on the cluster role), fix it, then replace the node",
	Sources: []string{
		"aws/amazon-vpc-resource-controller-k8s pkg/config/type.go (`vpc.amazonaws.com/has-trunk-attached`)",
		"aws/amazon-vpc-resource-controller-k8s pkg/provider/branch/trunk/trunk.go",
		"aws/amazon-vpc-resource-controller-k8s pkg/aws/vpc/limits.go (IsTrunkingCompatible, BranchInterface)",
		"aws/amazon-vpc-resource-controller-k8s config/crd/bases/vpcresources.k8s.aws_cninodes.yaml",
	},
	Verified: []Verified{
		{UpstreamResourceCtrl, "pkg/config/type.go (HasTrunkAttachedLabel, ResourceNamePodENI)",
			"The controller labels a node vpc.amazonaws.com/has-trunk-attached=true once its trunk ENI is attached, and advertises branch ENIs as vpc.amazonaws.com/pod-eni."},
		{UpstreamResourceCtrl, "apis/vpcresources/v1alpha1/cninode_types.go (SecurityGroupsForPods)",
			"The CNINode feature ipamd adds to ask for a trunk is named SecurityGroupsForPods."},
		{UpstreamResourceCtrl, "pkg/aws/vpc/limits.go (Limits: IsTrunkingCompatible, BranchInterface)",
			"Whether a type supports trunking, and how many branch ENIs it takes, is per type in the controller's limits table."},
		{UpstreamVPCCNI, "pkg/ipamd/ipamd.go (tryEnableSecurityGroupsForPods)",
			"With ENABLE_POD_ENI ipamd adds SecurityGroupsForPods to the node's CNINode, unless no ENI slot is left for the trunk on the default card."},
		{UpstreamKarpenter, "pkg/providers/instancetype/types.go (awsPodENI)",
			"Karpenter gives a type vpc.amazonaws.com/pod-eni = BranchInterface when its limits say IsTrunkingCompatible, else 0."},
	},
}

// trunkENIMissing finds nodes that should have a trunk ENI for security groups for pods but
// have none attached. Branch ENIs hang off the trunk: without it, pods that a
// SecurityGroupPolicy selects wait in ContainerCreating (or stay Pending on
// vpc.amazonaws.com/pod-eni) for a branch ENI that never comes. When the VPC resource
// controller cannot attach the trunk (its IAM policy is missing, the type is not supported)
// neither the has-trunk-attached label nor pod-eni capacity ever appears, so the check looks at
// what should be there: aws-node runs on the node with ENABLE_POD_ENI=true, the type supports
// trunking (its NodeClaim's vpc.amazonaws.com/pod-eni capacity, which Karpenter derives from
// the VPC limits), and the node is past its start-up. A node labelled
// has-trunk-attached=true without a trunk is reported too. The node's CNINode says whether
// ipamd asked for the feature (VPC CNI 1.15+).
var trunkENIMissing = Check{
	Spec: specTrunkENIMissing,
	Run: func(x *Index) []Finding {
		podENI := x.vpcCNI() && x.cniSettingOn(SettingPodENI)
		var out []Finding
		for _, n := range x.vpcCNINodes() {
			if n.Instance == nil || n.Instance.State != "running" || len(n.Instance.ENIs) == 0 || cniHasTrunk(n) {
				continue
			}
			var why []string
			if podENI && trunkCapable(n) && !n.Initialising() {
				why = append(why, fmt.Sprintf("runs aws-node with %s=true on a type that supports trunking (%s)", SettingPodENI, trunkEvidence(n)))
			}
			if n.Node.Labels[labelHasTrunkAttached] == "true" {
				why = append(why, "is labelled "+labelHasTrunkAttached+"=true")
			}
			if len(why) == 0 {
				continue
			}
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("the node %s, but none of the %s attached to %s is a trunk ENI (%s)%s: "+
					"pods with a SecurityGroupPolicy get no branch ENI",
					strings.Join(why, " and "), countText(len(n.Instance.ENIs), "ENI", "ENIs"), n.Instance.ID, cniENITypes(n),
					cniNodeText(x, n)),
				Remedy: fmt.Sprintf("read the node's events (the get events command) for the "+
					"VPC resource controller's reason (an instance type it does not support, or the EKS cluster role missing "+
					"AmazonEKSVPCResourceController), fix it, then %s",
					replaceNodeProse(n, "so the resource controller attaches a trunk ENI again")),
				Commands: append([]Command{{Argv: []string{"kubectl", "get", "events", "-A", "--field-selector", "involvedObject.name=" + n.Name()},
					ReadOnly: true}}, replaceNodeCommands(n)...),
			})
		}
		return out
	},
}

// trunkEvidence says what tells that the node's type supports trunking.
func trunkEvidence(n *NodeInfo) string {
	if q, ok := n.Node.Status.Capacity[resourcePodENI]; ok && q.Value() > 0 {
		return fmt.Sprintf("the node advertises %d %s", q.Value(), resourcePodENI)
	}
	return fmt.Sprintf("NodeClaim %s has %s %s", n.Claim.Name, resourcePodENI, n.Claim.Capacity[string(resourcePodENI)])
}

// featureSGP is the CNINode feature ipamd adds to ask for a trunk ENI.
const featureSGP = "SecurityGroupsForPods"

// cniNodeText says whether the node's CNINode asks the VPC resource controller for security
// groups for pods, as "; its CNINode ...", or "" when CNINodes were not read.
func cniNodeText(x *Index, n *NodeInfo) string {
	if x.Unavailable(snapshot.SourceCNINodes) || x.Snapshot.CNINodes == nil {
		return ""
	}
	for _, c := range x.Snapshot.CNINodes {
		if c.Name != n.Name() {
			continue
		}
		for _, f := range c.Features {
			if f.Name == featureSGP {
				return "; its CNINode asks for " + featureSGP + ", so the VPC resource controller failed to attach it"
			}
		}
		return "; its CNINode does not ask for " + featureSGP + ": ipamd has not requested the trunk"
	}
	return "; it has no CNINode: ipamd has not registered it with the VPC resource controller"
}

// trunkCapable reports whether the node's type supports a trunk ENI, as Karpenter and the VPC
// resource controller say: its NodeClaim's or its own vpc.amazonaws.com/pod-eni capacity is
// above 0 (Karpenter derives it from the VPC limits: the branch interfaces of a type that
// supports trunking). false when neither tells.
func trunkCapable(n *NodeInfo) bool {
	if q, ok := n.Node.Status.Capacity[resourcePodENI]; ok && q.Value() > 0 {
		return true
	}
	if n.Claim != nil {
		if q, err := resource.ParseQuantity(n.Claim.Capacity[string(resourcePodENI)]); err == nil && q.Value() > 0 {
			return true
		}
	}
	return false
}

// cniHasTrunk reports whether a trunk ENI is attached to the node's instance.
func cniHasTrunk(n *NodeInfo) bool {
	for _, e := range n.instanceENIs() {
		if e.InterfaceType == interfaceTrunk {
			return true
		}
	}
	return false
}

// cniENITypes counts the instance's ENIs by type, e.g. "interface 2, efa-only 1".
func cniENITypes(n *NodeInfo) string {
	counts := map[string]int{}
	for _, e := range n.instanceENIs() {
		t := e.InterfaceType
		if t == "" {
			t = "interface"
		}
		counts[t]++
	}
	var parts []string
	for _, t := range sortedKeys(counts) {
		parts = append(parts, fmt.Sprintf("%s %d", t, counts[t]))
	}
	if len(parts) == 0 {
		return "no ENI"
	}
	return strings.Join(parts, ", ")
}
