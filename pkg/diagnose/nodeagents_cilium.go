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

// ciliumNodeOf returns the CiliumNode of the node (Cilium names it after the node), nil when
// there is none.
func (x *Index) ciliumNodeOf(n *NodeInfo) *snapshot.CiliumNode {
	x.ciliumOnce.Do(func() {
		x.ciliumNodes = keyed(x.Snapshot.CiliumNodes, func(v *snapshot.CiliumNode) string { return v.Name })
	})
	return x.ciliumNodes[n.Name()]
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
	if n.Type == nil || cn.FirstInterfaceIndex == nil || !ok {
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
		"it plus the host-network DaemonSets that run a pod on it: (ENIs of the default network card - " +
		"`first-interface-index` - interfaces `exclude-interface-tags` leaves out) x (IPv4 per ENI - 1), x 16 with prefix " +
		"delegation, less the router's and health endpoint's addresses. Critical when even Cilium's whole count is below " +
		"it, warning when only those two addresses make the difference",
	NotOn: "Cilium in overlay, cluster-pool or multi-pool mode; nodes without a CiliumNode yet; Windows, EKS Auto Mode " +
		"and IPv6 nodes; nodes whose instance type is unknown; a default node (first-interface-index 0, Karpenter's max " +
		"pods) whose host-network pods cover the router's and health endpoint's addresses",
	Why: "Karpenter sets max pods by the VPC CNI's formula (aws/karpenter-provider-aws#5780), which counts 2 host-network " +
		"pods and no address for Cilium's router or health endpoint; with `first-interface-index: 1` Cilium never gives " +
		"the primary ENI's addresses to pods. The scheduler places pods that wait in ContainerCreating without an address",
	Remedy: "set the EC2NodeClass's `spec.kubelet.maxPods` to the count the finding gives (one class per instance size), " +
		"or turn on prefix delegation in Cilium on Nitro types and replace the node, or raise Karpenter's " +
		"`--reserved-enis` to the value the finding gives",
	Sources: []string{
		"cilium/cilium pkg/aws/ipam/node.go (GetMaximumAllocatableIPv4, getEffectiveIPLimits, IsPrefixDelegated)",
		"cilium/cilium operator/pkg/ipam/nodemanager/node.go (getMaxAllocate: the pool's cap)",
		"cilium/cilium pkg/aws/types/types.go (ENI.IsExcludedBySpec), pkg/defaults/defaults.go (ENIFirstInterfaceIndex = 0)",
		"cilium/cilium daemon/infraendpoints/infra_ip_allocation.go (router and health addresses from the pool)",
		"aws/karpenter-provider-aws pkg/providers/instancetype/types.go (ENILimitedPods), aws/karpenter-provider-aws#5780",
	},
	Verified: []Verified{
		{UpstreamCilium, "pkg/aws/ipam/node.go (GetMaximumAllocatableIPv4)",
			"the pool's cap is (limits.Adapters - first-interface-index) x (IPv4 per interface - 1), x 16 (ENIPDBlockSizeIPv4) when IsPrefixDelegated; use-primary-address is not counted"},
		{UpstreamCilium, "operator/pkg/ipam/nodemanager/node.go (getMaxAllocate)",
			"the operator caps a node's pool at GetMaximumAllocatableIPv4 unless spec.ipam.max-allocate is set"},
		{UpstreamCilium, "pkg/aws/ipam/node.go (IsPrefixDelegated)",
			"prefix delegation needs a nitro hypervisor or bare metal, no spec.eni.disable-prefix-delegation, and no interface of the instance (the primary one included) holding addresses other than its primary one without a prefix"},
		{UpstreamCilium, "pkg/aws/ipam/limits/limits.go (updateFromEC2API)",
			"limits.Adapters is DescribeInstanceTypes' NetworkInfo.MaximumNetworkInterfaces, over every network card"},
		{UpstreamCilium, "pkg/aws/api/api.go (AttachNetworkInterface)",
			"Cilium attaches its interfaces with NetworkCardIndex 0: only the default card's interfaces can hold its addresses"},
		{UpstreamCilium, "pkg/aws/types/types.go (ENI.IsExcludedBySpec)",
			"an interface below first-interface-index, or carrying every exclude-interface-tags tag with the same value, is not Cilium's"},
		{UpstreamCilium, "pkg/defaults/defaults.go (ENIFirstInterfaceIndex)",
			"the default first-interface-index is 0; the agent writes it into spec.eni.first-interface-index (pkg/nodediscovery/eni/eni.go mutate)"},
		{UpstreamCilium, "install/kubernetes/cilium/values.yaml (eni.nodeSpec.firstInterfaceIndex)",
			"Helm leaves firstInterfaceIndex nil; cilium-configmap.yaml writes eni-first-interface-index only when it is set"},
		{UpstreamCilium, "operator/pkg/ipam/aws.go (--aws-enable-prefix-delegation)",
			"prefix delegation is the operator flag aws-enable-prefix-delegation, default false; Helm eni.awsEnablePrefixDelegation writes it into cilium-config"},
		{UpstreamCilium, "pkg/option/config.go (InitConfig, MergeConfig)",
			"the config-map directory is merged into viper as configuration, under flags given on the command line"},
		{UpstreamCilium, "daemon/infraendpoints/infra_ip_allocation.go (reallocateRouterIPs, allocateHealthIPs)",
			"the agent takes its router address, and its health endpoint's unless enable-health-checking or enable-endpoint-health-checking is false, from the node's pool"},
		{UpstreamKarpenter, "pkg/providers/instancetype/types.go (ENILimitedPods)",
			"max pods = (default card's MaximumNetworkInterfaces - reserved ENIs - EFA-only interfaces) x (IPv4 per interface - 1) + 2"},
		{UpstreamKarpenter, "pkg/operator/options/options.go (--reserved-enis)",
			"reserved-enis (Helm settings.reservedENIs, default 0) is one setting for every instance type, left out of max pods"},
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
			if !ok || n.Initialising() || c.Pods <= c.Limit() {
				continue
			}
			f := Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("node advertises %d pods (capacity.pods%s) but Cilium's ENI IPAM can give it at most %d pod IPs: "+
					"%s; with %s, %d %s would wait without an address", c.Pods, maxPodsOrigin(n.NodeInfo), c.PodIPs,
					c.Formula, c.hostNetworkText(), c.Pods-c.Limit(), plural(c.Pods-c.Limit(), "pod", "pods")),
				Remedy: x.ciliumMaxPodsRemedy(n.NodeInfo, n.cn, c),
			}
			if c.Pods <= c.Allocatable+c.HostNetworkPods {
				f.Severity = Warning
				f.Message += " (only the router's and health endpoint's addresses make the difference)"
			}
			if c.PrefixDelegationWhy != "" {
				f.Message += "; " + c.PrefixDelegationFrom + " turns prefix delegation on, but not for this node: " + c.PrefixDelegationWhy
			}
			if n.cn.UsePrimaryAddress {
				f.Message += "; spec.eni.use-primary-address does not raise the count: the operator caps the pool without it"
			}
			out = append(out, f)
		}
		return out
	},
}

// hostNetworkText names the pods without a pod address the count leaves room for.
func (c ciliumCapacity) hostNetworkText() string {
	switch {
	case !c.HostNetworkKnown:
		return fmt.Sprintf("the %d host-network pods Karpenter's formula assumes (the DaemonSets were not listed)", c.HostNetworkPods)
	case len(c.HostNetwork) == 0:
		return "no host-network DaemonSet pod"
	}
	return fmt.Sprintf("%d host-network %s (%s)", len(c.HostNetwork), plural(len(c.HostNetwork), "pod", "pods"),
		abbreviate(c.HostNetwork, 4))
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

// karpenterFormulaPods is Karpenter's max pods for the node's type with reserved ENIs held
// back (ENILimitedPods, without EFA-only interfaces).
func karpenterFormulaPods(t *snapshot.InstanceType, reserved int32) int64 {
	usable := int64(max(t.DefaultCardENIs()-reserved, 0))
	if usable == 0 {
		return 0
	}
	return usable*int64(max(t.IPv4PerENI-1, 0)) + karpenterHostNetworkPods
}

// ciliumMaxPodsRemedy names the settings that bring max pods and Cilium's count together, each
// with the value that clears the finding, and only those that do.
func (x *Index) ciliumMaxPodsRemedy(n *NodeInfo, cn *snapshot.CiliumNode, c ciliumCapacity) string {
	class := "the node's EC2NodeClass"
	if n.ClassName != "" {
		class = n.ClassLabel()
	}
	parts := []string{fmt.Sprintf("set spec.kubelet.maxPods to %d in %s for %s nodes (one class per instance size)", c.Limit(), class,
		n.Type.Name)}
	// With prefixes, the pool Cilium can give a new node of this type.
	pd := c
	pd.Allocatable = c.allocatable(true)
	pd.PodIPs = max(pd.Allocatable-c.Infra, 0)
	replace := "replace the node (delete its NodeClaim): Cilium puts a new node's interfaces on prefixes"
	if c.Pods <= pd.Limit() {
		switch {
		case c.PrefixDelegationWhy == ciliumPDMixed:
			parts = append(parts, fmt.Sprintf("%s, %d pod IPs", replace, pd.PodIPs))
		case !c.PrefixDelegation && c.PrefixDelegationWhy == "" && n.Type.Nitro() && !cn.DisablePrefixDelegation:
			on := "turn on prefix delegation in Cilium (Helm eni.awsEnablePrefixDelegation=true, which sets cilium-config " +
				"aws-enable-prefix-delegation: \"true\", or the cilium-operator's --aws-enable-prefix-delegation)"
			if p := x.Snapshot.Cilium.OperatorPrefixDelegation; p != nil && !*p {
				on = "turn on prefix delegation with --aws-enable-prefix-delegation=true in the cilium-operator Deployment's args " +
					"(they set it false, and win over cilium-config)"
			}
			on += fmt.Sprintf(", which gives %d pod IPs", pd.PodIPs)
			if ciliumSecondaryIPsInUse(n) {
				on += ", and " + replace
			}
			parts = append(parts, on)
		}
	}
	if !ciliumMaxPodsSet(n) {
		// Karpenter's own count: the reserved ENIs whose max pods fit Cilium's.
		for now := int32(0); now < n.Type.DefaultCardENIs(); now++ {
			if karpenterFormulaPods(n.Type, now) != c.Pods {
				continue
			}
			for r := now + 1; r < n.Type.DefaultCardENIs(); r++ {
				if p := karpenterFormulaPods(n.Type, r); p <= c.Limit() {
					parts = append(parts, fmt.Sprintf("set Karpenter's --reserved-enis=%d (Helm settings.reservedENIs; every "+
						"instance type), which brings %s max pods to %d", r, n.Type.Name, p))
					break
				}
			}
			break
		}
	}
	return strings.Join(parts, "; or ")
}

// ciliumMaxPodsSet reports whether the node's EC2NodeClass or NodePool sets kubelet.maxPods.
func ciliumMaxPodsSet(n *NodeInfo) bool {
	return (n.Class != nil && n.Class.Kubelet != nil && n.Class.Kubelet.MaxPods != nil) ||
		(n.Pool != nil && n.Pool.Kubelet != nil && n.Pool.Kubelet.MaxPods != nil)
}

var specCiliumIPAMOperatorError = &Spec{
	ID:       "cilium-ipam-operator-error",
	Severity: Warning,
	Family:   FamilyNodeAgents,
	Examines: []string{SubjectNode},
	Title:    "Cilium's operator reports an IPAM error for the node",
	FiresWhen: "Cilium runs with `ipam: cluster-pool` or `multi-pool`, the modes whose operator writes the field, and the " +
		"node's CiliumNode has `status.ipam.operator-status.error` set",
	NotOn: "CiliumNodes without an error; Cilium in ENI mode, whose operator logs its allocation errors and never " +
		"writes the field; other IPAM modes",
	Why: "the operator could not give the node a pod CIDR (its cluster pool is full, a CIDR conflicts) or the node's " +
		"pools: pods on the node wait for an address",
	Remedy: "read the error and the operator's log (kubectl -n kube-system logs deploy/cilium-operator); add room to the " +
		"pool it names (clusterPoolIPv4PodCIDRList, or the CiliumPodIPPool's CIDRs)",
	Sources: []string{
		"cilium/cilium pkg/ipam/types/types.go (IPAMStatus.OperatorStatus)",
		"cilium/cilium operator/pkg/ipam/allocator/podcidr/podcidr.go (cluster-pool: allocateNode writes the error)",
		"cilium/cilium operator/pkg/ipam/allocator/multipool/node_handler.go (multi-pool: \"<handler> allocation failed: ...\")",
		"cilium/cilium operator/pkg/ipam/nodemanager/node.go (syncToAPIServer: ENI mode writes status.eni and release status only)",
	},
	Verified: []Verified{
		{UpstreamCilium, "operator/pkg/ipam/nodemanager/node.go (syncToAPIServer)",
			"the cloud node manager (ENI mode) writes the CiliumNode's status through PopulateStatusFields, PopulateIPReleaseStatus and PopulateStaticIPStatus and spec.ipam.pool; never status.ipam.operator-status"},
		{UpstreamCilium, "operator/pkg/ipam/allocator/podcidr/podcidr.go (allocateNode)",
			"cluster-pool writes the allocation error's text into status.ipam.operator-status.error, e.g. \"allocator <cidrs> full\""},
		{UpstreamCilium, "operator/pkg/ipam/allocator/multipool/node_handler.go (NewNodeHandler)",
			"multi-pool writes \"<handler> allocation failed: <error>\" into status.ipam.operator-status.error; multipool.go StartAllocator runs only with ipam multi-pool"},
		{UpstreamCilium, "operator/pkg/ipam/clusterpool.go (startClusterPoolAllocator)",
			"the cluster-pool allocator, which hands nodes to podcidr.go's NodesPodCIDRManager, runs only with ipam cluster-pool"},
	},
}

// ciliumIPAMOperatorError surfaces the IPAM error Cilium's operator wrote on a CiliumNode, in
// the IPAM modes whose operator writes one.
var ciliumIPAMOperatorError = Check{
	Spec: specCiliumIPAMOperatorError,
	Run: func(x *Index) []Finding {
		c := x.Snapshot.Cilium
		if c == nil || (c.IPAM() != snapshot.CiliumIPAMClusterPool && c.IPAM() != snapshot.CiliumIPAMMultiPool) ||
			x.Unavailable(snapshot.SourceCiliumNodes) {
			return nil
		}
		var out []Finding
		for _, n := range x.checkedNodes() {
			cn := x.ciliumNodeOf(n)
			if cn == nil || cn.OperatorError == "" || n.Windows() || n.AutoMode() {
				continue
			}
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("Cilium's operator (ipam: %s) reports on CiliumNode %s: \"%s\"", c.IPAM(), cn.Name,
					cn.OperatorError),
				Remedy: "kubectl -n kube-system logs deploy/cilium-operator | grep " + n.Name() + "; a full pool needs more CIDRs " +
					"(Helm ipam.operator.clusterPoolIPv4PodCIDRList, or the CiliumPodIPPool's spec.ipv4.cidrs), a CIDR conflict " +
					"the node's spec.ipam.podCIDRs released",
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
		r.HostNetworkPods, r.HostNetwork = c.HostNetworkPods, c.HostNetwork
	}
	for i := range cn.ENIs {
		e := &cn.ENIs[i]
		excluded := e.Excluded(cn)
		r.ENIs = append(r.ENIs, CiliumENIReport{ID: e.ID, Device: e.Number, Subnet: e.Subnet, SecurityGroups: e.SecurityGroups,
			Addresses: e.Addresses, Prefixes: e.Prefixes, Excluded: excluded,
			Managed: cn.FirstInterfaceIndex != nil && e.Number >= *cn.FirstInterfaceIndex && !excluded})
	}
	return r
}
