package diagnose

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Operating systems and IP families of nodes.
const (
	OSLinux   = "linux"
	OSWindows = "windows"
	IPv4      = "ipv4"
	IPv6      = "ipv6"
)

// decidePlatform sets the node's operating system, IP family and whether aws-node runs there.
func (x *Index) decidePlatform(n *NodeInfo) {
	node := n.Node
	n.OS = node.Labels[corev1.LabelOSStable]
	if n.OS == "" {
		n.OS = strings.ToLower(node.Status.NodeInfo.OperatingSystem)
	}
	n.VPCCNI, n.VPCCNIReason = x.awsNodeRunsOn(n)
	n.IPFamily = IPv4
	if n.VPCCNI && x.cniSettingOn(SettingIPv6) || firstInternalIPIsV6(n) {
		n.IPFamily = IPv6
	}
}

// Windows reports whether the node runs Windows.
func (n *NodeInfo) Windows() bool { return n.OS == OSWindows }

// IPv6 reports whether the node's pods take IPv6 addresses.
func (n *NodeInfo) IPv6() bool { return n.IPFamily == IPv6 }

// firstInternalIPIsV6 reports whether the node's first InternalIP is an IPv6 address, as on
// the nodes of IPv6 clusters.
func firstInternalIPIsV6(n *NodeInfo) bool {
	ips := n.InternalIPs()
	if len(ips) == 0 {
		return false
	}
	ip, err := netip.ParseAddr(ips[0])
	return err == nil && ip.Is6() && !ip.Is4In6()
}

// awsNodeRunsOn decides whether the aws-node DaemonSet runs a pod on the node and says why:
// the DaemonSet must exist and schedule pods at all, the node must run Linux and not be an
// EKS Auto Mode node, and the pod template's nodeSelector, required node affinity and
// tolerations must admit the node. Taints that the DaemonSet controller tolerates for every
// DaemonSet (node.kubernetes.io/*) or that only come and go around a node's start and end
// are left out.
func (x *Index) awsNodeRunsOn(n *NodeInfo) (bool, string) {
	a := x.Snapshot.AWSNode
	switch {
	case !n.EC2:
		return false, "not an EC2 node"
	case x.Unavailable(snapshot.SourceAWSNode):
		return false, "unknown: the aws-node DaemonSet could not be read"
	case a == nil:
		return false, "no aws-node DaemonSet in kube-system: the cluster runs another CNI"
	case n.AutoMode():
		return false, "EKS Auto Mode runs its own CNI on the node"
	case n.Windows():
		return false, "Windows node: aws-node runs on Linux only, and the VPC resource controller gives Windows pods their IPs"
	case a.DesiredNumberScheduled != nil && *a.DesiredNumberScheduled == 0:
		return false, "the DaemonSet schedules no pod on any node (status.desiredNumberScheduled 0)"
	}
	if a.Scheduling == nil {
		return true, "aws-node runs here (its scheduling was not recorded in this snapshot)"
	}
	if ok, why := daemonSetAdmits(a.Scheduling, n, ""); !ok {
		return false, why
	}
	return true, "aws-node runs here"
}

// daemonSetAdmits decides whether a DaemonSet whose pod template schedules as sched runs a
// pod on the node, and says why not: its nodeSelector, required node affinity and tolerations
// must admit the node. Taints that the DaemonSet controller tolerates for every DaemonSet
// (node.kubernetes.io/*) or that only come and go around a node's start and end are left out,
// and so is a taint of key startup when given (one its agent removes once the node is ready).
func daemonSetAdmits(sched *snapshot.Scheduling, n *NodeInfo, startup string) (bool, string) {
	for _, k := range sortedKeys(sched.NodeSelector) {
		if v, ok := n.Node.Labels[k]; !ok || v != sched.NodeSelector[k] {
			return false, fmt.Sprintf("the DaemonSet's nodeSelector %s=%s does not match the node", k, sched.NodeSelector[k])
		}
	}
	if aff := sched.Affinity; aff != nil && aff.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		req := nodeaffinity.NewRequiredNodeAffinity(nil, &corev1.Affinity{NodeAffinity: aff})
		if ok, err := req.Match(n.Node); err == nil && !ok {
			return false, "the DaemonSet's required node affinity (" +
				nodeSelectorText(aff.RequiredDuringSchedulingIgnoredDuringExecution) + ") does not match the node"
		}
	}
	for _, t := range n.Node.Spec.Taints {
		if t.Effect == corev1.TaintEffectPreferNoSchedule || transientTaint(t.Key) || (startup != "" && t.Key == startup) {
			continue
		}
		if !slices.ContainsFunc(sched.Tolerations, func(tol corev1.Toleration) bool {
			return tol.ToleratesTaint(logr.Discard(), &t, false)
		}) {
			return false, "the DaemonSet does not tolerate the node's taint " + taintText(t)
		}
	}
	return true, ""
}

// transientTaint reports whether a taint key is one the DaemonSet controller tolerates for
// every DaemonSet (node.kubernetes.io/*) or one that is only on a node while it starts or
// ends (Karpenter's and the cloud provider's).
func transientTaint(key string) bool {
	return strings.HasPrefix(key, "node.kubernetes.io/") || key == taintUnregistered || key == taintDisrupted ||
		key == "node.cloudprovider.kubernetes.io/uninitialized"
}

// taintDisrupted is the taint Karpenter puts on a node it is about to remove.
const taintDisrupted = "karpenter.sh/disrupted"

// taintText renders a taint as key=value:Effect.
func taintText(t corev1.Taint) string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value
	}
	return s + ":" + string(t.Effect)
}

// nodeSelectorText renders node selector terms, e.g. "kubernetes.io/os In [linux],
// eks.amazonaws.com/compute-type NotIn [fargate hybrid auto]"; terms are joined by " or ".
func nodeSelectorText(ns *corev1.NodeSelector) string {
	var terms []string
	for _, t := range ns.NodeSelectorTerms {
		var reqs []string
		for _, r := range append(slices.Clone(t.MatchExpressions), t.MatchFields...) {
			req := r.Key + " " + string(r.Operator)
			if len(r.Values) > 0 {
				req += " [" + strings.Join(r.Values, " ") + "]"
			}
			reqs = append(reqs, req)
		}
		terms = append(terms, strings.Join(reqs, ", "))
	}
	return strings.Join(terms, " or ")
}
