package diagnose

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// hostNetwork lists the named kube-system DaemonSets as the cluster's host-network ones,
// scheduling everywhere.
func hostNetwork(names ...string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.Cilium.HostNetworkRead = true
		for _, name := range names {
			s.Cilium.HostNetwork = append(s.Cilium.HostNetwork, snapshot.DaemonSet{Namespace: "kube-system", Name: name,
				Scheduling: &snapshot.Scheduling{Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}})
		}
	}
}

// operatorPD sets --aws-enable-prefix-delegation in the cilium-operator Deployment's args.
func operatorPD(on bool) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) { s.Cilium.OperatorPrefixDelegation = &on }
}

// classMaxPods sets kubelet.maxPods on the EC2NodeClass and the node's capacity.pods to n.
func classMaxPods(n int32) func(*snapshot.Snapshot) {
	return edits(maxPods(int64(n)), func(s *snapshot.Snapshot) { s.NodeClasses[0].Kubelet = &snapshot.Kubelet{MaxPods: new(n)} })
}

// freshPrefixNode is the node replaced with prefix delegation on: its Cilium interface holds a
// prefix and no secondary address.
func freshPrefixNode(s *snapshot.Snapshot) {
	in := &s.Instances[0]
	e := &in.ENIs[len(in.ENIs)-1]
	e.PrivateIPs, e.IPv4Prefixes = e.PrivateIPs[:1], []string{"10.0.64.16/28"}
}

// twoCards gives the fixture's type two network cards of 3 interfaces each.
func twoCards(s *snapshot.Snapshot) {
	s.InstanceTypes[0].MaxENIs = 6
	s.InstanceTypes[0].NetworkCards = []snapshot.NetworkCard{{MaxENIs: 3}, {Index: 1, MaxENIs: 3}}
}

func TestCiliumMaxPodsExceedsIPCapacity(t *testing.T) {
	const id = "cilium-max-pods-exceeds-ip-capacity"
	defaultAgents := []string{"cilium", "cilium-envoy", "kube-proxy"}
	critical := func(msg, remedy string) []Finding {
		return []Finding{{ID: id, Severity: Critical, Node: nodeA, Resource: "node/" + nodeA, Message: msg, Remedy: remedy}}
	}
	warning := func(msg, remedy string) []Finding {
		return []Finding{{ID: id, Severity: Warning, Node: nodeA, Resource: "node/" + nodeA, Message: msg, Remedy: remedy}}
	}
	const pdOn = "turn on prefix delegation in Cilium (Helm eni.awsEnablePrefixDelegation=true, which sets cilium-config " +
		"aws-enable-prefix-delegation: \"true\", or the cilium-operator's --aws-enable-prefix-delegation)"
	const replace = "replace the node (delete its NodeClaim): Cilium puts a new node's interfaces on prefixes"
	first1 := "node advertises 29 pods (capacity.pods, from Karpenter's VPC CNI formula) but Cilium's ENI IPAM can give " +
		"it at most 16 pod IPs: (3 ENIs - first-interface-index 1) x (10 IPv4 per ENI - 1) = 18 addresses; 2 for " +
		"Cilium's router and health endpoint: 16 pod IPs; "
	runCheckCases(t, ciliumMaxPodsExceedsIPCapacity, []checkCase{
		{name: "aws-node's cluster is silent"},
		{name: "Cilium overlay is silent", edit: withCilium(map[string]string{"ipam": "cluster-pool"})},
		{
			name: "a default node (first-interface-index 0, Karpenter's max pods) whose host-network pods cover the router and health endpoint is clean",
			edit: edits(ciliumENI(0, nil, false), hostNetwork(append(defaultAgents, "eks-pod-identity-agent")...)),
		},
		{
			name: "a default node with one host-network pod fewer than the router and health endpoint take: one pod waits, a warning",
			edit: edits(ciliumENI(0, nil, false), hostNetwork(defaultAgents...)),
			want: withCommands(warning("node advertises 29 pods (capacity.pods, from Karpenter's VPC CNI formula) but Cilium's ENI IPAM can "+
				"give it at most 25 pod IPs: (3 ENIs - first-interface-index 0) x (10 IPv4 per ENI - 1) = 27 addresses; 2 for "+
				"Cilium's router and health endpoint: 25 pod IPs; with 3 host-network pods (kube-system/cilium, "+
				"kube-system/cilium-envoy, kube-system/kube-proxy), 1 pod would wait without an address (only the router's "+
				"and health endpoint's addresses make the difference)",
				"set spec.kubelet.maxPods to 28 in EC2NodeClass default for m5.large nodes (one class per instance size; the command sets it on the class as it is); or "+
					pdOn+", which gives 430 pod IPs, and "+replace+"; or set Karpenter's --reserved-enis=1 (Helm "+
					"settings.reservedENIs; every instance type), which brings m5.large max pods to 20"), maxPodsPatch(28, "1 node (m5.large)")),
		},
		{
			name: "a host-network DaemonSet whose nodeSelector excludes the node is not counted",
			edit: edits(ciliumENI(0, nil, false), hostNetwork(append(defaultAgents, "eks-pod-identity-agent")...), func(s *snapshot.Snapshot) {
				s.Cilium.HostNetwork[3].Scheduling.NodeSelector = map[string]string{"gpu": "true"}
			}),
			want: withCommands(warning("node advertises 29 pods (capacity.pods, from Karpenter's VPC CNI formula) but Cilium's ENI IPAM can "+
				"give it at most 25 pod IPs: (3 ENIs - first-interface-index 0) x (10 IPv4 per ENI - 1) = 27 addresses; 2 for "+
				"Cilium's router and health endpoint: 25 pod IPs; with 3 host-network pods (kube-system/cilium, "+
				"kube-system/cilium-envoy, kube-system/kube-proxy), 1 pod would wait without an address (only the router's "+
				"and health endpoint's addresses make the difference)",
				"set spec.kubelet.maxPods to 28 in EC2NodeClass default for m5.large nodes (one class per instance size; the command sets it on the class as it is); or "+
					pdOn+", which gives 430 pod IPs, and "+replace+"; or set Karpenter's --reserved-enis=1 (Helm "+
					"settings.reservedENIs; every instance type), which brings m5.large max pods to 20"), maxPodsPatch(28, "1 node (m5.large)")),
		},
		{
			name: "a host-network DaemonSet that does not tolerate Cilium's startup taint still counts: it runs once the agent is ready",
			edit: edits(ciliumENI(0, nil, false), hostNetwork(append(defaultAgents, "eks-pod-identity-agent")...), func(s *snapshot.Snapshot) {
				s.Cilium.HostNetwork[3].Scheduling.Tolerations = nil
				s.Nodes[0].Spec.Taints = append(s.Nodes[0].Spec.Taints,
					corev1.Taint{Key: "node.cilium.io/agent-not-ready", Value: "true", Effect: corev1.TaintEffectNoExecute})
			}),
		},
		{
			name: "first-interface-index 1 with Karpenter's max pods, DaemonSets not listed: Karpenter's 2 assumed, critical",
			edit: ciliumENI(1, nil, false),
			want: withCommands(critical(first1+"with the 2 host-network pods Karpenter's formula assumes (the DaemonSets were not listed), "+
				"11 pods would wait without an address",
				"set spec.kubelet.maxPods to 18 in EC2NodeClass default for m5.large nodes (one class per instance size; the command sets it on the class as it is); or "+
					pdOn+", which gives 286 pod IPs, and "+replace+"; or set Karpenter's --reserved-enis=2 (Helm "+
					"settings.reservedENIs; every instance type), which brings m5.large max pods to 11"), maxPodsPatch(18, "1 node (m5.large)")),
		},
		{name: "the maxPods remedy clears it", edit: edits(ciliumENI(1, nil, false), classMaxPods(18))},
		{name: "the reserved-enis remedy clears it", edit: edits(ciliumENI(1, nil, false), maxPods(11))},
		{name: "the prefix delegation remedy, the node replaced, clears it",
			edit: edits(ciliumENI(1, map[string]string{"aws-enable-prefix-delegation": "true"}, false), freshPrefixNode)},
		{name: "prefix delegation turned on without replacing the node does not clear it: Cilium keeps its secondary addresses",
			edit: edits(ciliumENI(1, map[string]string{"aws-enable-prefix-delegation": "true"}, false)),
			want: withCommands(critical(first1+"with the 2 host-network pods Karpenter's formula assumes (the DaemonSets were not listed), "+
				"11 pods would wait without an address; cilium-config's aws-enable-prefix-delegation turns prefix delegation on, "+
				"but not for this node: one of its interfaces already holds secondary addresses, which Cilium does not mix with "+
				"prefixes",
				"set spec.kubelet.maxPods to 18 in EC2NodeClass default for m5.large nodes (one class per instance size; the command sets it on the class as it is); or "+
					replace+", 286 pod IPs; or set Karpenter's --reserved-enis=2 (Helm settings.reservedENIs; every instance "+
					"type), which brings m5.large max pods to 11"), maxPodsPatch(18, "1 node (m5.large)"))},
		{name: "prefix delegation with 110 max pods is clean",
			edit: edits(ciliumENI(1, map[string]string{"aws-enable-prefix-delegation": "true"}, true), classMaxPods(110))},
		{name: "prefix delegation set by the operator's args on a Nitro node is clean",
			edit: edits(ciliumENI(1, nil, true), operatorPD(true), classMaxPods(110), hostNetwork(defaultAgents...))},
		{
			name: "prefix delegation set by the operator's args, the primary interface holding secondary addresses: off for the node",
			edit: edits(ciliumENI(1, nil, true), operatorPD(true), classMaxPods(110), hostNetwork(defaultAgents...), func(s *snapshot.Snapshot) {
				s.Instances[0].ENIs[0].PrivateIPs = append(s.Instances[0].ENIs[0].PrivateIPs, "10.0.1.99")
			}),
			want: withCommands(critical("node advertises 110 pods (capacity.pods, EC2NodeClass default sets kubelet.maxPods 110) but Cilium's ENI "+
				"IPAM can give it at most 16 pod IPs: (3 ENIs - first-interface-index 1) x (10 IPv4 per ENI - 1) = 18 "+
				"addresses; 2 for Cilium's router and health endpoint: 16 pod IPs; with 3 host-network pods (kube-system/cilium, "+
				"kube-system/cilium-envoy, kube-system/kube-proxy), 91 pods would wait without an address; the cilium-operator "+
				"Deployment's --aws-enable-prefix-delegation turns prefix delegation on, but not for this node: one of its "+
				"interfaces already holds secondary addresses, which Cilium does not mix with prefixes",
				"set spec.kubelet.maxPods to 19 in EC2NodeClass default for m5.large nodes (one class per instance size; the command sets it on the class as it is); or "+
					replace+", 286 pod IPs"), maxPodsPatch(19, "1 node (m5.large)")),
		},
		{
			name: "the operator's args turning prefix delegation off win over cilium-config",
			edit: edits(ciliumENI(1, map[string]string{"aws-enable-prefix-delegation": "true"}, true), operatorPD(false), classMaxPods(110)),
			want: withCommands(critical("node advertises 110 pods (capacity.pods, EC2NodeClass default sets kubelet.maxPods 110) but Cilium's ENI "+
				"IPAM can give it at most 16 pod IPs: (3 ENIs - first-interface-index 1) x (10 IPv4 per ENI - 1) = 18 "+
				"addresses; 2 for Cilium's router and health endpoint: 16 pod IPs; with the 2 host-network pods Karpenter's "+
				"formula assumes (the DaemonSets were not listed), 92 pods would wait without an address",
				"set spec.kubelet.maxPods to 18 in EC2NodeClass default for m5.large nodes (one class per instance size; the command sets it on the class as it is); or "+
					"turn on prefix delegation with --aws-enable-prefix-delegation=true in the cilium-operator Deployment's args "+
					"(they set it false, and win over cilium-config), which gives 286 pod IPs"), maxPodsPatch(18, "1 node (m5.large)")),
		},
		{
			name: "use-primary-address does not raise the count",
			edit: edits(ciliumENI(1, nil, false), classMaxPods(20), func(s *snapshot.Snapshot) { s.CiliumNodes[0].UsePrimaryAddress = true }),
			want: withCommands(warning("node advertises 20 pods (capacity.pods, EC2NodeClass default sets kubelet.maxPods 20) but Cilium's ENI "+
				"IPAM can give it at most 16 pod IPs: (3 ENIs - first-interface-index 1) x (10 IPv4 per ENI - 1) = 18 "+
				"addresses; 2 for Cilium's router and health endpoint: 16 pod IPs; with the 2 host-network pods Karpenter's "+
				"formula assumes (the DaemonSets were not listed), 2 pods would wait without an address (only the router's and "+
				"health endpoint's addresses make the difference); spec.eni.use-primary-address does not raise the count: the "+
				"operator caps the pool without it",
				"set spec.kubelet.maxPods to 18 in EC2NodeClass default for m5.large nodes (one class per instance size; the command sets it on the class as it is); or "+
					pdOn+", which gives 286 pod IPs, and "+replace), maxPodsPatch(18, "1 node (m5.large)")),
		},
		{
			name: "an interface exclude-interface-tags leaves out gives Cilium nothing",
			edit: edits(ciliumENI(0, nil, false), hostNetwork(append(defaultAgents, "eks-pod-identity-agent")...), classMaxPods(21),
				func(s *snapshot.Snapshot) {
					s.CiliumNodes[0].ExcludeInterfaceTags = map[string]string{"owner": "other"}
					s.CiliumNodes[0].ENIs = []snapshot.CiliumENI{{ID: "eni-0other", Number: 2, Tags: map[string]string{"owner": "other"}}}
				}),
			want: withCommands(warning("node advertises 21 pods (capacity.pods, EC2NodeClass default sets kubelet.maxPods 21) but Cilium's ENI "+
				"IPAM can give it at most 16 pod IPs: (3 ENIs - first-interface-index 0 - 1 excluded by exclude-interface-tags) x "+
				"(10 IPv4 per ENI - 1) = 18 addresses; 2 for Cilium's router and health endpoint: 16 pod IPs; with 4 "+
				"host-network pods (kube-system/cilium, kube-system/cilium-envoy, kube-system/kube-proxy, "+
				"kube-system/eks-pod-identity-agent), 1 pod would wait without an address (only the router's and health "+
				"endpoint's addresses make the difference)",
				"set spec.kubelet.maxPods to 20 in EC2NodeClass default for m5.large nodes (one class per instance size; the command sets it on the class as it is); or "+
					pdOn+", which gives 286 pod IPs, and "+replace), maxPodsPatch(20, "1 node (m5.large)")),
		},
		{
			name: "the excluded interface's maxPods remedy clears it",
			edit: edits(ciliumENI(0, nil, false), hostNetwork(append(defaultAgents, "eks-pod-identity-agent")...), classMaxPods(20),
				func(s *snapshot.Snapshot) {
					s.CiliumNodes[0].ExcludeInterfaceTags = map[string]string{"owner": "other"}
					s.CiliumNodes[0].ENIs = []snapshot.CiliumENI{{ID: "eni-0other", Number: 2, Tags: map[string]string{"owner": "other"}}}
				}),
		},
		{
			name: "a multi-card type at Karpenter's max pods, which counts the default card's interfaces, is clean",
			edit: edits(ciliumENI(0, nil, false), hostNetwork(append(defaultAgents, "eks-pod-identity-agent")...), twoCards),
		},
		{
			name: "a multi-card type: the other card's interfaces hold no Cilium address",
			edit: edits(ciliumENI(0, nil, false), hostNetwork(append(defaultAgents, "eks-pod-identity-agent")...), twoCards, classMaxPods(50)),
			want: withCommands(critical("node advertises 50 pods (capacity.pods, EC2NodeClass default sets kubelet.maxPods 50) but Cilium's ENI "+
				"IPAM can give it at most 25 pod IPs: (3 ENIs of the default network card - first-interface-index 0) x (10 IPv4 "+
				"per ENI - 1) = 27 addresses; 2 for Cilium's router and health endpoint: 25 pod IPs; with 4 host-network pods "+
				"(kube-system/cilium, kube-system/cilium-envoy, kube-system/kube-proxy, kube-system/eks-pod-identity-agent), 21 "+
				"pods would wait without an address",
				"set spec.kubelet.maxPods to 29 in EC2NodeClass default for m5.large nodes (one class per instance size; the command sets it on the class as it is); or "+
					pdOn+", which gives 430 pod IPs, and "+replace), maxPodsPatch(29, "1 node (m5.large)")),
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
		"securityGroupTags) and replace the node so Cilium attaches its interfaces anew (the command)"
	replace := []Command{{Argv: []string{"kubectl", "delete", "nodeclaim", "default-abcde"},
		Changes: "nodeclaim/default-abcde and node/" + nodeA + ": Karpenter drains the node and terminates its instance"}}
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
				Remedy: remedy, Commands: replace}},
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
				Remedy: remedy, Commands: replace}},
		},
		{name: "subnet-ids with no subnet in the node's zone: Cilium falls back to subnet-tags, clean",
			edit: edits(ciliumENI(1, nil, false), func(s *snapshot.Snapshot) {
				s.CiliumNodes[0].SubnetIDs = []string{"subnet-0otherzone"}
				s.CiliumNodes[0].SubnetTags = map[string]string{"cilium-pods": "true"}
			})},
		{name: "no selection is clean", edit: edits(ciliumENI(1, nil, false), func(s *snapshot.Snapshot) {
			s.CiliumNodes[0].SubnetIDs, s.CiliumNodes[0].SecurityGroups = nil, nil
		})},
	})
}

func TestCiliumIPAMOperatorError(t *testing.T) {
	// clusterPool is Cilium in cluster-pool mode with the node's CiliumNode.
	clusterPool := func(mode, operatorError string) func(*snapshot.Snapshot) {
		return edits(withCilium(map[string]string{"ipam": mode}), func(s *snapshot.Snapshot) {
			s.CiliumNodes = []snapshot.CiliumNode{{Name: nodeA, OperatorError: operatorError}}
		})
	}
	logs := []Command{{Argv: []string{"kubectl", "-n", "kube-system", "logs", "deploy/cilium-operator"}, ReadOnly: true}}
	const remedy = "read the lines naming " + nodeA + " in the operator's log (the command); a full pool needs more CIDRs " +
		"(Helm ipam.operator.clusterPoolIPv4PodCIDRList, or the CiliumPodIPPool's spec.ipv4.cidrs), a CIDR conflict the " +
		"node's spec.ipam.podCIDRs released"
	runCheckCases(t, ciliumIPAMOperatorError, []checkCase{
		{name: "no error is clean", edit: clusterPool("cluster-pool", "")},
		{
			name: "cluster-pool: the error the pod CIDR allocator writes fires",
			edit: clusterPool("cluster-pool", "allocator clusterCIDR: 10.0.0.0/8, nodeMask: 24 full"),
			want: []Finding{{ID: "cilium-ipam-operator-error", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
				Message: "Cilium's operator (ipam: cluster-pool) reports on CiliumNode " + nodeA + ": \"allocator clusterCIDR: " +
					"10.0.0.0/8, nodeMask: 24 full\"",
				Remedy: remedy, Commands: logs}},
		},
		{
			name: "multi-pool: the node handler's error fires",
			edit: clusterPool("multi-pool", "ipam-multi-pool-sync allocation failed: cannot allocate from non-existing pool: mars"),
			want: []Finding{{ID: "cilium-ipam-operator-error", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
				Message: "Cilium's operator (ipam: multi-pool) reports on CiliumNode " + nodeA + ": \"ipam-multi-pool-sync " +
					"allocation failed: cannot allocate from non-existing pool: mars\"",
				Remedy: remedy, Commands: logs}},
		},
		{
			name: "ENI mode: the operator never writes the field, so a value there is not its error",
			edit: edits(ciliumENI(1, nil, false), func(s *snapshot.Snapshot) {
				s.CiliumNodes[0].OperatorError = "allocator clusterCIDR: 10.0.0.0/8, nodeMask: 24 full"
			}),
		},
		{name: "CiliumNodes that could not be read are silent", edit: edits(clusterPool("cluster-pool", "allocator full"), func(s *snapshot.Snapshot) {
			s.Gaps = []snapshot.Gap{{Source: snapshot.SourceCiliumNodes, Reason: "forbidden"}}
		})},
	})
}

// TestDescribeCilium checks the node sheet's Cilium section: the host-network pods it counts
// and an interface exclude-interface-tags leaves out, which holds no pod address.
func TestDescribeCilium(t *testing.T) {
	s := healthy()
	edits(ciliumENI(0, nil, false), hostNetwork("cilium", "kube-proxy"), func(s *snapshot.Snapshot) {
		s.CiliumNodes[0].ExcludeInterfaceTags = map[string]string{"owner": "other"}
		s.CiliumNodes[0].ENIs = []snapshot.CiliumENI{{ID: "eni-0a", Number: 0}, {ID: "eni-0other", Number: 2, Tags: map[string]string{"owner": "other"}}}
	})(s)
	x := NewIndex(s)
	r := describeCilium(x, x.Nodes[0])
	if r == nil {
		t.Fatal("no Cilium section on a Cilium ENI node")
	}
	if r.HostNetworkPods != 2 || !slices.Equal(r.HostNetwork, []string{"kube-system/cilium", "kube-system/kube-proxy"}) {
		t.Errorf("host-network pods %d %v, want 2: kube-system/cilium, kube-system/kube-proxy", r.HostNetworkPods, r.HostNetwork)
	}
	// (3 - 0 - 1 excluded) x 9 = 18 addresses, 16 for pods.
	if r.Allocatable != 18 || r.PodIPs != 16 {
		t.Errorf("allocatable %d, pod IPs %d, want 18 and 16", r.Allocatable, r.PodIPs)
	}
	want := []CiliumENIReport{{ID: "eni-0a", Device: 0, Managed: true}, {ID: "eni-0other", Device: 2, Excluded: true}}
	if diff := cmp.Diff(want, r.ENIs); diff != "" {
		t.Errorf("interfaces (-want +got):\n%s", diff)
	}
}
