package diagnose

import (
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ciliumPrefixBlock is how many addresses one /28 prefix gives Cilium's ENI IPAM
// (pkg/ipam/option ENIPDBlockSizeIPv4).
const ciliumPrefixBlock = 16

// ciliumPDMixed is why Cilium keeps a node on secondary addresses with prefix delegation on.
const ciliumPDMixed = "one of its interfaces already holds secondary addresses, which Cilium does not mix with prefixes"

// karpenterHostNetworkPods is how many pods without a pod address Karpenter's max-pods formula
// adds to the VPC CNI's address count (ENILimitedPods' + 2).
const karpenterHostNetworkPods = 2

// ciliumENIMode reports whether Cilium gives pods addresses of ENIs (cilium-config ipam: eni)
// and its CiliumNodes could be read.
func (x *Index) ciliumENIMode() bool {
	c := x.Snapshot.Cilium
	return c != nil && c.IPAM() == snapshot.CiliumIPAMENI && !x.Unavailable(snapshot.SourceCiliumNodes)
}

// ciliumIndex is what the Cilium checks and the node sheet's Cilium section share per Index,
// each part made once when first asked: the CiliumNodes by name, and ciliumENINodes' answer.
type ciliumIndex struct {
	byName       map[string]*snapshot.CiliumNode
	byNameOnce   sync.Once
	eniNodes     []ciliumNode
	eniNodesOnce sync.Once
}

// ciliumNodeOf returns the CiliumNode of the node (Cilium names it after the node), nil when
// there is none.
func (x *Index) ciliumNodeOf(n *NodeInfo) *snapshot.CiliumNode {
	c := &x.cilium
	c.byNameOnce.Do(func() {
		c.byName = keyed(x.Snapshot.CiliumNodes, func(v *snapshot.CiliumNode) string { return v.Name })
	})
	return c.byName[n.Name()]
}

// ciliumCapacity is how many pod addresses Cilium's operator can give a node in ENI mode, as
// its GetMaximumAllocatableIPv4 computes the cap of the node's pool: the interfaces from
// first-interface-index on, each with its IPv4 addresses less its primary one, 16 per address
// slot with prefix delegation (use-primary-address does not raise the cap). Cilium attaches
// interfaces on network card 0 only, so the interfaces are those of the default card, as
// Karpenter counts them; interfaces that exclude-interface-tags leaves out hold a slot and give
// Cilium nothing. The agent takes one address for its router and one for its health endpoint
// before any pod.
type ciliumCapacity struct {
	Adapters, IPv4PerENI, First, Excluded int32
	PrefixDelegation                      bool
	// PrefixDelegationFrom is the setting that turns prefix delegation on; PrefixDelegationWhy
	// says why it is off for this node all the same.
	PrefixDelegationFrom, PrefixDelegationWhy string
	Allocatable, Infra                        int64
	// PodIPs is Allocatable less Infra: the most pods with an address of their own.
	PodIPs int64
	// Pods is capacity.pods.
	Pods int64
	// HostNetwork are the host-network DaemonSets with a pod on the node, which take no pod
	// address; HostNetworkKnown is false when the DaemonSets were not listed (HostNetworkPods
	// is then Karpenter's assumption).
	HostNetwork      []string
	HostNetworkKnown bool
	HostNetworkPods  int64
	Formula          string
}

// Limit is the most pods the node can run with an address for each: Cilium's pod IPs and its
// host-network pods.
func (c ciliumCapacity) Limit() int64 { return c.PodIPs + c.HostNetworkPods }

// ciliumCapacityOf computes the node's Cilium ENI capacity; false when the instance type, the
// CiliumNode's first-interface-index or capacity.pods is unknown.
func (x *Index) ciliumCapacityOf(n *NodeInfo, cn *snapshot.CiliumNode) (ciliumCapacity, bool) {
	pods, ok := n.Node.Status.Capacity[corev1.ResourcePods]
	if _, bad := ciliumFirstIndex(n, cn); n.Type == nil || cn.FirstInterfaceIndex == nil || !ok || bad != "" {
		return ciliumCapacity{}, false
	}
	t, cl := n.Type, x.Snapshot.Cilium
	c := ciliumCapacity{Adapters: t.DefaultCardENIs(), IPv4PerENI: t.IPv4PerENI, First: *cn.FirstInterfaceIndex, Pods: pods.Value()}
	for i := range cn.ENIs {
		if e := &cn.ENIs[i]; e.Number >= c.First && e.Excluded(cn) {
			c.Excluded++
		}
	}
	if on, from := cl.PrefixDelegation(); on {
		c.PrefixDelegationFrom = from
		switch {
		case !t.Nitro():
			c.PrefixDelegationWhy = "not a Nitro instance type"
		case cn.DisablePrefixDelegation:
			c.PrefixDelegationWhy = "the CiliumNode sets disable-prefix-delegation"
		case ciliumSecondaryIPsInUse(n):
			c.PrefixDelegationWhy = ciliumPDMixed
		default:
			c.PrefixDelegation = true
		}
	}
	c.Infra = 2
	if strings.EqualFold(cl.Config[snapshot.CiliumKeyHealthChecking], "false") || strings.EqualFold(cl.Config[snapshot.CiliumKeyHealth], "false") {
		c.Infra = 1
	}
	c.Allocatable = c.allocatable(c.PrefixDelegation)
	c.PodIPs = max(c.Allocatable-c.Infra, 0)
	c.HostNetwork, c.HostNetworkKnown = x.hostNetworkDaemonSetsOn(n)
	c.HostNetworkPods = int64(len(c.HostNetwork))
	if !c.HostNetworkKnown {
		c.HostNetworkPods = karpenterHostNetworkPods
	}
	perText := fmt.Sprintf("(%d IPv4 per ENI - 1)", c.IPv4PerENI)
	if c.PrefixDelegation {
		perText += fmt.Sprintf(" x %d", ciliumPrefixBlock)
	}
	enisText := fmt.Sprintf("%d ENIs - first-interface-index %d", c.Adapters, c.First)
	if len(t.NetworkCards) > 1 {
		enisText = fmt.Sprintf("%d ENIs of the default network card - first-interface-index %d", c.Adapters, c.First)
	}
	if c.Excluded > 0 {
		enisText += fmt.Sprintf(" - %d excluded by exclude-interface-tags", c.Excluded)
	}
	c.Formula = fmt.Sprintf("(%s) x %s = %d addresses; %d for Cilium's router%s: %d pod IPs",
		enisText, perText, c.Allocatable, c.Infra, map[bool]string{true: " and health endpoint", false: ""}[c.Infra == 2], c.PodIPs)
	return c, true
}

// ciliumFirstIndex returns the CiliumNode's first-interface-index, and what is wrong with it
// ("out of range (0 to 3, the interfaces of m5.large)") when it is out of the range Cilium computes with: the CRD takes no value below 0
// (kubebuilder Minimum=0), and the operator counts no pool at all when the instance type has
// fewer interfaces than the index (GetMaximumAllocatableIPv4 returns 0 and logs a warning). A
// value out of that range comes from no working cluster (a hand-edited snapshot, an answer no
// API server gives): nothing is computed from it, and a note names it. Without an instance
// type the bound is the most interfaces any type has.
func ciliumFirstIndex(n *NodeInfo, cn *snapshot.CiliumNode) (int32, string) {
	if cn.FirstInterfaceIndex == nil {
		return 0, ""
	}
	first, most, of := *cn.FirstInterfaceIndex, int32(ciliumMaxInterfaces), "any instance type"
	if n.Type != nil {
		most, of = n.Type.DefaultCardENIs(), n.Type.Name
	}
	switch {
	case first < 0 || (first > most && n.Type == nil):
		return first, fmt.Sprintf("out of range (0 to %d, the interfaces of %s)", most, of)
	case first > most:
		return first, fmt.Sprintf("out of range (0 to %d, the interfaces of %s; Cilium's operator counts no pool for such a node)", most, of)
	}
	return first, ""
}

// ciliumMaxInterfaces bounds first-interface-index when the node's instance type is unknown:
// no instance type has more network interfaces than the snapshot's range for a count of them.
const ciliumMaxInterfaces = 1024

// ciliumIndexNotes says which CiliumNodes have a first-interface-index out of range (nothing
// is computed from them): the first few by name, and how many more.
func ciliumIndexNotes(x *Index) []string {
	var bad []string
	for _, n := range x.ciliumENINodes() {
		if first, why := ciliumFirstIndex(n.NodeInfo, n.cn); why != "" {
			bad = append(bad, fmt.Sprintf("CiliumNode %s: spec.eni.first-interface-index %d is %s", n.cn.Name, first, why))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	more := ""
	if len(bad) > 3 {
		bad, more = bad[:3], fmt.Sprintf("; and %d more", len(bad)-3)
	}
	return []string{strings.Join(bad, "; ") + more + ": no Cilium capacity or interface selection is computed from it"}
}

// allocatable is the operator's cap on the node's pool, with or without prefix delegation.
func (c ciliumCapacity) allocatable(prefixes bool) int64 {
	per := int64(max(c.IPv4PerENI-1, 0))
	if prefixes {
		per *= ciliumPrefixBlock
	}
	return int64(max(c.Adapters-c.First-c.Excluded, 0)) * per
}

// ciliumSecondaryIPsInUse reports whether one of the instance's interfaces, the primary one
// included, holds secondary addresses and no prefix: Cilium then keeps the node on secondary
// addresses (IsPrefixDelegated looks at every interface of the instance).
func ciliumSecondaryIPsInUse(n *NodeInfo) bool {
	for _, e := range n.instanceENIs() {
		if len(e.IPv4Prefixes) == 0 && len(e.PrivateIPs) > 1 {
			return true
		}
	}
	return false
}

// hostNetworkDaemonSetsOn returns the host-network DaemonSets (namespace/name) that run a pod
// on the node, and whether they were listed. Cilium's startup taint does not keep a DaemonSet
// off: its pod comes once the agent is ready.
func (x *Index) hostNetworkDaemonSetsOn(n *NodeInfo) ([]string, bool) {
	c := x.Snapshot.Cilium
	if c == nil || !c.HostNetworkRead || x.Unavailable(snapshot.SourceDaemonSets) {
		return nil, false
	}
	var out []string
	for _, ds := range c.HostNetwork {
		if ds.Scheduling != nil {
			if ok, _ := daemonSetAdmits(ds.Scheduling, n, c.TaintKey()); !ok {
				continue
			}
		}
		out = append(out, ds.Namespace+"/"+ds.Name)
	}
	return out, true
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
	c := &x.cilium
	c.eniNodesOnce.Do(func() {
		if !x.ciliumENIMode() {
			return
		}
		for _, n := range x.checkedNodes() {
			if n.Windows() || n.AutoMode() || n.IPv6() || x.cniInstanceGone(n) {
				continue
			}
			if cn := x.ciliumNodeOf(n); cn != nil {
				c.eniNodes = append(c.eniNodes, ciliumNode{n, cn})
			}
		}
	})
	return c.eniNodes
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
		r.HostNetworkPods, r.HostNetwork = c.HostNetworkPods, c.HostNetwork
	}
	_, bad := ciliumFirstIndex(n, cn)
	r.FirstInterfaceIndexProblem = bad
	for i := range cn.ENIs {
		e := &cn.ENIs[i]
		excluded := e.Excluded(cn)
		r.ENIs = append(r.ENIs, CiliumENIReport{ID: e.ID, Device: e.Number, Subnet: e.Subnet, SecurityGroups: e.SecurityGroups,
			Addresses: e.Addresses, Prefixes: e.Prefixes, Excluded: excluded,
			Managed: cn.FirstInterfaceIndex != nil && bad == "" && e.Number >= *cn.FirstInterfaceIndex && !excluded})
	}
	return r
}
