package diagnose

import (
	"fmt"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specCiliumMaxPodsExceedsIPCapacity = &Spec{
	ID:       "cilium-max-pods-exceeds-ip-capacity",
	Severity: Critical,
	Lower:    []Severity{Warning},
	Family:   FamilyNodeAgents,
	Needs:    []string{snapshot.SourceCiliumNodes},
	Examines: []string{SubjectNode},
	Title:    "the node advertises more pods than Cilium's ENI IPAM can give addresses to",
	FiresWhen: "Cilium runs with `ipam: eni` and the node's `capacity.pods` is above the pod addresses Cilium can give " +
		"it plus the host-network DaemonSets that run a pod on it: (ENIs of the default network card - " +
		"`first-interface-index` - interfaces `exclude-interface-tags` leaves out) x (IPv4 per ENI - 1), x 16 with prefix " +
		"delegation, less the router's and health endpoint's addresses. Critical when even Cilium's whole count is below " +
		"it, warning when only those two addresses make the difference",
	NotOn: "Cilium in overlay, cluster-pool or multi-pool mode; nodes without a CiliumNode yet; Windows, EKS Auto Mode " +
		"and IPv6 nodes; nodes whose instance type is unknown; a default node (first-interface-index 0, Karpenter's max " +
		"pods) whose host-network pods cover the router's and health endpoint's addresses; a `first-interface-index` below 0 " +
		"or above the type's interfaces (a note names it)",
	Why: "Karpenter sets max pods by the VPC CNI's formula (aws/karpenter-provider-aws#5780), which counts 2 host-network " +
		"pods and no address for Cilium's router or health endpoint; with `first-interface-index: 1` Cilium never gives " +
		"the primary ENI's addresses to pods. The scheduler places pods that wait in ContainerCreating without an address",
	Remedy: "set the EC2NodeClass's `spec.kubelet.maxPods` to the count the finding gives (one class per instance size), " +
		"or turn on prefix delegation in Cilium on Nitro types and replace the node, or raise Karpenter's " +
		"`--reserved-enis` to the value the finding gives",
	Scope: "a kubelet.maxPods on the node's EC2NodeClass, which drifts and replaces every node of the class, each then capped at that value whatever its type (hence one class per instance size); replacing the one node or changing Cilium's or Karpenter's settings are the other ways the prose names",
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
		{UpstreamCilium, "pkg/aws/types/types.go (ENISpec.FirstInterfaceIndex)",
			"first-interface-index carries kubebuilder:validation:Minimum=0: the API server takes no negative value"},
		{UpstreamCilium, "pkg/aws/ipam/node.go (GetMaximumAllocatableIPv4)",
			"when limits.Adapters is lower than first-interface-index the operator logs a warning and counts no pool (returns 0)"},
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
			if cmd, ok := classMaxPodsPatch(x, n.NodeInfo, c.Limit()); ok {
				f.Commands = []Command{cmd}
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
	parts := []string{fmt.Sprintf("set spec.kubelet.maxPods to %d in %s for %s nodes (one class per instance size; the "+
		"command sets it on the class as it is)", c.Limit(), class, n.Type.Name)}
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
