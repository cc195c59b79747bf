package diagnose

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ciliumPrefixBlock is how many addresses one /28 prefix gives Cilium's ENI IPAM
// (pkg/ipam/option ENIPDBlockSizeIPv4).
const ciliumPrefixBlock = 16

// ciliumPDMixed is why Cilium keeps a node on secondary addresses with prefix delegation on.
const ciliumPDMixed = "its interfaces already hold secondary addresses, which Cilium does not mix with prefixes"

// ciliumHostNetworkPods is how many pods on a node take no pod address: the same two that
// Karpenter's max-pods formula adds for the VPC CNI (host-network DaemonSets).
const ciliumHostNetworkPods = 2

// ciliumENIMode reports whether Cilium gives pods addresses of ENIs (cilium-config ipam: eni)
// and its CiliumNodes could be read.
func (x *Index) ciliumENIMode() bool {
	c := x.Snapshot.Cilium
	return c != nil && c.IPAM() == snapshot.CiliumIPAMENI && !x.Unavailable(snapshot.SourceCiliumNodes)
}

// ciliumNodeOf returns the CiliumNode of the node (Cilium names it after the node), nil when
// there is none.
func (x *Index) ciliumNodeOf(n *NodeInfo) *snapshot.CiliumNode {
	x.ciliumOnce.Do(func() {
		x.ciliumNodes = keyed(x.Snapshot.CiliumNodes, func(v *snapshot.CiliumNode) string { return v.Name })
	})
	return x.ciliumNodes[n.Name()]
}

// ciliumCapacity is how many pod addresses Cilium's operator can give a node in ENI mode, as
// its GetMaximumAllocatableIPv4 and getEffectiveIPLimits compute it: the interfaces from
// first-interface-index on, each with its IPv4 addresses less its primary one (unless
// use-primary-address), 16 per address slot with prefix delegation; the agent takes one
// address for its router and one for its health endpoint before any pod.
type ciliumCapacity struct {
	Adapters, IPv4PerENI, First int32
	PrefixDelegation            bool
	// PrefixDelegationWhy says why prefix delegation is off when cilium-config turns it on.
	PrefixDelegationWhy string
	UsePrimaryAddress   bool
	Allocatable, Infra  int64
	// PodIPs is Allocatable less Infra: the most pods with an address of their own.
	PodIPs int64
	// Pods is capacity.pods.
	Pods    int64
	Formula string
}

// ciliumCapacityOf computes the node's Cilium ENI capacity; false when the instance type, the
// CiliumNode's first-interface-index or capacity.pods is unknown.
func (x *Index) ciliumCapacityOf(n *NodeInfo, cn *snapshot.CiliumNode) (ciliumCapacity, bool) {
	pods, ok := n.Node.Status.Capacity[corev1.ResourcePods]
	if n.Type == nil || cn.FirstInterfaceIndex == nil || !ok {
		return ciliumCapacity{}, false
	}
	t, cfg := n.Type, x.Snapshot.Cilium.Config
	c := ciliumCapacity{Adapters: t.MaxENIs, IPv4PerENI: t.IPv4PerENI, First: *cn.FirstInterfaceIndex,
		UsePrimaryAddress: cn.UsePrimaryAddress, Pods: pods.Value()}
	if strings.EqualFold(cfg[snapshot.CiliumKeyPrefixDelegation], "true") {
		switch {
		case !t.Nitro():
			c.PrefixDelegationWhy = "not a Nitro instance type"
		case cn.DisablePrefixDelegation:
			c.PrefixDelegationWhy = "the CiliumNode sets disable-prefix-delegation"
		case ciliumSecondaryIPsInUse(n, c.First):
			c.PrefixDelegationWhy = ciliumPDMixed
		default:
			c.PrefixDelegation = true
		}
	}
	per := int64(max(c.IPv4PerENI-1, 0))
	if c.UsePrimaryAddress {
		per++
	}
	if c.PrefixDelegation {
		per *= ciliumPrefixBlock
	}
	enis := int64(max(c.Adapters-c.First, 0))
	c.Allocatable = enis * per
	c.Infra = 2
	if strings.EqualFold(cfg[snapshot.CiliumKeyHealthChecking], "false") {
		c.Infra = 1
	}
	c.PodIPs = max(c.Allocatable-c.Infra, 0)
	perText := fmt.Sprintf("(%d IPv4 per ENI - 1)", c.IPv4PerENI)
	if c.UsePrimaryAddress {
		perText = fmt.Sprintf("%d IPv4 per ENI", c.IPv4PerENI)
	}
	if c.PrefixDelegation {
		perText += fmt.Sprintf(" x %d", ciliumPrefixBlock)
	}
	c.Formula = fmt.Sprintf("(%d ENIs - first-interface-index %d) x %s = %d addresses; %d for Cilium's router%s: %d pod IPs",
		c.Adapters, c.First, perText, c.Allocatable, c.Infra, map[bool]string{true: " and health endpoint", false: ""}[c.Infra == 2], c.PodIPs)
	return c, true
}

// ciliumSecondaryIPsInUse reports whether an interface Cilium manages holds secondary
// addresses and no prefix: Cilium then keeps the node on secondary addresses.
func ciliumSecondaryIPsInUse(n *NodeInfo, first int32) bool {
	for _, e := range n.instanceENIs() {
		if e.NetworkCardIndex == 0 && e.DeviceIndex >= first && len(e.IPv4Prefixes) == 0 && len(e.PrivateIPs) > 1 {
			return true
		}
	}
	return false
}

// ciliumNode is a node Cilium gives ENI addresses to, with its CiliumNode.
type ciliumNode struct {
	*NodeInfo
	cn *snapshot.CiliumNode
}

// ciliumENINodes returns the checked nodes Cilium gives ENI addresses to, with their
// CiliumNode: Linux EC2 nodes that are not EKS Auto Mode nodes and whose instance runs. The
// list is made once, for the three Cilium checks.
func (x *Index) ciliumENINodes() []ciliumNode {
	x.ciliumListOnce.Do(func() {
		if !x.ciliumENIMode() {
			return
		}
		for _, n := range x.checkedNodes() {
			if n.Windows() || n.AutoMode() || n.IPv6() || x.cniInstanceGone(n) {
				continue
			}
			if cn := x.ciliumNodeOf(n); cn != nil {
				x.ciliumList = append(x.ciliumList, ciliumNode{n, cn})
			}
		}
	})
	return x.ciliumList
}

var specCiliumMaxPodsExceedsIPCapacity = &Spec{
	ID:       "cilium-max-pods-exceeds-ip-capacity",
	Severity: Critical,
	Lower:    []Severity{Warning},
	Family:   FamilyNodeAgents,
	Examines: []string{SubjectNode},
	Title:    "the node advertises more pods than Cilium's ENI IPAM can give addresses to",
	FiresWhen: "Cilium runs with `ipam: eni` and the node's `capacity.pods` is above the pod addresses Cilium can give " +
		"it plus the 2 host-network pods Karpenter assumes: (ENIs - `first-interface-index`) x (IPv4 per ENI - 1), x 16 " +
		"with prefix delegation, less the router's and health endpoint's addresses. Critical when even Cilium's whole " +
		"count is below it, warning when only those two addresses make the difference",
	NotOn: "Cilium in overlay or cluster-pool mode; nodes without a CiliumNode yet; Windows, EKS Auto Mode and IPv6 " +
		"nodes; nodes whose instance type is unknown",
	Why: "Karpenter sets max pods by the VPC CNI's formula (aws/karpenter-provider-aws#5780): with " +
		"`first-interface-index: 1` Cilium never gives the primary ENI's addresses to pods, so the scheduler places pods " +
		"that wait in ContainerCreating without an address",
	Remedy: "set the EC2NodeClass's `spec.kubelet.maxPods` to Cilium's count (one class per instance size), or turn on " +
		"prefix delegation in Cilium (`eni.awsEnablePrefixDelegation=true`) on Nitro types",
	Sources: []string{
		"cilium/cilium pkg/aws/ipam/node.go (GetMaximumAllocatableIPv4, getEffectiveIPLimits, IsPrefixDelegated)",
		"cilium/cilium pkg/aws/types/types.go (ENI.IsExcludedBySpec), pkg/defaults/defaults.go (ENIFirstInterfaceIndex = 0)",
		"cilium/cilium daemon/infraendpoints/infra_ip_allocation.go (router and health addresses from the pool)",
		"aws/karpenter-provider-aws pkg/providers/instancetype/types.go (ENILimitedPods), aws/karpenter-provider-aws#5780",
	},
}

// ciliumMaxPodsExceedsIPCapacity finds Cilium ENI nodes whose capacity.pods is above what
// Cilium can address: pods past that count are scheduled and wait without an IP.
var ciliumMaxPodsExceedsIPCapacity = Check{
	Spec: specCiliumMaxPodsExceedsIPCapacity,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.ciliumENINodes() {
			c, ok := x.ciliumCapacityOf(n.NodeInfo, n.cn)
			if !ok || n.Initialising() || c.Pods <= c.PodIPs+ciliumHostNetworkPods {
				continue
			}
			limit := c.PodIPs + ciliumHostNetworkPods
			f := Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("node advertises %d pods (capacity.pods%s) but Cilium's ENI IPAM can give it at most %d pod IPs: "+
					"%s; with %d host-network pods, %d pods would wait without an address", c.Pods, maxPodsOrigin(n.NodeInfo), c.PodIPs,
					c.Formula, ciliumHostNetworkPods, c.Pods-limit),
				Remedy: ciliumMaxPodsRemedy(n.NodeInfo, c, limit),
			}
			if c.Pods <= c.Allocatable+ciliumHostNetworkPods {
				f.Severity = Warning
				f.Message += " (only the router's and health endpoint's addresses make the difference)"
			}
			if c.PrefixDelegationWhy != "" {
				f.Message += "; cilium-config turns prefix delegation on, but not for this node: " + c.PrefixDelegationWhy
			}
			out = append(out, f)
		}
		return out
	},
}

// maxPodsOrigin says where the node's max pods come from, as far as the snapshot tells.
func maxPodsOrigin(n *NodeInfo) string {
	if n.Class != nil && n.Class.Kubelet != nil && n.Class.Kubelet.MaxPods != nil {
		return fmt.Sprintf(", %s sets kubelet.maxPods %d", n.ClassLabel(), *n.Class.Kubelet.MaxPods)
	}
	if n.Pool != nil && n.Pool.Kubelet != nil && n.Pool.Kubelet.MaxPods != nil {
		return fmt.Sprintf(", NodePool %s sets kubelet.maxPods %d", n.PoolName, *n.Pool.Kubelet.MaxPods)
	}
	if n.Claim != nil {
		return ", from Karpenter's VPC CNI formula"
	}
	return ""
}

// ciliumMaxPodsRemedy names the settings that bring max pods and Cilium's count together.
func ciliumMaxPodsRemedy(n *NodeInfo, c ciliumCapacity, limit int64) string {
	class := "the node's EC2NodeClass"
	if n.ClassName != "" {
		class = n.ClassLabel()
	}
	parts := []string{fmt.Sprintf("set spec.kubelet.maxPods to %d in %s for %s nodes (one class per instance size)", limit, class,
		n.Type.Name)}
	switch {
	case c.PrefixDelegationWhy == ciliumPDMixed:
		parts = append(parts, "replace the node (delete its NodeClaim): Cilium starts a new node's interfaces on prefixes")
	case !c.PrefixDelegation && c.PrefixDelegationWhy == "" && n.Type.Nitro():
		parts = append(parts, "turn on prefix delegation in Cilium (Helm eni.awsEnablePrefixDelegation=true, cilium-config "+
			"aws-enable-prefix-delegation: \"true\"), which gives 16 addresses per slot")
	}
	if c.First > 0 {
		parts = append(parts, fmt.Sprintf("with first-interface-index %d, Karpenter's --reserved-enis=%d (Helm settings.reservedENIs) "+
			"leaves those interfaces out of its count", c.First, c.First))
	}
	return strings.Join(parts, "; or ")
}

var specCiliumIPAMOperatorError = &Spec{
	ID:        "cilium-ipam-operator-error",
	Severity:  Warning,
	Family:    FamilyNodeAgents,
	Examines:  []string{SubjectNode},
	Title:     "Cilium's operator reports an IPAM error for the node",
	FiresWhen: "Cilium runs with `ipam: eni` and the node's CiliumNode has `status.ipam.operator-status.error` set",
	NotOn:     "CiliumNodes without an error; Cilium in other IPAM modes",
	Why: "the operator could not attach an interface or assign addresses (a full subnet, an EC2 limit, a denied " +
		"call): new pods on the node wait for an address",
	Remedy: "read the error and the operator's log (kubectl -n kube-system logs deploy/cilium-operator); it names the " +
		"EC2 call and what EC2 answered",
	Sources: []string{
		"cilium/cilium pkg/ipam/types/types.go (IPAMStatus.OperatorStatus)",
		"cilium/cilium operator/pkg/ipam/allocator/multipool/node_handler.go (the error the operator writes; ENI mode runs on it from 1.20)",
	},
}

// ciliumIPAMOperatorError surfaces the IPAM error Cilium's operator wrote on a CiliumNode.
var ciliumIPAMOperatorError = Check{
	Spec: specCiliumIPAMOperatorError,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.ciliumENINodes() {
			if n.cn.OperatorError == "" {
				continue
			}
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message:  fmt.Sprintf("Cilium's operator reports on CiliumNode %s: \"%s\"", n.cn.Name, n.cn.OperatorError),
				Remedy: "kubectl -n kube-system logs deploy/cilium-operator | grep " + n.Name() + "; an " +
					"InsufficientFreeAddressesInSubnet error needs a subnet with room (spec.eni.subnet-ids or subnet-tags), an " +
					"UnauthorizedOperation one the operator's IAM policy",
			})
		}
		return out
	},
}

// describeCilium builds the node's Cilium IPAM section; nil unless Cilium runs in ENI mode and
// the node has a CiliumNode.
func describeCilium(x *Index, n *NodeInfo) *CiliumReport {
	if !x.ciliumENIMode() || n.Windows() || n.AutoMode() {
		return nil
	}
	cn := x.ciliumNodeOf(n)
	if cn == nil {
		return nil
	}
	r := &CiliumReport{CiliumNode: cn.Name, FirstInterfaceIndex: cn.FirstInterfaceIndex, SubnetIDs: cn.SubnetIDs,
		SubnetTags: cn.SubnetTags, SecurityGroups: cn.SecurityGroups, SecurityGroupTags: cn.SecurityGroupTags,
		OperatorError: cn.OperatorError, ENIs: make([]CiliumENIReport, 0, len(cn.ENIs))}
	if c, ok := x.ciliumCapacityOf(n, cn); ok {
		r.PrefixDelegation, r.Pods, r.Allocatable, r.PodIPs, r.Formula = c.PrefixDelegation, c.Pods, c.Allocatable, c.PodIPs, c.Formula
	}
	for _, e := range cn.ENIs {
		r.ENIs = append(r.ENIs, CiliumENIReport{ID: e.ID, Device: e.Number, Subnet: e.Subnet, SecurityGroups: e.SecurityGroups,
			Addresses: e.Addresses, Prefixes: e.Prefixes, Managed: cn.FirstInterfaceIndex != nil && e.Number >= *cn.FirstInterfaceIndex})
	}
	return r
}
