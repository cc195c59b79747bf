package diagnose

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// maxPodsExceedsIPCapacity finds nodes that advertise more pods than their ENIs can give IPs.
// With the VPC CNI every non-hostNetwork pod needs an ENI IP; pods scheduled beyond that stay in
// ContainerCreating with "failed to assign an IP address to container". On Karpenter nodes it
// happens with custom networking or security groups for pods (one ENI fewer) unless
// RESERVED_ENIS is set, and with a kubelet maxPods above the ENI limit. Without the aws-node
// DaemonSet pods may not take VPC addresses at all (an overlay CNI), so the check stays silent.
// EKS Auto Mode nodes are left out: Auto Mode sets max pods itself by a formula it does not
// publish, and its CNI is not aws-node.
var maxPodsExceedsIPCapacity = Check{
	ID:       "max-pods-exceeds-ip-capacity",
	Severity: Critical,
	Title:    "capacity.pods is above what the node's ENIs can give pods",
	Run: func(x *Index) []Finding {
		if x.Snapshot.AWSNode == nil || x.Unavailable(snapshot.SourceAWSNode) {
			return nil
		}
		cni := CNISettingsFrom(x.Snapshot.AWSNode)
		var out []Finding
		for _, n := range x.vpcCNINodes() {
			r, ok := nodeCapacity(n, cni)
			if !ok || r.Pods <= r.IPCapacity {
				continue
			}
			out = append(out, Finding{
				ID:       "max-pods-exceeds-ip-capacity",
				Severity: Critical,
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("capacity.pods %d is above the %d pod IPs the ENIs of this %s can give: %s",
					r.Pods, r.IPCapacity, n.Type.Name, r.Formula),
				Remedy: maxPodsRemedy(n, r),
			})
		}
		return out
	},
}

// nodeCapacity computes the node's CapacityReport; false when the node advertises no pods
// capacity or its instance type is unknown. On an EKS Auto Mode node the IP capacity is an
// estimate (autoModeCapacity) and cni is not used.
func nodeCapacity(n *NodeInfo, cni CNISettings) (CapacityReport, bool) {
	pods, ok := n.Node.Status.Capacity[corev1.ResourcePods]
	if !ok || n.Type == nil {
		return CapacityReport{}, false
	}
	var r CapacityReport
	if n.AutoMode() {
		r = autoModeCapacity(n.Type, n.instanceENIs(), n.Class)
	} else {
		r = nodeIPCapacity(n, cni)
	}
	r.Pods = pods.Value()
	return r, true
}

// nodeIPCapacity is IPCapacity for a node whose type is known, from its attached ENIs and its
// EC2NodeClass's networkInterfaces.
func nodeIPCapacity(n *NodeInfo, cni CNISettings) CapacityReport {
	enis := n.instanceENIs()
	var nics []snapshot.NetworkInterface
	if n.Class != nil {
		nics = n.Class.NetworkInterfaces
	}
	return IPCapacity(n.Type, cni, enis, nics)
}

// maxPodsRemedy names where to lower maxPods for this node, and the CNI or Karpenter setting
// that fits its case.
func maxPodsRemedy(n *NodeInfo, r CapacityReport) string {
	var where string
	switch {
	case n.PoolName != "" && (n.Pool != nil && isV1beta1(n.Pool.APIVersion) || n.Class != nil && isV1beta1(n.Class.APIVersion)):
		where = fmt.Sprintf("set spec.template.spec.kubelet.maxPods of NodePool %s", n.PoolName)
	case n.ClassName != "":
		where = fmt.Sprintf("set spec.kubelet.maxPods of EC2NodeClass %s", n.ClassName)
	default:
		where = "set the node group's max pods (nodeadm NodeConfig spec.kubelet.config.maxPods)"
	}
	parts := []string{fmt.Sprintf("%s to at most %d", where, r.IPCapacity)}
	if (r.CustomNetworking || r.TrunkENI) && n.ClassName != "" && !explicitMaxPods(n) {
		parts = append(parts, "or set Karpenter's RESERVED_ENIS=1 (settings.reservedENIs) so it leaves out the ENI that custom networking or the trunk takes")
	}
	if !r.PrefixDelegation && n.Type.Nitro() {
		parts = append(parts, fmt.Sprintf("or enable prefix delegation (aws-node %s=true) on this Nitro type", SettingPrefixDelegation))
	}
	return strings.Join(parts, ", ")
}

// isV1beta1 reports whether a Karpenter apiVersion is v1beta1, where kubelet settings live in
// the NodePool.
func isV1beta1(apiVersion string) bool { return strings.HasSuffix(apiVersion, "/v1beta1") }

// explicitMaxPods reports whether the node's Karpenter kubelet settings set maxPods, which
// RESERVED_ENIS then no longer changes.
func explicitMaxPods(n *NodeInfo) bool {
	set := func(k *snapshot.Kubelet) bool { return k != nil && (k.MaxPods != nil || k.MaxPodsExpression != "") }
	return n.Class != nil && set(n.Class.Kubelet) || n.Pool != nil && set(n.Pool.Kubelet)
}
