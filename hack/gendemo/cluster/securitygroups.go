package cluster

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

const (
	clusterSGName = "eks-cluster-sg-demo-1790353721"
	nodeSGName    = "demo-node"
	debugSGName   = "demo-debug-ssh"
	vpcCIDR       = "10.0.0.0/16"
	podCIDR       = "100.64.0.0/16"
)

// nodeGroups is what the EC2NodeClasses' security-group selector resolves to.
func (n *network) nodeGroups() []snapshot.GroupRef {
	return []snapshot.GroupRef{{ID: n.clusterSG, Name: clusterSGName}, {ID: n.nodeSG, Name: nodeSGName}}
}

// snapshotSecurityGroups returns DescribeSecurityGroups for the demo's groups.
func (n *network) snapshotSecurityGroups() []snapshot.SecurityGroup {
	anywhere := snapshot.Rule{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}}
	groups := []snapshot.SecurityGroup{
		{
			// The EKS cluster security group allows all traffic from and to itself, which
			// is also what EFA needs.
			ID: n.clusterSG, Name: clusterSGName, VpcID: n.vpcID,
			Inbound:  []snapshot.Rule{{Protocol: "-1", GroupIDs: []string{n.clusterSG}}},
			Outbound: []snapshot.Rule{anywhere, {Protocol: "-1", GroupIDs: []string{n.clusterSG}}},
			Tags: map[string]string{
				"Name":                       clusterSGName,
				"aws:eks:cluster-name":       clusterName,
				"kubernetes.io/cluster/demo": "owned",
				"karpenter.sh/discovery":     clusterName,
			},
		},
		{
			ID: n.nodeSG, Name: nodeSGName, VpcID: n.vpcID,
			Inbound: []snapshot.Rule{
				{Protocol: "-1", GroupIDs: []string{n.nodeSG}},
				{Protocol: "tcp", FromPort: 443, ToPort: 443, GroupIDs: []string{n.clusterSG}},
				{Protocol: "tcp", FromPort: 10250, ToPort: 10250, GroupIDs: []string{n.clusterSG}},
				{Protocol: "tcp", FromPort: 1025, ToPort: 65535, CIDRs: []string{podCIDR}},
			},
			Outbound: []snapshot.Rule{anywhere},
			Tags:     map[string]string{"Name": nodeSGName, "karpenter.sh/discovery": clusterName},
		},
		{
			ID: n.debugSG, Name: debugSGName, VpcID: n.vpcID,
			Inbound:  []snapshot.Rule{{Protocol: "tcp", FromPort: 22, ToPort: 22, CIDRs: []string{vpcCIDR}}},
			Outbound: []snapshot.Rule{anywhere},
			Tags:     map[string]string{"Name": debugSGName},
		},
	}
	slices.SortFunc(groups, func(a, b snapshot.SecurityGroup) int { return strings.Compare(a.ID, b.ID) })
	return groups
}

// cni returns the aws-node DaemonSet settings and one ENIConfig per zone: custom networking
// with pod subnets in 100.64.0.0/16 and prefix delegation, both cluster-wide.
func (n *network) cni() (*snapshot.AWSNode, []snapshot.ENIConfig) {
	node := &snapshot.AWSNode{
		Image: "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.23.1-eksbuild.1",
		Env: map[string]string{
			"ADDITIONAL_ENI_TAGS":                   "{}",
			"AWS_VPC_CNI_NODE_PORT_SUPPORT":         "true",
			"AWS_VPC_ENI_MTU":                       "9001",
			"AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG":    "true",
			"AWS_VPC_K8S_CNI_EXTERNALSNAT":          "false",
			"AWS_VPC_K8S_CNI_LOGLEVEL":              "DEBUG",
			"AWS_VPC_K8S_CNI_RANDOMIZESNAT":         "prng",
			"CLUSTER_NAME":                          clusterName,
			"DISABLE_LEAKED_ENI_CLEANUP":            "true",
			"DISABLE_NETWORK_RESOURCE_PROVISIONING": "false",
			"ENABLE_IPv4":                           "true",
			"ENABLE_IPv6":                           "false",
			"ENABLE_POD_ENI":                        "false",
			"ENABLE_PREFIX_DELEGATION":              "true",
			"ENABLE_SUBNET_DISCOVERY":               "true",
			"ENI_CONFIG_LABEL_DEF":                  "topology.kubernetes.io/zone",
			"NETWORK_POLICY_ENFORCING_MODE":         "standard",
			"VPC_ID":                                n.vpcID,
			"WARM_ENI_TARGET":                       "1",
			"WARM_PREFIX_TARGET":                    "1",
		},
		// As the EKS vpc-cni add-on ships it: Linux on amd64 or arm64, not Fargate, hybrid or
		// Auto Mode nodes, every taint tolerated.
		Scheduling: &snapshot.Scheduling{
			Affinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
					{Key: corev1.LabelOSStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"linux"}},
					{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64", "arm64"}},
					{Key: "eks.amazonaws.com/compute-type", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"fargate", "hybrid", "auto"}},
				}}},
			}},
			Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
		},
		DesiredNumberScheduled: ptr[int32](30),
		// The add-on's network policy agent, left off (enableNetworkPolicy is false by default).
		NodeAgent: &snapshot.NodeAgent{Image: "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon/aws-network-policy-agent:v1.4.2-eksbuild.1"},
	}
	var configs []snapshot.ENIConfig
	for _, z := range []string{"a", "b", "c"} {
		zone := region + z
		configs = append(configs, snapshot.ENIConfig{
			Name: zone, Subnet: n.podSubnet(zone).id, SecurityGroups: []string{n.clusterSG},
		})
	}
	return node, configs
}
