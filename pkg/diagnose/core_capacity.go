package diagnose

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specMaxPodsExceedsIPCapacity = &Spec{
	ID:       "max-pods-exceeds-ip-capacity",
	Severity: Critical,
	Family:   FamilyCore,
	Needs:    []string{snapshot.SourceAWSNode},
	Examines: []string{SubjectNode},
	Title:    "capacity.pods is above what the node's ENIs can give pods",
	FiresWhen: "`capacity.pods` is above what the node's ENIs can ever give pods (formula below, counting what " +
		"is attached to the node, not what its class asks for)",
	NotOn: "nodes aws-node does not run on (another CNI, Cilium's patched aws-node, EKS Auto Mode), Windows " +
		"nodes (110 pods, held to `vpc.amazonaws.com/PrivateIPv4Address`), IPv6 nodes (a /80 per node), " +
		"efa-only interfaces a class asks for that the instance never got (that is " +
		"`efa-interface-count-mismatch` or `efa-unsupported-instance-type`)",
	Why: "pods beyond the IP capacity never get an address: `failed to assign an IP address to container`",
	Remedy: "a type that is not Nitro in a class whose `kubelet.maxPods` is sized for prefix delegation (the VPC CNI " +
		"gives such types secondary IPs): add `karpenter.k8s.aws/instance-hypervisor NotIn [xen]` to the requirements of " +
		"the NodePool that launched it (bare-metal types, which have no hypervisor and take prefixes, stay in), or give " +
		"such types a NodePool and EC2NodeClass of their own, and delete the node's NodeClaim; a cap on the whole class " +
		"is the alternative, with how many of its other nodes (and which types) it would lower. Otherwise set " +
		"`kubelet.maxPods` (EC2NodeClass at v1, NodePool at v1beta1) to at most the capacity, naming the other nodes " +
		"the cap lowers, `RESERVED_ENIS=1`, or prefix delegation on a Nitro type",
	Scope: "the narrowest change that clears it: for a xen type under a class sized for prefix delegation, a requirement on the NodePool that drifts only its xen NodeClaims (requirements are no part of the pool's hash) and the node's replacement; otherwise a kubelet.maxPods on the class that drifts every node of the class, with the other nodes it caps below their current capacity named; Karpenter's RESERVED_ENIS and prefix delegation stay in prose",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s misc/eni-max-pods.txt",
		"aws/karpenter-provider-aws pkg/providers/instancetype/types.go (ENILimitedPods)",
		"aws/amazon-vpc-cni-k8s pkg/ipamd/ipamd.go (hasRoomForEni: the trunk ENI's slot)",
		"aws/amazon-vpc-cni-k8s pkg/ipamd/datastore/data_store.go (GetAllocatableENIs: no pod IPs on the primary ENI with custom networking)",
		"aws/amazon-vpc-cni-k8s#3238",
	},
	Verified: []Verified{
		{UpstreamKarpenterCore, "pkg/controllers/nodeclaim/disruption/drift.go (areRequirementsDrifted)",
			"a NodeClaim drifts when its labels are not compatible with its NodePool's requirements: a requirement added to keep xen types out drifts only the NodeClaims of xen types"},
		{UpstreamKarpenterCore, "pkg/apis/v1/nodepool.go (NodeClaimTemplateSpec.Requirements)",
			"requirements carry hash:\"ignore\": changing them changes no NodePool hash, so no other NodeClaim drifts"},
		{UpstreamKarpenter, "charts/karpenter-crd/templates/karpenter.sh_nodepools.yaml (spec.template.spec.required)",
			"spec.template.spec.requirements is a required list (at most 100 items), so a JSON-patch append to it applies to every NodePool"},
		{UpstreamVPCCNI, "misc/eni-max-pods.txt (header)",
			"Max pods is ENIs x (IPv4 per ENI - 1) + 2: the first IP of each ENI is not for pods, +2 for the host-network aws-node and kube-proxy; multi-card types count the default card (index 0) only."},
		{UpstreamKarpenter, "pkg/providers/instancetype/types.go (ENILimitedPods)",
			"Karpenter's ENI-limited pods: the default card's MaximumNetworkInterfaces - reservedENIs - efa-only interfaces on card 0, x (Ipv4AddressesPerInterface - 1) + 2, and 0 when no interface is left."},
		{UpstreamVPCCNI, "pkg/ipamd/ipamd.go (getMaxENI)",
			"MAX_ENI lowers the ENI count only when it is at least 1 and below the instance type's limit."},
		{UpstreamVPCCNI, "pkg/ipamd/ipamd.go (hasRoomForEni)",
			"With ENABLE_POD_ENI on a trunking-compatible type, one ENI of the default card is kept for the trunk until it is attached."},
		{UpstreamVPCCNI, "pkg/ipamd/datastore/data_store.go (GetAllocatableENIs)",
			"With custom networking the primary ENI gives pods no IP, and a trunk ENI never does."},
		{UpstreamVPCCNI, "pkg/ipamd/datastore/data_store.go (GetPrefixDelegationDefaults)",
			"With prefix delegation each secondary slot holds a /28 prefix of 16 IPv4 addresses (numIPsPerPrefix 16)."},
		{UpstreamVPCCNI, "pkg/ipamd/ipamd.go (isConfigValid), pkg/awsutils/awsutils.go (IsPrefixDelegationSupported)",
			"Prefix delegation is supported only on nitro or bare-metal instances; elsewhere ipamd warns and falls back to secondary IPs (ENABLE_PREFIX_DELEGATION ignored), or fails in IPv6."},
		{UpstreamVPCCNI, "README.md (ENABLE_PREFIX_DELEGATION), pkg/vpc/vpc_ip_resource_limit.go (m4.large, m5.metal)",
			"Prefix delegation is for Nitro instances and Nitro bare metal (v1.11+); m4.large is xen, metal types' hypervisor is unknown with IsBareMetal true."},
		{UpstreamKarpenter, "pkg/providers/instancetype/types.go (pods)",
			"Karpenter's pods capacity is kubelet.maxPods when set, else ENI-limited pods (AMI families that support it) or 110, lowered by podsPerCore; it never reads ENABLE_PREFIX_DELEGATION, so prefix-delegation density comes only from a maxPods that then applies to every type of the class."},
		{UpstreamKarpenter, "pkg/providers/instancetype/types.go (computeRequirements), pkg/apis/v1/labels.go (LabelInstanceHypervisor)",
			"Every instance type carries the well-known requirement karpenter.k8s.aws/instance-hypervisor In [its EC2 Hypervisor], empty for bare metal, which NodePool requirements can select on."},
		{UpstreamKarpenterCore, "pkg/scheduling/requirement.go (NewRequirementWithFlexibility, HasIntersection)",
			"NotIn is a complement requirement: NotIn [xen] intersects In [nitro] and In [\"\"] (bare metal), and not In [xen]; In [nitro] would leave out bare metal."},
		{UpstreamEC2API, "types/enums.go (InstanceTypeHypervisor)",
			"EC2's instance type hypervisors are nitro and xen."},
		{UpstreamKarpenter, "pkg/providers/amifamily/windows.go (FeatureFlags)",
			"The Windows AMI family does not support ENI-limited pod density, so Karpenter gives Windows nodes 110 pods (types.go pods)."},
	},
}

// maxPodsExceedsIPCapacity finds nodes that advertise more pods than their ENIs can give IPs.
// With the VPC CNI every non-hostNetwork pod needs an ENI IP; pods scheduled beyond that stay in
// ContainerCreating with "failed to assign an IP address to container". On Karpenter nodes it
// happens with custom networking or security groups for pods (one ENI fewer) unless
// RESERVED_ENIS is set, and with a kubelet maxPods above the ENI limit. Without the aws-node
// DaemonSet pods may not take VPC addresses at all (an overlay CNI), so the check stays silent,
// and it checks only the nodes aws-node runs on. EKS Auto Mode nodes are left out (Auto Mode
// sets max pods itself by a formula it does not publish, and its CNI is not aws-node), Windows
// nodes too (Karpenter gives them 110 pods, and the scheduler holds their pods to the
// vpc.amazonaws.com/PrivateIPv4Address the VPC resource controller advertises), and IPv6 nodes
// (their pods take addresses from a /80 prefix, with no IPv4 ceiling).
var maxPodsExceedsIPCapacity = Check{
	Spec: specMaxPodsExceedsIPCapacity,
	Run: func(x *Index) []Finding {
		if x.Snapshot.AWSNode == nil {
			return nil
		}
		cni := x.CNI()
		peers := newPeerIndex(x)
		var out []Finding
		for _, n := range x.vpcCNINodes() {
			if n.IPv6() {
				continue // pods take IPv6 addresses from a /80: ipv6-prefix-missing
			}
			r, ok := nodeCapacity(n, cni)
			if !ok || r.Pods <= r.IPCapacity {
				continue
			}
			msg := fmt.Sprintf("capacity.pods %d is above the %d pod IPs the ENIs of this %s can give: %s",
				r.Pods, r.IPCapacity, n.Type.Name, r.Formula)
			if cni.PrefixDelegation && !r.PrefixDelegation {
				msg += fmt.Sprintf("; %s is not Nitro%s, so the VPC CNI gives it secondary IPs, not prefixes, though %s=true",
					n.Type.Name, hypervisorNote(n.Type), SettingPrefixDelegation)
			}
			remedy, commands := maxPodsRemedy(peers, n, r, cni)
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message:  msg,
				Remedy:   remedy,
				Commands: commands,
			})
		}
		return out
	},
}

// nodeCapacity computes the node's CapacityReport; false when the node advertises no pods
// capacity or (on a Linux node) its instance type is unknown. On an EKS Auto Mode node the IP
// capacity is an estimate (autoModeCapacity) and cni is not used; a Windows node's comes from
// the vpc.amazonaws.com/PrivateIPv4Address it advertises, an IPv6 node's from the /80 prefixes
// of its primary ENI. On a Linux node aws-node does not run on, the VPC CNI's settings do not
// apply and the ENI limit is shown with none of them.
func nodeCapacity(n *NodeInfo, cni CNISettings) (CapacityReport, bool) {
	pods, ok := n.Node.Status.Capacity[corev1.ResourcePods]
	if !ok || n.Type == nil && !n.Windows() {
		return CapacityReport{}, false
	}
	var r CapacityReport
	switch {
	case n.Windows():
		r = windowsCapacity(n)
	case n.AutoMode():
		r = autoModeCapacity(n.Type, n.instanceENIs(), n.Class)
	case n.IPv6():
		r = ipv6Capacity(n)
	case !n.VPCCNI:
		r = nodeIPCapacity(n, CNISettings{})
		r.Formula += "; aws-node does not run here (" + n.VPCCNIReason + "), so no VPC CNI check uses it"
	default:
		r = nodeIPCapacity(n, cni)
	}
	r.Pods = pods.Value()
	if r.IPFamily == "" {
		r.IPFamily = IPv4
	}
	return r, true
}

// ResourceWindowsIPv4 is the extended resource the VPC resource controller advertises on
// Windows nodes: one per IPv4 address it can give a Windows pod.
const ResourceWindowsIPv4 corev1.ResourceName = "vpc.amazonaws.com/PrivateIPv4Address"

// windowsIPv4 returns the node's allocatable vpc.amazonaws.com/PrivateIPv4Address (its
// capacity when allocatable has none), and false when it advertises none at all.
func windowsIPv4(n *NodeInfo) (int64, bool) {
	for _, l := range []corev1.ResourceList{n.Node.Status.Allocatable, n.Node.Status.Capacity} {
		if q, ok := l[ResourceWindowsIPv4]; ok {
			return q.Value(), true
		}
	}
	return 0, false
}

// windowsCapacity is the pod IP capacity of a Windows node: the VPC resource controller gives
// Windows pods secondary IPv4 addresses of the primary ENI (IPv4 per ENI - 1) and advertises
// them as vpc.amazonaws.com/PrivateIPv4Address, which its webhook makes every Windows pod
// request, so the scheduler never places more pods than there are addresses.
func windowsCapacity(n *NodeInfo) CapacityReport {
	r := CapacityReport{Windows: true, UsableENIs: 1}
	if t := n.Type; t != nil {
		r.DefaultCardENIs, r.IPv4PerENI = t.DefaultCardENIs(), t.IPv4PerENI
	}
	for _, e := range n.instanceENIs() {
		if e.NetworkCardIndex == 0 {
			r.ENIsAttached++
		}
	}
	ips, ok := windowsIPv4(n)
	if !ok {
		r.Formula = fmt.Sprintf("Windows: the node advertises no %s, so the VPC resource controller gives its pods no "+
			"IP address (Windows IPAM is off)", ResourceWindowsIPv4)
		return r
	}
	r.IPCapacity = ips
	how := ""
	if r.IPv4PerENI > 0 {
		how = fmt.Sprintf(", the primary ENI's %d IPv4 - 1", r.IPv4PerENI)
	}
	r.Formula = fmt.Sprintf("Windows: %d %s from the VPC resource controller%s; the scheduler holds Windows pods to "+
		"it, so capacity.pods is not their IP ceiling", ips, ResourceWindowsIPv4, how)
	return r
}

// ipv6Addresses is the number of addresses in one /80 prefix, 2^48.
const ipv6Addresses = int64(1) << 48

// ipv6Capacity is the pod IP capacity of an IPv6 node: the VPC CNI gives pods addresses from
// a /80 prefix on the primary ENI (2^48 addresses), so there is no IP ceiling below
// capacity.pods; each node uses one IPv4 address of its subnet.
func ipv6Capacity(n *NodeInfo) CapacityReport {
	r := CapacityReport{IPFamily: IPv6, PrefixDelegation: true, UsableENIs: 1}
	if t := n.Type; t != nil {
		r.DefaultCardENIs, r.IPv4PerENI = t.DefaultCardENIs(), t.IPv4PerENI
	}
	prefixes := int64(len(primaryIPv6Prefixes(n)))
	for _, e := range n.instanceENIs() {
		if e.NetworkCardIndex == 0 {
			r.ENIsAttached++
		}
	}
	if prefixes == 0 {
		r.Formula = "IPv6: the primary ENI holds no /80 prefix, so pods get no address"
		return r
	}
	r.IPCapacity = prefixes * ipv6Addresses
	r.Formula = fmt.Sprintf("IPv6: %s on the primary ENI x 2^48 addresses = %d; pods take no IPv4 address",
		countText(prefixes, "/80 prefix", "/80 prefixes"), r.IPCapacity)
	return r
}

// primaryIPv6Prefixes returns the IPv6 prefixes of the instance's primary ENI (card 0, device 0).
func primaryIPv6Prefixes(n *NodeInfo) []string {
	if n.Instance == nil {
		return nil
	}
	if e := primaryENI(n.Instance); e != nil {
		return e.IPv6Prefixes
	}
	return nil
}

// nodeIPCapacity is IPCapacity for a node whose type is known, from its attached ENIs, with a
// trunk slot reserved when security groups for pods are on and the type supports trunking.
func nodeIPCapacity(n *NodeInfo, cni CNISettings) CapacityReport {
	return IPCapacity(n.Type, cni, n.instanceENIs(), cni.PodENI && trunkCapable(n))
}
