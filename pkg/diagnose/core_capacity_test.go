package diagnose

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/fixture"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestMaxPodsExceedsIPCapacity(t *testing.T) {
	pods := func(n string) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) { s.Nodes[0].Status.Capacity[corev1.ResourcePods] = resource.MustParse(n) }
	}
	customNetworking := func(s *snapshot.Snapshot) { s.AWSNode.Env[SettingCustomNetwork] = "true" }
	finding := func(msg, remedy string) []Finding {
		return []Finding{{ID: "max-pods-exceeds-ip-capacity", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA, Message: msg, Remedy: remedy}}
	}
	// replaced is a finding whose fix ends in replacing nodeA by deleting its NodeClaim.
	replaced := func(msg, remedy string) []Finding {
		f := finding(msg, remedy)
		f[0].Commands = []Command{{Argv: []string{"kubectl", "delete", "nodeclaim", "default-abcde"},
			Changes: "nodeclaim/default-abcde and node/" + nodeA + ": Karpenter drains the node and terminates its instance"}}
		return f
	}
	// keptOut adds, before the node's replacement, the NodePool requirement that keeps xen
	// types out; others says which of the pool's nodes stay.
	keptOut := func(f []Finding, others string) []Finding {
		f[0].Commands = append([]Command{{Argv: []string{"kubectl", "patch", "nodepool", "default", "--type", "json", "-p",
			`[{"op":"add","path":"/spec/template/spec/requirements/-","value":{"key":"karpenter.k8s.aws/instance-hypervisor",` +
				`"operator":"NotIn","values":["xen"]}}]`}, Changes: "nodepool/default",
			Affects: "the NodePool's nodes of xen types drift and Karpenter replaces them: 1 node (m4.large); its other " +
				"nodes stay: " + others}}, f[0].Commands...)
		return f
	}
	pd := ", or enable prefix delegation (aws-node ENABLE_PREFIX_DELEGATION=true) on this Nitro type"
	// A prefix-delegation class whose kubelet.maxPods (110) fits its Nitro nodes, with nodeA on
	// an m4.large (Xen): the VPC CNI gives it secondary IPs, (2 ENIs - 0) x (10 IPv4 - 1) + 2 = 20.
	prefixClass := func(s *snapshot.Snapshot) {
		s.AWSNode.Env[SettingPrefixDelegation] = "true"
		s.NodeClasses[0].Kubelet = &snapshot.Kubelet{MaxPods: new(int32(110))}
		s.Nodes[0].Status.Capacity[corev1.ResourcePods] = resource.MustParse("110")
		for i, typ := range []string{"m5.large", "m5.xlarge"} {
			id := fmt.Sprintf("i-0b%015d", i)
			n := karpenterNode(fmt.Sprintf("ip-10-0-1-%d.us-west-2.compute.internal", 20+i), id, fmt.Sprintf("10.0.1.%d", 20+i))
			n.Labels[corev1.LabelInstanceTypeStable] = typ
			n.Status.Capacity[corev1.ResourcePods] = resource.MustParse("110")
			s.Nodes = append(s.Nodes, n)
			inst := instance(id, fmt.Sprintf("10.0.1.%d", 20+i))
			inst.Type = typ
			s.Instances = append(s.Instances, inst)
		}
		xl := fixture.M5Large()
		xl.Name, xl.VCPUs, xl.MaxENIs, xl.IPv4PerENI = "m5.xlarge", 4, 4, 15
		xl.NetworkCards = []snapshot.NetworkCard{{Index: 0, MaxENIs: 4}}
		m4 := fixture.M5Large()
		m4.Name, m4.Hypervisor, m4.MaxENIs = "m4.large", "xen", 2
		m4.NetworkCards = []snapshot.NetworkCard{{Index: 0, MaxENIs: 2}}
		s.InstanceTypes = append(s.InstanceTypes, xl, m4)
	}
	onM4 := func(s *snapshot.Snapshot) {
		s.Nodes[0].Labels[corev1.LabelInstanceTypeStable] = "m4.large"
		s.Instances[0].Type = "m4.large"
	}
	xenMsg := "capacity.pods 110 is above the 20 pod IPs the ENIs of this m4.large can give: (2 ENIs - 0) x (10 IPv4 - 1) + 2 = 20; " +
		"m4.large is not Nitro (hypervisor xen), so the VPC CNI gives it secondary IPs, not prefixes, though ENABLE_PREFIX_DELEGATION=true"
	runCheckCases(t, maxPodsExceedsIPCapacity, []checkCase{
		{name: "29 pods on an m5.large is silent"},
		{
			name: "110 pods on an m5.large fires",
			edit: pods("110"),
			want: withCommands(finding("capacity.pods 110 is above the 29 pod IPs the ENIs of this m5.large can give: (3 ENIs - 0) x (10 IPv4 - 1) + 2 = 29",
				"set spec.kubelet.maxPods of EC2NodeClass default to at most 29 (the command sets 29)"+pd), maxPodsPatch(29, "1 node (m5.large)")),
		},
		{
			name: "custom networking without reserved ENI fires",
			edit: customNetworking,
			want: withCommands(finding("capacity.pods 29 is above the 20 pod IPs the ENIs of this m5.large can give: (3 ENIs - 1 custom networking) x (10 IPv4 - 1) + 2 = 20",
				"set spec.kubelet.maxPods of EC2NodeClass default to at most 20 (the command sets 20), or set Karpenter's RESERVED_ENIS=1 (settings.reservedENIs) "+
					"so it leaves out the ENI that custom networking or the trunk takes"+pd), maxPodsPatch(20, "1 node (m5.large)")),
		},
		{
			name: "v1beta1 NodePool is where kubelet lives",
			edit: edits(pods("110"), func(s *snapshot.Snapshot) {
				s.NodePools[0].APIVersion = "karpenter.sh/v1beta1"
				s.NodeClasses[0].APIVersion = "karpenter.k8s.aws/v1beta1"
			}),
			want: finding("capacity.pods 110 is above the 29 pod IPs the ENIs of this m5.large can give: (3 ENIs - 0) x (10 IPv4 - 1) + 2 = 29",
				"set spec.template.spec.kubelet.maxPods of NodePool default to at most 29"+pd),
		},
		{
			name: "non-Karpenter node names the node group",
			edit: edits(pods("110"), func(s *snapshot.Snapshot) {
				s.NodeClasses, s.NodeClaims, s.NodePools = nil, nil, nil
				s.Nodes[0].Labels = map[string]string{"eks.amazonaws.com/nodegroup": "ng-1"}
			}),
			want: finding("capacity.pods 110 is above the 29 pod IPs the ENIs of this m5.large can give: (3 ENIs - 0) x (10 IPv4 - 1) + 2 = 29",
				"set the node group's max pods (nodeadm NodeConfig spec.kubelet.config.maxPods) to at most 29"+pd),
		},
		{
			name: "a Xen type in a prefix-delegation class is kept out by its NodePool, not by capping the class",
			edit: edits(prefixClass, onM4),
			want: keptOut(replaced(xenMsg,
				"NodePool default admits m4.large, a xen type the VPC CNI gives no prefixes, while spec.kubelet.maxPods of "+
					"EC2NodeClass default (110) is sized for prefix delegation: add the requirement "+
					"karpenter.k8s.aws/instance-hypervisor NotIn [xen] to NodePool default (or give the types that are not Nitro "+
					"a NodePool and EC2NodeClass of their own with kubelet.maxPods at most 20), then replace the node so it is "+
					"launched on a type that takes prefixes by deleting its NodeClaim default-abcde; capping spec.kubelet.maxPods "+
					"of EC2NodeClass default at 20 instead would also cap 2 other nodes (m5.large, m5.xlarge) below their capacity.pods 110"),
				"2 nodes (m5.large, m5.xlarge)"),
		},
		{name: "the Nitro twin in the prefix-delegation class is silent", edit: prefixClass},
		{
			name: "a type with no hypervisor listed is not one a hypervisor requirement keeps out",
			edit: edits(prefixClass, onM4, func(s *snapshot.Snapshot) { s.InstanceTypes[2].Hypervisor = "" }),
			want: withCommands(finding("capacity.pods 110 is above the 20 pod IPs the ENIs of this m4.large can give: (2 ENIs - 0) x (10 IPv4 - 1) + 2 = 20; "+
				"m4.large is not Nitro, so the VPC CNI gives it secondary IPs, not prefixes, though ENABLE_PREFIX_DELEGATION=true",
				"set spec.kubelet.maxPods of EC2NodeClass default to at most 20 (the command sets 20), which also caps 2 other nodes (m5.large, m5.xlarge) "+
					"below their capacity.pods 110"), maxPodsPatch(20, "3 nodes (m4.large, m5.large, m5.xlarge)")),
		},
		{
			name: "a Xen type with a class of its own sized for secondary IPs is silent",
			edit: edits(prefixClass, onM4, func(s *snapshot.Snapshot) {
				s.Nodes[0].Status.Capacity[corev1.ResourcePods] = resource.MustParse("20")
			}),
		},
		{
			name: "a Xen type alone in its prefix-delegation class caps no other node",
			edit: edits(prefixClass, onM4, func(s *snapshot.Snapshot) { s.Nodes = s.Nodes[:1] }),
			want: keptOut(replaced(xenMsg,
				"NodePool default admits m4.large, a xen type the VPC CNI gives no prefixes, while spec.kubelet.maxPods of "+
					"EC2NodeClass default (110) is sized for prefix delegation: add the requirement "+
					"karpenter.k8s.aws/instance-hypervisor NotIn [xen] to NodePool default (or give the types that are not Nitro "+
					"a NodePool and EC2NodeClass of their own with kubelet.maxPods at most 20), then replace the node so it is "+
					"launched on a type that takes prefixes by deleting its NodeClaim default-abcde; capping spec.kubelet.maxPods "+
					"of EC2NodeClass default at 20 instead would cap no other node"),
				"no node now"),
		},
		{
			name: "a Xen type under prefix delegation with Karpenter's own max pods gets the class setting",
			edit: edits(prefixClass, onM4, customNetworking, func(s *snapshot.Snapshot) {
				s.NodeClasses[0].Kubelet = nil
				s.Nodes = s.Nodes[:1]
				s.Nodes[0].Status.Capacity[corev1.ResourcePods] = resource.MustParse("20")
			}),
			want: withCommands(finding("capacity.pods 20 is above the 11 pod IPs the ENIs of this m4.large can give: (2 ENIs - 1 custom networking) x (10 IPv4 - 1) + 2 = 11; "+
				"m4.large is not Nitro (hypervisor xen), so the VPC CNI gives it secondary IPs, not prefixes, though ENABLE_PREFIX_DELEGATION=true",
				"set spec.kubelet.maxPods of EC2NodeClass default to at most 11 (the command sets 11), or set Karpenter's RESERVED_ENIS=1 (settings.reservedENIs) "+
					"so it leaves out the ENI that custom networking or the trunk takes"), maxPodsPatch(11, "1 node (m4.large)")),
		},
		{
			name: "a class cap says which other nodes it lowers",
			edit: edits(prefixClass, func(s *snapshot.Snapshot) {
				delete(s.AWSNode.Env, SettingPrefixDelegation)
				s.Nodes[1].Status.Capacity[corev1.ResourcePods] = resource.MustParse("29")
				s.Nodes[2].Status.Capacity[corev1.ResourcePods] = resource.MustParse("58")
			}),
			want: withCommands([]Finding{
				{ID: "max-pods-exceeds-ip-capacity", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA,
					Message: "capacity.pods 110 is above the 29 pod IPs the ENIs of this m5.large can give: (3 ENIs - 0) x (10 IPv4 - 1) + 2 = 29",
					Remedy: "set spec.kubelet.maxPods of EC2NodeClass default to at most 29 (the command sets 29), which also caps 1 other node (m5.xlarge) " +
						"below its capacity.pods 58" + pd},
			}, maxPodsPatch(29, "3 nodes (m5.large, m5.xlarge)")),
		},
		{
			name: "prefix delegation lifts the limit",
			edit: edits(pods("110"), func(s *snapshot.Snapshot) { s.AWSNode.Env[SettingPrefixDelegation] = "true" }),
		},
		{
			name: "efa-only interfaces the class asks for but the instance lacks take nothing",
			edit: func(s *snapshot.Snapshot) {
				s.NodeClasses[0].NetworkInterfaces = []snapshot.NetworkInterface{
					{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
					{NetworkCardIndex: 0, DeviceIndex: 1, InterfaceType: "efa-only"},
				}
			},
		},
		{name: "ENABLE_POD_ENI on a type without trunking reserves nothing", edit: func(s *snapshot.Snapshot) { s.AWSNode.Env[SettingPodENI] = "true" }},
		{
			name: "ENABLE_POD_ENI on a trunking type reserves the trunk's slot before it is attached",
			edit: func(s *snapshot.Snapshot) {
				s.AWSNode.Env[SettingPodENI] = "true"
				s.NodeClaims[0].Capacity = map[string]string{"vpc.amazonaws.com/pod-eni": "9"}
			},
			want: withCommands(finding("capacity.pods 29 is above the 20 pod IPs the ENIs of this m5.large can give: (3 ENIs - 1 trunk) x (10 IPv4 - 1) + 2 = 20",
				"set spec.kubelet.maxPods of EC2NodeClass default to at most 20 (the command sets 20), or set Karpenter's RESERVED_ENIS=1 (settings.reservedENIs) "+
					"so it leaves out the ENI that custom networking or the trunk takes"+pd), maxPodsPatch(20, "1 node (m5.large)")),
		},
		{name: "no aws-node DaemonSet (another CNI) is silent", edit: edits(pods("110"), func(s *snapshot.Snapshot) { s.AWSNode = nil })},
		{name: "aws-node gap is silent", edit: edits(customNetworking, gap(snapshot.SourceAWSNode))},
		{name: "instance type gap is silent", edit: edits(pods("110"), func(s *snapshot.Snapshot) { s.InstanceTypes = nil }, gap(snapshot.SourceDescribeInstanceTypes))},
		{name: "no pods capacity is silent", edit: func(s *snapshot.Snapshot) { s.Nodes[0].Status.Capacity = nil }},
	})
}
