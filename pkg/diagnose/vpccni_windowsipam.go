package diagnose

import (
	"fmt"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specWindowsIpamNotEnabled = &Spec{
	ID:       "windows-ipam-not-enabled",
	Severity: Critical,
	Family:   FamilyVPCCNI,
	Needs:    []string{snapshot.SourceAWSNode},
	Examines: []string{SubjectNode},
	Title:    "a Windows node advertises no vpc.amazonaws.com/PrivateIPv4Address: Windows pods get no IP",
	FiresWhen: "a Windows node, past its start-up, in a cluster with aws-node, that advertises no " +
		"`vpc.amazonaws.com/PrivateIPv4Address`",
	NotOn: "Linux nodes, booting nodes, clusters without aws-node",
	Why: "the VPC resource controller gives Windows pods their IPs only with Windows IPAM on: without it " +
		"they stay in ContainerCreating",
	Remedy: "`kubectl patch configmap/amazon-vpc-cni -n kube-system --type merge -p " +
		"'{\"data\":{\"enable-windows-ipam\":\"true\"}}'` and the AmazonEKSVPCResourceController policy on the " +
		"cluster role",
	Scope: "enable-windows-ipam in the amazon-vpc-cni ConfigMap, which the VPC resource controller reads for the whole cluster: every Windows node gets pod addresses, which the Affects counts",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/providers/amifamily/windows.go",
		"aws/karpenter-provider-aws pkg/providers/instancetype/types.go (privateIPv4Address: `vpc.amazonaws.com/PrivateIPv4Address` = IPv4PerInterface - 1 of zz_generated.vpclimits.go)",
		"aws/amazon-vpc-resource-controller-k8s pkg/aws/vpc/limits.go",
	},
	Verified: []Verified{
		{UpstreamResourceCtrl, "pkg/condition/conditions.go (IsWindowsIPAMEnabled)",
			"Windows IPAM is on only when the kube-system/amazon-vpc-cni ConfigMap's enable-windows-ipam parses as true."},
		{UpstreamResourceCtrl, "pkg/config/type.go (ResourceNameIPAddress, EnableWindowsIPAMKey)",
			"The resource Windows pods get IPs through is vpc.amazonaws.com/PrivateIPv4Address; the ConfigMap key is enable-windows-ipam."},
		{UpstreamResourceCtrl, "pkg/provider/ip/provider.go (getCapacity)",
			"A Windows node's capacity is the primary ENI's IPv4PerInterface - 1."},
		{UpstreamKarpenter, "pkg/providers/instancetype/types.go (privateIPv4Address)",
			"Karpenter advertises vpc.amazonaws.com/PrivateIPv4Address = IPv4PerInterface - 1 on Windows instance types."},
	},
}

// windowsIPAMNotEnabled finds Windows nodes, past their start-up, that advertise no
// vpc.amazonaws.com/PrivateIPv4Address. On EKS the VPC resource controller gives Windows pods
// their IPs (aws-node runs on Linux only) and advertises them as that resource, once Windows
// IPAM is on (enable-windows-ipam: "true" in the kube-system/amazon-vpc-cni ConfigMap, and
// the AmazonEKSVPCResourceController policy on the cluster role). Without it every Windows
// pod that is not host-network waits in ContainerCreating for an address that never comes.
// Clusters without the aws-node DaemonSet run another CNI and are left out.
var windowsIPAMNotEnabled = Check{
	Spec: specWindowsIpamNotEnabled,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			if !n.Windows() || !x.vpcCNI() || n.Initialising() || n.AutoMode() || x.cniInstanceGone(n) {
				continue
			}
			if _, ok := windowsIPv4(n); ok {
				continue
			}
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("Windows node %s advertises no %s, so the VPC resource controller gives its pods "+
					"no IP address and they stay in ContainerCreating", n.Name(), ResourceWindowsIPv4),
				Remedy: "turn on Windows IPAM: " + windowsIPAMProse(x) + ", and attach the AmazonEKSVPCResourceController policy to the EKS cluster role",
				Commands: []Command{vpcCNIConfigTrue(x, "enable-windows-ipam", "the VPC resource controller gives pod addresses to every Windows node: "+
					nodesAffected(x, "windows", func(n *NodeInfo) bool { return n.Windows() }))},
			})
		}
		return out
	},
}

// windowsIPAMProse says how the command turns on enable-windows-ipam: by creating the
// amazon-vpc-cni ConfigMap when karpnet found it absent, else by setting the key in it.
func windowsIPAMProse(x *Index) string {
	if x.Snapshot.VPCCNIConfigState == snapshot.ConfigMapNotFound {
		return `create the amazon-vpc-cni ConfigMap, which does not exist, with enable-windows-ipam "true" (the command)`
	}
	return `set enable-windows-ipam to "true" in the amazon-vpc-cni ConfigMap (the command; create the ConfigMap if it does not exist)`
}
