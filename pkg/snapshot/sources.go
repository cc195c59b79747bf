package snapshot

// Gap sources. A Gap whose Source is SourceEC2 or SourceKubernetes covers every source of that
// side (no credentials, no Region); the others name one request.
const (
	SourceEC2                     = "ec2"
	SourceDescribeInstances       = "ec2:DescribeInstances"
	SourceDescribeSubnets         = "ec2:DescribeSubnets"
	SourceDescribeSecurityGroups  = "ec2:DescribeSecurityGroups"
	SourceDescribePlacementGroups = "ec2:DescribePlacementGroups"
	SourceDescribeInstanceTypes   = "ec2:DescribeInstanceTypes"
	// SourceClusterInstances is the DescribeInstances by tag that finds the instances Karpenter
	// launched for the cluster, whether or not a NodeClaim names them.
	SourceClusterInstances     = "ec2:DescribeInstances (cluster tag)"
	SourceDescribeRouteTables  = "ec2:DescribeRouteTables"
	SourceDescribeNatGateways  = "ec2:DescribeNatGateways"
	SourceDescribeVpcEndpoints = "ec2:DescribeVpcEndpoints"
	SourceDescribeNetworkAcls  = "ec2:DescribeNetworkAcls"
	// SourceDescribeVpcs reads the VPCs' DHCP options sets, SourceVPCAttributes their
	// enableDnsSupport and enableDnsHostnames, SourceDescribeDhcpOptions the sets.
	SourceDescribeVpcs        = "ec2:DescribeVpcs"
	SourceVPCAttributes       = "ec2:DescribeVpcAttribute"
	SourceDescribeDhcpOptions = "ec2:DescribeDhcpOptions"
	// SourceSubnetInterfaces is the DescribeNetworkInterfaces by subnet that reads every
	// interface of the subnets prefixes are carved from, SourceCIDRReservations their
	// reservations, SourceAvailableInterfaces the DescribeNetworkInterfaces of the interfaces
	// left available in the cluster's VPCs.
	SourceSubnetInterfaces    = "ec2:DescribeNetworkInterfaces (subnet)"
	SourceCIDRReservations    = "ec2:GetSubnetCidrReservations"
	SourceAvailableInterfaces = "ec2:DescribeNetworkInterfaces (available)"
	// SourceInterfaceOwners is the DescribeInstances by ID of the instances the interfaces left
	// available name (InterfaceOwners).
	SourceInterfaceOwners = "ec2:DescribeInstances (interface owners)"

	SourceNodes           = "nodes"
	SourceNodeClaims      = "nodeclaims.karpenter.sh"
	SourceNodePools       = "nodepools.karpenter.sh"
	SourceNodeClasses     = "ec2nodeclasses.karpenter.k8s.aws"
	SourceAutoNodeClasses = "nodeclasses.eks.amazonaws.com"
	SourceENIConfigs      = "eniconfigs.crd.k8s.amazonaws.com"
	SourceCNINodes        = "cninodes.vpcresources.k8s.aws"
	// SourceSecurityGroupPolicies is the VPC resource controller's SecurityGroupPolicy list.
	SourceSecurityGroupPolicies = "securitygrouppolicies.vpcresources.k8s.aws"
	SourceAWSNode               = "daemonsets.apps kube-system/aws-node"
	SourceCilium                = "daemonsets.apps kube-system/cilium"
	SourceCiliumConfig          = "configmaps kube-system/cilium-config"
	SourceCiliumNodes           = "ciliumnodes.cilium.io"
	SourceCiliumOperator        = "deployments.apps kube-system/cilium-operator"
	SourceDaemonSets            = "daemonsets.apps"
	SourceAgents                = "daemonsets.apps in kube-system"
	SourceAgentPods             = "pods of kube-system's node agents"
	SourceIMDSPods              = "pods off the host network"
	SourceNetworkPolicies       = "networkpolicies.networking.k8s.io"
	// SourceClusterNetworkPolicies and SourceApplicationNetworkPolicies are the VPC CNI's
	// policy kinds, read where NetworkPolicies are counted and none exists.
	SourceClusterNetworkPolicies     = "clusternetworkpolicies.networking.k8s.aws"
	SourceApplicationNetworkPolicies = "applicationnetworkpolicies.networking.k8s.aws"
	SourceVPCCNIConfig               = "configmaps kube-system/amazon-vpc-cni"
	SourceCalico                     = "daemonsets.apps calico-node"
	// SourceCoreDNSPods and SourceAWSNodePods are kube-system's pods by label.
	SourceCoreDNSPods = "pods kube-system k8s-app=kube-dns"
	SourceAWSNodePods = "pods kube-system k8s-app=aws-node"
	SourceEvents      = "events"
)

// Unavailable reports whether the snapshot has a Gap for source, directly or through the
// "ec2" gap that covers every ec2:* source. A gap of one Region (RegionGap) does not count: the
// source was read in the other Regions.
func (s *Snapshot) Unavailable(source string) bool {
	for _, g := range s.Gaps {
		if g.Region != "" {
			continue
		}
		if g.Source == source {
			return true
		}
		if g.Source == SourceEC2 && len(source) > len(SourceEC2) && source[:len(SourceEC2)+1] == SourceEC2+":" {
			return true
		}
	}
	return false
}
