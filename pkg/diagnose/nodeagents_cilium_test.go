package diagnose

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ciliumENI turns the healthy fixture into a Cilium ENI-mode cluster whose node has a
// CiliumNode with the given first-interface-index and, from that index on, one interface
// Cilium attached in subnet-0pods with sg-0pods and 9 secondary addresses (prefixes when
// prefixes is set).
func ciliumENI(first int32, config map[string]string, prefixes bool) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		cfg := map[string]string{"ipam": "eni"}
		for k, v := range config {
			cfg[k] = v
		}
		withCilium(cfg)(s)
		in := &s.Instances[0]
		in.ENIs[0].PrivateIPs = in.ENIs[0].PrivateIPs[:1] // aws-node is gone: no secondary address on eth0
		e := snapshot.ENI{ID: "eni-0cilium", InterfaceType: "interface", DeviceIndex: max(first, 1), SubnetID: "subnet-0pods",
			PrimaryIP: "10.0.64.4", SecurityGroups: []snapshot.GroupRef{{ID: "sg-0pods"}}}
		if prefixes {
			e.PrivateIPs, e.IPv4Prefixes = []string{"10.0.64.4"}, []string{"10.0.64.16/28"}
		} else {
			e.PrivateIPs = []string{"10.0.64.4", "10.0.64.5", "10.0.64.6"}
		}
		in.ENIs = append(in.ENIs, e)
		s.Subnets = append(s.Subnets, snapshot.Subnet{ID: "subnet-0pods", CIDR: "10.0.64.0/18", Zone: "us-west-2a",
			Tags: map[string]string{"cilium-pods": "true"}})
		s.SecurityGroups = append(s.SecurityGroups, snapshot.SecurityGroup{ID: "sg-0pods", Name: "pods",
			Tags: map[string]string{"cilium-pods": "true"}})
		s.CiliumNodes = []snapshot.CiliumNode{{Name: nodeA, InstanceID: in.ID, FirstInterfaceIndex: &first,
			SubnetIDs: []string{"subnet-0pods"}, SecurityGroups: []string{"sg-0pods"}}}
	}
}

func maxPods(n int64) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.Nodes[0].Status.Capacity[corev1.ResourcePods] = *resource.NewQuantity(n, resource.DecimalSI)
	}
}

func TestCiliumMaxPodsExceedsIPCapacity(t *testing.T) {
	remedy := "set spec.kubelet.maxPods to 18 in EC2NodeClass default for m5.large nodes (one class per instance size); or " +
		"turn on prefix delegation in Cilium (Helm eni.awsEnablePrefixDelegation=true, cilium-config aws-enable-prefix-delegation: " +
		"\"true\"), which gives 16 addresses per slot; or with first-interface-index 1, Karpenter's --reserved-enis=1 (Helm " +
		"settings.reservedENIs) leaves those interfaces out of its count"
	runCheckCases(t, ciliumMaxPodsExceedsIPCapacity, []checkCase{
		{name: "aws-node's cluster is silent"},
		{name: "Cilium overlay is silent", edit: withCilium(map[string]string{"ipam": "cluster-pool"})},
		{
			name: "first-interface-index 1 with Karpenter's VPC CNI max pods is critical",
			edit: ciliumENI(1, nil, false),
			want: []Finding{{ID: "cilium-max-pods-exceeds-ip-capacity", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA,
				Message: "node advertises 29 pods (capacity.pods, from Karpenter's VPC CNI formula) but Cilium's ENI IPAM can give " +
					"it at most 16 pod IPs: (3 ENIs - first-interface-index 1) x (10 IPv4 per ENI - 1) = 18 addresses; 2 for " +
					"Cilium's router and health endpoint: 16 pod IPs; with 2 host-network pods, 11 pods would wait without an address",
				Remedy: remedy}},
		},
		{
			name: "first-interface-index 0: only the router's and health endpoint's addresses, a warning",
			edit: ciliumENI(0, nil, false),
			want: []Finding{{ID: "cilium-max-pods-exceeds-ip-capacity", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
				Message: "node advertises 29 pods (capacity.pods, from Karpenter's VPC CNI formula) but Cilium's ENI IPAM can give " +
					"it at most 25 pod IPs: (3 ENIs - first-interface-index 0) x (10 IPv4 per ENI - 1) = 27 addresses; 2 for " +
					"Cilium's router and health endpoint: 25 pod IPs; with 2 host-network pods, 2 pods would wait without an " +
					"address (only the router's and health endpoint's addresses make the difference)",
				Remedy: "set spec.kubelet.maxPods to 27 in EC2NodeClass default for m5.large nodes (one class per instance size); " +
					"or turn on prefix delegation in Cilium (Helm eni.awsEnablePrefixDelegation=true, cilium-config " +
					"aws-enable-prefix-delegation: \"true\"), which gives 16 addresses per slot"}},
		},
		{name: "a maxPods that matches Cilium's count is clean", edit: edits(ciliumENI(1, nil, false), maxPods(18), func(s *snapshot.Snapshot) {
			s.NodeClasses[0].Kubelet = &snapshot.Kubelet{MaxPods: new(int32(18))}
		})},
		{name: "prefix delegation with 110 max pods is clean",
			edit: edits(ciliumENI(1, map[string]string{"aws-enable-prefix-delegation": "true"}, true), maxPods(110))},
		{
			name: "prefix delegation on a node whose interfaces hold secondary addresses does not count",
			edit: edits(ciliumENI(1, map[string]string{"aws-enable-prefix-delegation": "true"}, false), maxPods(110), func(s *snapshot.Snapshot) {
				s.NodeClasses[0].Kubelet = &snapshot.Kubelet{MaxPods: new(int32(110))}
			}),
			want: []Finding{{ID: "cilium-max-pods-exceeds-ip-capacity", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA,
				Message: "node advertises 110 pods (capacity.pods, EC2NodeClass default sets kubelet.maxPods 110) but Cilium's ENI " +
					"IPAM can give it at most 16 pod IPs: (3 ENIs - first-interface-index 1) x (10 IPv4 per ENI - 1) = 18 " +
					"addresses; 2 for Cilium's router and health endpoint: 16 pod IPs; with 2 host-network pods, 92 pods would " +
					"wait without an address; cilium-config turns prefix delegation on, but not for this node: its interfaces " +
					"already hold secondary addresses, which Cilium does not mix with prefixes",
				Remedy: "set spec.kubelet.maxPods to 18 in EC2NodeClass default for m5.large nodes (one class per instance size); " +
					"or replace the node (delete its NodeClaim): Cilium starts a new node's interfaces on prefixes; or with first-interface-index 1, Karpenter's --reserved-enis=1 (Helm settings.reservedENIs) leaves those " +
					"interfaces out of its count"}},
		},
		{name: "a node without a CiliumNode yet is silent", edit: edits(ciliumENI(1, nil, false), func(s *snapshot.Snapshot) { s.CiliumNodes = nil })},
		{name: "CiliumNodes that could not be read are silent", edit: edits(ciliumENI(1, nil, false), func(s *snapshot.Snapshot) {
			s.Gaps = []snapshot.Gap{{Source: snapshot.SourceCiliumNodes, Reason: "forbidden"}}
		})},
		{name: "an unknown instance type is silent", edit: edits(ciliumENI(1, nil, false), func(s *snapshot.Snapshot) { s.InstanceTypes = nil })},
	})
}

func TestCiliumENISelectionMismatch(t *testing.T) {
	const remedy = "correct CiliumNode " + nodeA + "'s spec.eni (Helm eni.nodeSpec.subnetIDs, subnetTags, securityGroups, " +
		"securityGroupTags) and replace the node so Cilium attaches its interfaces anew (kubectl delete nodeclaim of node " + nodeA + ")"
	runCheckCases(t, ciliumENISelectionMismatch, []checkCase{
		{name: "interfaces as the CiliumNode asks are clean", edit: ciliumENI(1, nil, false)},
		{name: "the primary interface is never Cilium's to place", edit: ciliumENI(0, nil, false)},
		{
			name: "another subnet and other groups fire",
			edit: edits(ciliumENI(1, nil, false), func(s *snapshot.Snapshot) {
				s.CiliumNodes[0].SubnetIDs = []string{"subnet-0other"}
				s.CiliumNodes[0].SecurityGroups = []string{"sg-0pods", "sg-0extra"}
			}),
			want: []Finding{{ID: "cilium-eni-selection-mismatch", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
				Message: "ENI eni-0cilium (device 1) that Cilium manages is in subnet subnet-0pods, not one of spec.eni.subnet-ids " +
					"(subnet-0other), and carries security groups sg-0pods, not spec.eni.security-groups (sg-0extra, sg-0pods)",
				Remedy: remedy}},
		},
		{
			name: "tags select by exact value",
			edit: edits(ciliumENI(1, nil, false), func(s *snapshot.Snapshot) {
				s.CiliumNodes[0].SubnetIDs, s.CiliumNodes[0].SecurityGroups = nil, nil
				s.CiliumNodes[0].SubnetTags = map[string]string{"cilium-pods": "false"}
				s.CiliumNodes[0].SecurityGroupTags = map[string]string{"cilium-pods": "true"}
			}),
			want: []Finding{{ID: "cilium-eni-selection-mismatch", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
				Message: "ENI eni-0cilium (device 1) that Cilium manages is in subnet subnet-0pods, whose tags do not match " +
					"spec.eni.subnet-tags (cilium-pods=false)",
				Remedy: remedy}},
		},
		{name: "no selection is clean", edit: edits(ciliumENI(1, nil, false), func(s *snapshot.Snapshot) {
			s.CiliumNodes[0].SubnetIDs, s.CiliumNodes[0].SecurityGroups = nil, nil
		})},
	})
}

func TestCiliumIPAMOperatorError(t *testing.T) {
	runCheckCases(t, ciliumIPAMOperatorError, []checkCase{
		{name: "no error is clean", edit: ciliumENI(1, nil, false)},
		{
			name: "the operator's error fires",
			edit: edits(ciliumENI(1, nil, false), func(s *snapshot.Snapshot) {
				s.CiliumNodes[0].OperatorError = "unable to assign additional IPs: InsufficientFreeAddressesInSubnet"
			}),
			want: []Finding{{ID: "cilium-ipam-operator-error", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
				Message: "Cilium's operator reports on CiliumNode " + nodeA + ": \"unable to assign additional IPs: " +
					"InsufficientFreeAddressesInSubnet\"",
				Remedy: "kubectl -n kube-system logs deploy/cilium-operator | grep " + nodeA + "; an InsufficientFreeAddressesInSubnet " +
					"error needs a subnet with room (spec.eni.subnet-ids or subnet-tags), an UnauthorizedOperation one the " +
					"operator's IAM policy"}},
		},
	})
}
