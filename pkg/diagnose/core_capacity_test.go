package diagnose

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

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
	pd := ", or enable prefix delegation (aws-node ENABLE_PREFIX_DELEGATION=true) on this Nitro type"
	runCheckCases(t, maxPodsExceedsIPCapacity, []checkCase{
		{name: "29 pods on an m5.large is silent"},
		{
			name: "110 pods on an m5.large fires",
			edit: pods("110"),
			want: finding("capacity.pods 110 is above the 29 pod IPs the ENIs of this m5.large can give: (3 ENIs - 0) x (10 IPv4 - 1) + 2 = 29",
				"set spec.kubelet.maxPods of EC2NodeClass default to at most 29"+pd),
		},
		{
			name: "custom networking without reserved ENI fires",
			edit: customNetworking,
			want: finding("capacity.pods 29 is above the 20 pod IPs the ENIs of this m5.large can give: (3 ENIs - 1 custom networking) x (10 IPv4 - 1) + 2 = 20",
				"set spec.kubelet.maxPods of EC2NodeClass default to at most 20, or set Karpenter's RESERVED_ENIS=1 (settings.reservedENIs) "+
					"so it leaves out the ENI that custom networking or the trunk takes"+pd),
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
			want: finding("capacity.pods 29 is above the 20 pod IPs the ENIs of this m5.large can give: (3 ENIs - 1 trunk) x (10 IPv4 - 1) + 2 = 20",
				"set spec.kubelet.maxPods of EC2NodeClass default to at most 20, or set Karpenter's RESERVED_ENIS=1 (settings.reservedENIs) "+
					"so it leaves out the ENI that custom networking or the trunk takes"+pd),
		},
		{name: "no aws-node DaemonSet (another CNI) is silent", edit: edits(pods("110"), func(s *snapshot.Snapshot) { s.AWSNode = nil })},
		{name: "aws-node gap is silent", edit: edits(customNetworking, gap(snapshot.SourceAWSNode))},
		{name: "instance type gap is silent", edit: edits(pods("110"), func(s *snapshot.Snapshot) { s.InstanceTypes = nil }, gap(snapshot.SourceDescribeInstanceTypes))},
		{name: "no pods capacity is silent", edit: func(s *snapshot.Snapshot) { s.Nodes[0].Status.Capacity = nil }},
	})
}
