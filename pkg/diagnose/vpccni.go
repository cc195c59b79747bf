package diagnose

import (
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// cniChecks are the VPC CNI checks: pod IP capacity and allocation, prefix delegation, custom
// networking, security groups for pods, the CNI version, and node network readiness.
func cniChecks() []Check {
	return []Check{
		maxPodsBelowIPCapacity,
		podIPAllocationFailures,
		prefixDelegationInactive,
		ipv6PrefixMissing,
		eniConfigMissing,
		eniConfigZoneMismatch,
		eniConfigSubnetMismatch,
		eniConfigReferenceMissing,
		trunkENIMissing,
		sgpUnsupportedTypes,
		windowsIPAMNotEnabled,
		vpcCNIVersionTooOld,
		nodeNetworkNotReady,
		nodeClaimDrifted,
		eniLeaked,
	}
}

// awsNodeResource is the resource name of the VPC CNI DaemonSet.
const awsNodeResource = "daemonset/kube-system/aws-node"

// vpcCNI reports whether the cluster runs the VPC CNI as the aws-node DaemonSet and karpnet
// could read it. Without it pods may not take VPC addresses at all (another CNI), so VPC CNI
// checks stay silent.
func (x *Index) vpcCNI() bool {
	return x.Snapshot.AWSNode != nil && !x.Unavailable(snapshot.SourceAWSNode)
}

// cniSettingOn reports whether the aws-node env turns the boolean setting name on.
func (x *Index) cniSettingOn(name string) bool {
	on, err := strconv.ParseBool(strings.TrimSpace(x.Setting(name, "false")))
	return err == nil && on
}

// vpcCNINodes returns the checked nodes whose pods the VPC CNI (aws-node) networks: the nodes
// the aws-node DaemonSet runs on (NodeInfo.VPCCNI). EKS Auto Mode, Windows, Fargate and hybrid
// nodes, and nodes the DaemonSet's nodeSelector, affinity or tolerations keep it off (as
// Cilium's EKS install does), are left out: none of aws-node's settings apply there.
func (x *Index) vpcCNINodes() []*NodeInfo {
	x.vpcCNIOnce.Do(func() {
		for _, n := range x.checkedNodes() {
			if n.VPCCNI {
				x.vpcCNIList = append(x.vpcCNIList, n)
			}
		}
	})
	return x.vpcCNIList
}

// awsNodeRunsNowhere reports whether the snapshot has checked nodes and aws-node runs on none
// of them, so that its settings matter nowhere.
func (x *Index) awsNodeRunsNowhere() bool {
	nodes := x.checkedNodes()
	return len(nodes) > 0 && len(x.vpcCNINodes()) == 0
}

// prefixDelegationUsable reports whether aws-node has prefix delegation on and runs a VPC CNI
// that supports it (an unparsable version counts as supporting it; vpc-cni-version-too-old
// reports a version that does not).
func (x *Index) prefixDelegationUsable() bool {
	if !x.vpcCNI() || !x.cniSettingOn(SettingPrefixDelegation) {
		return false
	}
	v, ok := parseCNIVersion(x.Snapshot.AWSNode.Image)
	return !ok || !v.less(cniFeatureVersion(SettingPrefixDelegation))
}

// cniInstanceGone reports whether the node's instance is known to be missing or not running;
// instance-not-found and instance-not-running report those nodes, and their pods are not
// placed there any more.
func (x *Index) cniInstanceGone(n *NodeInfo) bool {
	if n.Instance == nil {
		return !x.Unavailable(snapshot.SourceDescribeInstances)
	}
	return n.Instance.State != "" && n.Instance.State != "running"
}
