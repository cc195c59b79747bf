package diagnose

import (
	"fmt"

	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// cniCreated returns an edit that makes the first node ago old at the snapshot.
func cniCreated(ago time.Duration) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) { s.Nodes[0].CreationTimestamp = metav1.NewTime(s.Taken.Add(-ago)) }
}

func TestPrefixDelegationInactive(t *testing.T) {
	// The InsufficientCidrBlocks shape: ipamd got neither a prefix nor a secondary IP.
	nothing := func(s *snapshot.Snapshot) { s.Instances[0].ENIs[0].PrivateIPs = []string{"10.0.1.10"} }
	pd := edits(cniEnv(SettingPrefixDelegation, "true"), cniCreated(30*time.Minute), nothing)
	withPrefix := func(s *snapshot.Snapshot) { s.Instances[0].ENIs[0].IPv4Prefixes = []string{"10.0.1.32/28"} }
	remedy := func(subnet, detail string) string {
		return "look for InsufficientCidrBlocks in ipamd's log on the node (/var/log/aws-routed-eni/ipamd.log): " +
			"pod subnet " + subnet + detail + " is likely fragmented, with free addresses but no free aligned /28; reserve " +
			"a free aligned range of it for prefixes, one you choose (EC2 CreateSubnetCidrReservation, reservation type " +
			"prefix), or give pods a new subnet (one you create), then replace the node by deleting its NodeClaim default-abcde"
	}
	const subnetADetail = " (10.0.1.0/24, 200 free addresses)"
	finding := func(msg, remedy string) []Finding {
		return []Finding{{ID: "prefix-delegation-inactive", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA, Message: msg, Remedy: remedy,
			Commands: claimDeleted("default-abcde", nodeA, "Karpenter")}}
	}
	// scattered reads every interface of subnet A, one address of which is in each of its
	// first 13 /28 blocks: karpnet then knows its largest free run.
	scattered := func(s *snapshot.Snapshot) {
		s.AddressSubnets = []string{subnetA}
		e := snapshot.InterfaceRecord{ID: "eni-0lambda", SubnetID: subnetA, Status: snapshot.InterfaceInUse,
			InterfaceType: "lambda", Description: "AWS Lambda VPC ENI-resize"}
		for b := 0; b <= 12; b++ {
			e.PrivateIPs = append(e.PrivateIPs, fmt.Sprintf("10.0.1.%d", b*16+7))
		}
		s.Interfaces = append(s.Interfaces, e)
	}
	const noPrefix = "ENABLE_PREFIX_DELEGATION=true but none of the ENIs of this m5.large (eni-0primarydef0) holds an IPv4 " +
		"prefix or a secondary IP 30m after the node was created, so ipamd has no address for pods"
	runCheckCases(t, prefixDelegationInactive, []checkCase{
		{name: "prefix delegation off is silent", edit: cniCreated(30 * time.Minute)},
		{
			// Prefix delegation switched on while the node ran: a planned transition.
			name: "secondary IPs and no prefix is info: prefixes come with the next node",
			edit: edits(cniEnv(SettingPrefixDelegation, "true"), cniCreated(30*time.Minute)),
			want: []Finding{{ID: "prefix-delegation-inactive", Severity: Info, Node: nodeA, Resource: "node/" + nodeA,
				Message: "ENABLE_PREFIX_DELEGATION=true but the ENIs of this m5.large (eni-0primarydef0) still hold 1 secondary IP " +
					"and no prefix: prefix delegation came after the node started, and ipamd keeps giving pods the addresses it " +
					"holds and adds no prefix while enough are free, so the node moves to /28 prefixes only when it is replaced",
				Remedy: "replace the node when it should run on prefixes (drift or expiry does it too) by deleting its NodeClaim " +
					"default-abcde (the command)",
				Commands: []Command{{Argv: []string{"kubectl", "delete", "nodeclaim", "default-abcde"},
					Changes: "nodeclaim/default-abcde and node/" + nodeA + ": Karpenter drains the node and terminates its instance"}}}},
		},
		{name: "no prefix 30 minutes in fires", edit: pd, want: finding(noPrefix, remedy(subnetA, subnetADetail))},
		{
			name: "a subnet whose blocks karpnet knows gets a reservation of its free run",
			edit: edits(pd, scattered),
			want: func() []Finding {
				f := finding(noPrefix, "look for InsufficientCidrBlocks in ipamd's log on the node (/var/log/aws-routed-eni/ipamd.log): "+
					"pod subnet "+subnetA+subnetADetail+" is likely fragmented, with free addresses but no free aligned /28; reserve "+
					"its largest free run, 10.0.1.208/28, for prefixes (the create-subnet-cidr-reservation command; a "+
					"reservation may cover addresses in use, it frees none), or give pods a new subnet (one you create), then "+
					"replace the node by deleting its NodeClaim default-abcde")
				f[0].Commands = append([]Command{prefixReservationOf("10.0.1.208/28")}, f[0].Commands...)
				return f
			}(),
		},
		{
			name: "trunk and efa-only ENIs do not count",
			edit: edits(pd, func(s *snapshot.Snapshot) {
				s.Instances[0].ENIs = append(s.Instances[0].ENIs,
					snapshot.ENI{ID: "eni-0trunk", InterfaceType: "trunk", DeviceIndex: 2, SubnetID: subnetA, IPv4Prefixes: []string{"10.0.1.48/28"}},
					snapshot.ENI{ID: "eni-0efa", InterfaceType: "efa", NetworkCardIndex: 1, SubnetID: subnetA},
					snapshot.ENI{ID: "eni-0efaonly", InterfaceType: "efa-only", NetworkCardIndex: 2, SubnetID: subnetA},
				)
			}),
			want: finding("ENABLE_PREFIX_DELEGATION=true but none of the ENIs of this m5.large (eni-0primarydef0, eni-0efa) "+
				"holds an IPv4 prefix or a secondary IP 30m after the node was created, so ipamd has no address for pods",
				remedy(subnetA, subnetADetail)),
		},
		{
			name: "the instance's launch time stands in for the node's creation",
			edit: edits(cniEnv(SettingPrefixDelegation, "true"), nothing, func(s *snapshot.Snapshot) {
				s.Instances[0].LaunchTime = s.Taken.Add(-2*time.Hour - 5*time.Minute)
			}),
			want: finding("ENABLE_PREFIX_DELEGATION=true but none of the ENIs of this m5.large (eni-0primarydef0) holds an IPv4 "+
				"prefix or a secondary IP 2h5m after the node was created, so ipamd has no address for pods", remedy(subnetA, subnetADetail)),
		},
		{
			name: "custom networking names the ENIConfig subnet",
			edit: edits(pd, cniEnv(SettingCustomNetwork, "true"), func(s *snapshot.Snapshot) {
				s.ENIConfigs = []snapshot.ENIConfig{{Name: "default", Subnet: "subnet-0pods"}}
			}),
			want: finding(noPrefix, remedy("subnet-0pods", "")),
		},
		{name: "IPv6 nodes are left to ipv6-prefix-missing", edit: edits(pd, cniEnv(SettingIPv6, "true"))},
		{name: "a prefix is silent", edit: edits(pd, withPrefix)},
		{name: "a missing ENIConfig is left to eniconfig-missing", edit: edits(pd, cniEnv(SettingCustomNetwork, "true"))},
		{name: "an ENIConfig in another zone is left to eniconfig-zone-mismatch", edit: edits(pd, cniEnv(SettingCustomNetwork, "true"),
			func(s *snapshot.Snapshot) {
				s.ENIConfigs = []snapshot.ENIConfig{{Name: "default", Subnet: "subnet-0podsb"}}
				s.Subnets = append(s.Subnets, snapshot.Subnet{ID: "subnet-0podsb", CIDR: "100.64.64.0/18", Zone: "us-west-2b"})
			})},
		{name: "a node whose network is not ready is left to node-network-not-ready", edit: edits(pd, func(s *snapshot.Snapshot) {
			s.Nodes[0].Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse,
				Reason: "KubeletNotReady", Message: "container runtime network not ready: NetworkReady=false"}}
		})},
		{name: "a node younger than 10 minutes is silent", edit: edits(pd, cniCreated(9*time.Minute))},
		{name: "unknown age is silent", edit: cniEnv(SettingPrefixDelegation, "true")},
		{name: "Xen type is silent", edit: edits(pd, func(s *snapshot.Snapshot) { s.InstanceTypes[0].Hypervisor = "xen" })},
		{name: "stopped instance is silent", edit: edits(pd, func(s *snapshot.Snapshot) { s.Instances[0].State = "stopped" })},
		{name: "VPC CNI too old for prefixes is silent", edit: edits(pd, func(s *snapshot.Snapshot) { s.AWSNode.Image = "amazon-k8s-cni:v1.7.10" })},
		{name: "no aws-node DaemonSet is silent", edit: edits(pd, func(s *snapshot.Snapshot) { s.AWSNode = nil })},
		{name: "instances gap is silent", edit: edits(pd, func(s *snapshot.Snapshot) { s.Instances = nil }, gap(snapshot.SourceDescribeInstances))},
	})
}

// ipv6Node returns an edit that makes the healthy node an IPv6 cluster's: aws-node with
// ENABLE_IPv6 and prefix delegation, an IPv6 InternalIP first, a dual-stack subnet and
// a primary ENI with its IPv6 address and /80 prefix.
func ipv6Node(s *snapshot.Snapshot) {
	s.AWSNode.Env[SettingIPv6] = "true"
	s.AWSNode.Env[SettingPrefixDelegation] = "true"
	s.Nodes[0].Status.Addresses = []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: "2600:1f14:aaa:1::10"},
		{Type: corev1.NodeInternalIP, Address: "10.0.1.10"},
	}
	s.Nodes[0].Status.Capacity[corev1.ResourcePods] = resource.MustParse("110")
	s.Nodes[0].CreationTimestamp = metav1.NewTime(s.Taken.Add(-30 * time.Minute))
	s.Subnets[0].IPv6CIDRs = []string{"2600:1f14:aaa:1::/64"}
	eni := &s.Instances[0].ENIs[0]
	eni.IPv6Addresses = []string{"2600:1f14:aaa:1::10"}
	eni.IPv6Prefixes = []string{"2600:1f14:aaa:1:8000::/80"}
	eni.PrivateIPs = []string{"10.0.1.10"}
}

func TestIPv6PrefixMissing(t *testing.T) {
	noPrefix := func(s *snapshot.Snapshot) { s.Instances[0].ENIs[0].IPv6Prefixes = nil }
	runCheckCases(t, ipv6PrefixMissing, []checkCase{
		{name: "an IPv4 node is silent"},
		{name: "an IPv6 node with its /80 is silent", edit: ipv6Node},
		{
			name: "an IPv6 node without a /80 fires",
			edit: edits(ipv6Node, noPrefix),
			want: []Finding{{
				ID: "ipv6-prefix-missing", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA,
				Message: "the node takes IPv6 pod addresses (aws-node ENABLE_IPv6=true) but the primary ENI of instance " +
					instanceA + " in " + subnetA + " (2600:1f14:aaa:1::/64) holds no /80 prefix, so pods get no address",
				Remedy: "give a subnet without an IPv6 CIDR a /64 of the VPC's IPv6 block, one you choose (EC2 " +
					"AssociateSubnetCidrBlock), allow " +
					"ec2:AssignIpv6Addresses to the role aws-node uses (AmazonEKS_CNI_IPv6_Policy), read ipamd's log " +
					"(/var/log/aws-routed-eni/ipamd.log) for the EC2 error, then replace the node by deleting its NodeClaim default-abcde",
				Commands: claimDeleted("default-abcde", nodeA, "Karpenter"),
			}},
		},
		{name: "a booting IPv6 node is silent", edit: edits(ipv6Node, noPrefix, cniCreated(time.Minute))},
		{name: "without aws-node another CNI gives addresses", edit: edits(ipv6Node, noPrefix, func(s *snapshot.Snapshot) { s.AWSNode = nil })},
	})
}

// TestIPv6NodeHasNoIPv4Ceiling: on an IPv6 node 110 pods on an m5.large (29 IPv4) is healthy,
// and both InternalIPs are compared with the instance, each in its family.
func TestIPv6NodeHasNoIPv4Ceiling(t *testing.T) {
	for _, c := range []Check{maxPodsExceedsIPCapacity, maxPodsBelowIPCapacity, prefixDelegationInactive,
		internalIPOutsideSubnet, internalIPNotInstanceIP} {
		runCheckCases(t, c, []checkCase{{name: "IPv6 node with 110 pods is silent", edit: ipv6Node}})
	}
	runCheckCases(t, internalIPNotInstanceIP, []checkCase{{
		name: "an IPv6 InternalIP that is not the instance's fires",
		edit: edits(ipv6Node, func(s *snapshot.Snapshot) { s.Nodes[0].Status.Addresses[0].Address = "2600:1f14:aaa:1::99" }),
		want: []Finding{{
			ID: "internal-ip-not-instance-ip", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA,
			Message: "InternalIP 2600:1f14:aaa:1::99 is none of the 1 IPv6 addresses of instance " + instanceA +
				" (primary 2600:1f14:aaa:1::10)",
			Remedy: "kubelet must report the instance's primary IP: remove any --node-ip override, then replace the node by " +
				"deleting its NodeClaim default-abcde; or delete the stale Node " + nodeA + " if another instance took its name",
			Commands: claimDeleted("default-abcde", nodeA, "Karpenter"),
		}},
	}})
	runCheckCases(t, internalIPOutsideSubnet, []checkCase{{
		name: "an IPv6 InternalIP outside the subnet's IPv6 CIDR fires",
		edit: edits(ipv6Node, func(s *snapshot.Snapshot) { s.Nodes[0].Status.Addresses[0].Address = "2600:1f14:bbb:1::10" }),
		want: []Finding{{
			ID: "internal-ip-outside-subnet", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA,
			Message: "InternalIP 2600:1f14:bbb:1::10 is outside " + subnetA + " (2600:1f14:aaa:1::/64) of instance " + instanceA,
			Remedy: "kubelet must report the primary ENI's IP: remove any --node-ip override (nodeadm NodeConfig " +
				"spec.kubelet.flags or user data), then replace the node by deleting its NodeClaim default-abcde; a Node " +
				"reused by another instance must be deleted",
			Commands: claimDeleted("default-abcde", nodeA, "Karpenter"),
		}},
	}})
	r := describeFirst(edited(healthy(), ipv6Node))
	if r.Platform.IPFamily != IPv6 || r.Capacity == nil || r.Capacity.IPFamily != IPv6 || r.Capacity.IPCapacity != 1<<48 {
		t.Errorf("got platform %+v, capacity %+v; want IPv6 with one /80 (2^48 addresses)", r.Platform, r.Capacity)
	}
}
