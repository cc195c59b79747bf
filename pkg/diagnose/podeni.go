package diagnose

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Security groups for pods: the node label the VPC CNI and resource controller keep, and the
// extended resource branch ENIs are counted in.
const (
	labelHasTrunkAttached = "vpc.amazonaws.com/has-trunk-attached"
	resourcePodENI        = corev1.ResourceName("vpc.amazonaws.com/pod-eni")
)

// trunkENIMissing finds nodes that claim a trunk ENI for security groups for pods but have
// none attached. Branch ENIs hang off the trunk: without it, pods that a SecurityGroupPolicy
// selects are scheduled on the node against vpc.amazonaws.com/pod-eni and then wait in
// ContainerCreating for a branch ENI that never comes.
var trunkENIMissing = Check{
	ID:       "trunk-eni-missing",
	Severity: Warning,
	Title:    "the node advertises security groups for pods but has no trunk ENI",
	Run: func(x *Index) []Finding {
		podENI := x.vpcCNI() && x.cniSettingOn(SettingPodENI)
		var out []Finding
		for _, n := range x.vpcCNINodes() {
			if n.Instance == nil || n.Instance.State != "running" {
				continue
			}
			var why []string
			if n.Node.Labels[labelHasTrunkAttached] == "true" {
				why = append(why, "is labelled "+labelHasTrunkAttached+"=true")
			}
			if q, ok := n.Node.Status.Capacity[resourcePodENI]; ok && podENI && q.Value() > 0 {
				why = append(why, fmt.Sprintf("advertises %d %s with %s=true", q.Value(), resourcePodENI, SettingPodENI))
			}
			if len(why) == 0 || cniHasTrunk(n) {
				continue
			}
			out = append(out, Finding{
				ID:       "trunk-eni-missing",
				Severity: Warning,
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("the node %s, but none of the %s attached to %s is a trunk ENI (%s): "+
					"pods with a SecurityGroupPolicy get no branch ENI",
					strings.Join(why, " and "), cniCount(int64(len(n.Instance.ENIs)), "ENI"), n.Instance.ID, cniENITypes(n)),
				Remedy: fmt.Sprintf("read the node's events (kubectl get events --field-selector involvedObject.name=%s) for the "+
					"VPC resource controller's reason (an instance type it does not support, or its IAM role missing "+
					"AmazonEKSVPCResourceController), fix it, then %s", n.Name(),
					cniReplaceNodeRemedy(n, "so the resource controller attaches a trunk ENI again")),
			})
		}
		return out
	},
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
