package diagnose

import (
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// cniEnv returns an edit that sets an aws-node env value.
func cniEnv(name, value string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) { s.AWSNode.Env[name] = value }
}

// cniPods returns an edit that sets the first node's capacity.pods.
func cniPods(n string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) { s.Nodes[0].Status.Capacity[corev1.ResourcePods] = resource.MustParse(n) }
}

// c59xlarge returns the c5.9xlarge limits: 36 vCPUs, 8 ENIs on one card, 30 IPv4 per ENI, Nitro.
func c59xlarge() snapshot.InstanceType {
	return snapshot.InstanceType{
		Name: "c5.9xlarge", Hypervisor: "nitro", VCPUs: 36, MaxENIs: 8,
		NetworkCards: []snapshot.NetworkCard{{Index: 0, MaxENIs: 8}}, IPv4PerENI: 30, IPv6PerENI: 30,
	}
}

func TestMaxPodsBelowIPCapacity(t *testing.T) {
	pd := cniEnv(SettingPrefixDelegation, "true")
	const karpenter = "; Karpenter computes max pods without prefix delegation (aws/karpenter-provider-aws#8210), so it " +
		"must be set explicitly, one value for every instance type it launches (use the smallest type's)"
	finding := func(msg, remedy string) []Finding {
		return []Finding{{ID: "max-pods-below-ip-capacity", Severity: Info, Node: nodeA, Resource: "node/" + nodeA, Message: msg, Remedy: remedy}}
	}
	const m5Plain = "prefix delegation is on but capacity.pods 29 is the secondary-IP value for m5.large " +
		"(3 ENIs x (10 IPv4 - 1) + 2 = 29); with /28 prefixes its ENIs give (3 ENIs - 0) x (10 IPv4 - 1) x 16 + 2 = 434 " +
		"pod IPs, so it could run 110 pods (max pods is capped at 110, or 250 above 30 vCPUs; this type has 2)"
	runCheckCases(t, maxPodsBelowIPCapacity, []checkCase{
		{name: "prefix delegation off is silent"},
		{
			name: "Karpenter's secondary-IP value with prefixes fires",
			edit: pd,
			want: lowestFor(withCommands(finding(m5Plain, "set spec.kubelet.maxPods of EC2NodeClass default to 110"+karpenter), maxPodsPatch(110, "1 node (m5.large)")), 110),
		},
		{
			name: "value with one reserved ENI under custom networking fires",
			edit: edits(pd, cniEnv(SettingCustomNetwork, "true"), cniPods("20")),
			want: lowestFor(withCommands(finding("prefix delegation is on but capacity.pods 20 is the secondary-IP value for m5.large "+
				"((3 ENIs - 1 custom networking) x (10 IPv4 - 1) + 2 = 20); with /28 prefixes its ENIs give "+
				"(3 ENIs - 1 custom networking) x (10 IPv4 - 1) x 16 + 2 = 290 pod IPs, so it could run 110 pods "+
				"(max pods is capped at 110, or 250 above 30 vCPUs; this type has 2)",
				"set spec.kubelet.maxPods of EC2NodeClass default to 110"+karpenter), maxPodsPatch(110, "1 node (m5.large)")), 110),
		},
		{
			name: "more than 30 vCPUs caps at 250",
			edit: edits(pd, cniPods("234"), func(s *snapshot.Snapshot) {
				s.InstanceTypes = []snapshot.InstanceType{c59xlarge()}
				s.Instances[0].Type = "c5.9xlarge"
			}),
			want: lowestFor(withCommands(finding("prefix delegation is on but capacity.pods 234 is the secondary-IP value for c5.9xlarge "+
				"(8 ENIs x (30 IPv4 - 1) + 2 = 234); with /28 prefixes its ENIs give (8 ENIs - 0) x (30 IPv4 - 1) x 16 + 2 = 3714 "+
				"pod IPs, so it could run 250 pods (max pods is capped at 110, or 250 above 30 vCPUs; this type has 36)",
				"set spec.kubelet.maxPods of EC2NodeClass default to 250"+karpenter), maxPodsPatch(250, "1 node (m5.large)")), 250),
		},
		{
			name: "efa-only ENI on card 0 of the class is left out as Karpenter does",
			edit: edits(pd, cniPods("20"), func(s *snapshot.Snapshot) {
				s.NodeClasses[0].NetworkInterfaces = []snapshot.NetworkInterface{
					{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
					{NetworkCardIndex: 0, DeviceIndex: 1, InterfaceType: "efa-only"},
				}
				s.Instances[0].ENIs = append(s.Instances[0].ENIs, snapshot.ENI{ID: "eni-0efa", InterfaceType: "efa-only", DeviceIndex: 1})
			}),
			want: lowestFor(withCommands(finding("prefix delegation is on but capacity.pods 20 is the secondary-IP value for m5.large "+
				"((3 ENIs - 1 efa-only) x (10 IPv4 - 1) + 2 = 20); with /28 prefixes its ENIs give "+
				"(3 ENIs - 1 efa-only) x (10 IPv4 - 1) x 16 + 2 = 290 pod IPs, so it could run 110 pods "+
				"(max pods is capped at 110, or 250 above 30 vCPUs; this type has 2)",
				"set spec.kubelet.maxPods of EC2NodeClass default to 110"+karpenter), maxPodsPatch(110, "1 node (m5.large)")), 110),
		},
		{
			name: "v1beta1 names the NodePool",
			edit: edits(pd, func(s *snapshot.Snapshot) {
				s.NodePools[0].APIVersion = "karpenter.sh/v1beta1"
				s.NodeClasses[0].APIVersion = "karpenter.k8s.aws/v1beta1"
			}),
			want: finding(m5Plain, "set spec.template.spec.kubelet.maxPods of NodePool default to 110"+karpenter),
		},
		{
			name: "non-Karpenter node names the node group",
			edit: edits(pd, func(s *snapshot.Snapshot) {
				s.NodeClasses, s.NodeClaims, s.NodePools = nil, nil, nil
				s.Nodes[0].Labels = map[string]string{"eks.amazonaws.com/nodegroup": "ng-1"}
			}),
			want: finding(m5Plain, "set the node group's max pods to 110 (nodeadm NodeConfig spec.kubelet.config.maxPods, "+
				"or max-pods-calculator.sh --cni-prefix-delegation-enabled)"),
		},
		{name: "max pods already raised is silent", edit: edits(pd, cniPods("110"))},
		{name: "another max pods value is silent", edit: edits(pd, cniPods("17"))},
		{name: "kubelet.maxPods set on the class is silent", edit: edits(pd, func(s *snapshot.Snapshot) {
			s.NodeClasses[0].Kubelet = &snapshot.Kubelet{MaxPods: new(int32(29))}
		})},
		{name: "Xen type is silent", edit: edits(pd, func(s *snapshot.Snapshot) { s.InstanceTypes[0].Hypervisor = "xen" })},
		{name: "VPC CNI too old for prefixes is silent", edit: edits(pd, func(s *snapshot.Snapshot) {
			s.AWSNode.Image = "amazon-k8s-cni:v1.8.0-eksbuild.1"
		})},
		{name: "stopped instance is silent", edit: edits(pd, func(s *snapshot.Snapshot) { s.Instances[0].State = "stopped" })},
		{name: "instance not found is silent", edit: edits(pd, func(s *snapshot.Snapshot) { s.Instances = nil })},
		{
			name: "instances gap still fires from the type label",
			edit: edits(pd, func(s *snapshot.Snapshot) { s.Instances = nil }, gap(snapshot.SourceDescribeInstances)),
			want: lowestFor(withCommands(finding(m5Plain, "set spec.kubelet.maxPods of EC2NodeClass default to 110"+karpenter), maxPodsPatch(110, "1 node (m5.large)")), 110),
		},
		{name: "no aws-node DaemonSet is silent", edit: edits(pd, func(s *snapshot.Snapshot) { s.AWSNode = nil })},
		{name: "aws-node gap is silent", edit: edits(pd, gap(snapshot.SourceAWSNode))},
		{name: "instance type gap is silent", edit: edits(pd, func(s *snapshot.Snapshot) { s.InstanceTypes = nil }, gap(snapshot.SourceDescribeInstanceTypes))},
		{name: "no pods capacity is silent", edit: edits(pd, func(s *snapshot.Snapshot) { s.Nodes[0].Status.Capacity = nil })},
	})
}

// lowestFor ends the remedy of want's one finding with what its command sets: v, the lowest
// max pods the class's nodes allow.
func lowestFor(want []Finding, v int) []Finding {
	want[0].Remedy += " (the command sets " + strconv.Itoa(v) + ", the lowest the class's nodes allow)"
	return want
}
