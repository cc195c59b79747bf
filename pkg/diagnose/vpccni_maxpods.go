package diagnose

import (
	"fmt"

	"github.com/karpnet/kubectl-karpnet/pkg/maxpods"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// karpenterPodsIssue is the Karpenter issue about max pods ignoring prefix delegation.
const karpenterPodsIssue = "aws/karpenter-provider-aws#8210"

var specMaxPodsBelowIPCapacity = &Spec{
	ID:       "max-pods-below-ip-capacity",
	Severity: Info,
	Family:   FamilyVPCCNI,
	Needs:    []string{snapshot.SourceAWSNode},
	Examines: []string{SubjectNode},
	Title:    "prefix delegation is on but max pods is the secondary-IP value",
	FiresWhen: "ENABLE_PREFIX_DELEGATION=true, Nitro type, and capacity.pods equals the secondary-IP value (ENIs " +
		"x (IPv4 per ENI - 1) + 2, with 0 or 1 ENI reserved and efa-only ENIs on card 0 left out) while " +
		"prefixes allow more (capped at 110, or 250 above 30 vCPUs)",
	NotOn: "IPv6 and Xen nodes, classes that set `kubelet.maxPods`, nodes aws-node does not run on",
	Why: "Karpenter computes max pods without prefixes and writes it into kubelet, so nodes are packed far " +
		"below what they can hold and more nodes are launched than needed",
	Remedy: "set `spec.kubelet.maxPods` on the EC2NodeClass (v1) or `spec.template.spec.kubelet.maxPods` on " +
		"the NodePool (v1beta1); see aws/karpenter-provider-aws#8210",
	Scope: "a kubelet.maxPods on the class, set to the lowest value the class's nodes can hold so that no node of a smaller type ends above its capacity; the class's kubelet is part of its hash, so every node of the class drifts and is replaced, which the Affects counts",
	Sources: []string{
		"aws/karpenter-provider-aws#8210",
		"aws/karpenter-provider-aws pkg/providers/instancetype/types.go (ENILimitedPods)",
		"aws/karpenter-provider-aws pkg/providers/amifamily/resolver.go (maxPods always written)",
		"awslabs/amazon-eks-ami templates/al2/runtime/max-pods-calculator.sh (at b2289030^: x16 with prefixes, cap 110/250)",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/providers/instancetype/types.go (ENILimitedPods, pods)",
			"Karpenter's pods capacity is the class's kubelet maxPods when set, else ENILimitedPods: the default card's ENIs - reservedENIs - efa-only ENIs on card 0, x (IPv4 per ENI - 1) + 2, with no term for prefix delegation."},
		{UpstreamKarpenter, "pkg/providers/amifamily/resolver.go (resolveLaunchTemplates)",
			"When the class sets no kubelet maxPods, Karpenter writes the instance type's pods capacity as maxPods into every launch template."},
		{UpstreamVPCCNI, "pkg/ipamd/datastore/data_store.go (GetPrefixDelegationDefaults)",
			"With prefix delegation a slot holds a /28 prefix, 16 IPv4 addresses."},
	},
}

// maxPodsBelowIPCapacity finds Nitro nodes that run with prefix delegation on but advertise the
// secondary-IP max pods. Karpenter computes max pods from ENIs x IPs per ENI and never from
// /28 prefixes, and writes that number into the node's kubelet configuration; with prefix
// delegation each node could hold several times more pods, so Karpenter launches far more
// nodes (and pays for them) than the pods need.
var maxPodsBelowIPCapacity = Check{
	Spec: specMaxPodsBelowIPCapacity,
	Run: func(x *Index) []Finding {
		if !x.prefixDelegationUsable() {
			return nil
		}
		cni := x.CNI()
		var out []Finding
		classLow := map[string]int64{}
		for _, n := range x.vpcCNINodes() {
			if x.cniInstanceGone(n) || n.IPv6() {
				continue
			}
			f, ok := maxPodsBelowFinding(n, cni)
			if !ok {
				continue
			}
			// One value serves every type of the class: the command sets the lowest any of the
			// class's nodes can hold, so that no node of another type ends above its capacity.
			low, seen := classLow[n.ClassName]
			if !seen {
				low = classMaxPodsFloor(x, n.ClassName, cni)
				classLow[n.ClassName] = low
			}
			if c, ok := classMaxPodsPatch(x, n, low); ok && low > 0 {
				f.Remedy += fmt.Sprintf(" (the command sets %d, the lowest the class's nodes allow)", low)
				f.Commands = []Command{c}
			}
			out = append(out, f)
		}
		return out
	},
}

// classMaxPodsFloor is the lowest max pods a node of class can hold with prefixes: its IP
// capacity, within the cap of 110 (250 above 30 vCPUs), over the class's nodes of Nitro types
// karpnet knows; 0 when it knows none.
func classMaxPodsFloor(x *Index, class string, cni CNISettings) int64 {
	var low int64
	for _, m := range x.Nodes {
		// A type that is not Nitro takes no prefixes: it does not belong in a class sized for them
		// (max-pods-exceeds-ip-capacity says so), and its secondary-IP count is no floor for it.
		if m.ClassName != class || m.ClassKind == snapshot.KindNodeClass || m.Type == nil || !m.Type.Nitro() {
			continue
		}
		limit := int64(maxpods.CapSmall)
		if m.Type.VCPUs > maxpods.CapLargeAt {
			limit = maxpods.CapLarge
		}
		v := min(nodeIPCapacity(m, cni).IPCapacity, limit)
		if v > 0 && (low == 0 || v < low) {
			low = v
		}
	}
	return low
}

// maxPodsBelowFinding returns the finding for one node when its capacity.pods is a
// secondary-IP value below what prefixes allow.
func maxPodsBelowFinding(n *NodeInfo, cni CNISettings) (Finding, bool) {
	pods, ok := podsCapacity(n)
	if !ok || n.Type == nil || !n.Type.Nitro() || explicitMaxPods(n) {
		return Finding{}, false
	}
	formula, ok := secondaryIPMaxPods(n, cni, pods)
	if !ok {
		return Finding{}, false
	}
	c := nodeIPCapacity(n, cni)
	limit := int64(maxpods.CapSmall)
	if n.Type.VCPUs > maxpods.CapLargeAt {
		limit = maxpods.CapLarge
	}
	allowed := min(c.IPCapacity, limit)
	if allowed <= pods {
		return Finding{}, false
	}
	return Finding{
		Node:     n.Name(),
		Resource: nodeRef(n.Name()),
		Message: fmt.Sprintf("prefix delegation is on but capacity.pods %d is the secondary-IP value for %s (%s); "+
			"with /28 prefixes its ENIs give %s pod IPs, so it could run %d pods "+
			"(max pods is capped at %d, or %d above %d vCPUs; this type has %d)",
			pods, n.Type.Name, formula, c.Formula, allowed,
			maxpods.CapSmall, maxpods.CapLarge, maxpods.CapLargeAt, n.Type.VCPUs),
		Remedy: maxPodsBelowRemedy(n, allowed),
	}, true
}

// secondaryIPMaxPods reports whether pods is the max pods that Karpenter, nodeadm or
// eni-max-pods.txt give the node's type without prefixes, and returns that formula. Karpenter
// leaves out the efa-only ENIs of its EC2NodeClass on card 0 and RESERVED_ENIS, which karpnet
// cannot read: pods may be the value with no ENI reserved or with one (custom networking or
// security groups for pods).
func secondaryIPMaxPods(n *NodeInfo, cni CNISettings, pods int64) (string, bool) {
	t := n.Type
	var efaOnly int32
	if n.Class != nil {
		for _, ni := range n.Class.NetworkInterfaces {
			if ni.NetworkCardIndex == 0 && ni.InterfaceType == interfaceEFAOnly {
				efaOnly++
			}
		}
	}
	for reserved := range int32(2) {
		usable := t.DefaultCardENIs() - reserved - efaOnly
		if usable <= 0 || t.IPv4PerENI <= 0 {
			continue
		}
		if v := int64(usable)*int64(t.IPv4PerENI-1) + 2; v == pods {
			return secondaryIPFormula(t, reserved, reservedFor(cni), efaOnly, v), true
		}
	}
	return "", false
}

// reservedFor names the ENI a secondary-IP max pods leaves out as the pod IP capacity's
// formula does: custom networking's primary ENI, security groups for pods' trunk, or, when
// neither is on, "reserved" (Karpenter's RESERVED_ENIS).
func reservedFor(cni CNISettings) string {
	switch {
	case cni.CustomNetworking:
		return "custom networking"
	case cni.PodENI:
		return "trunk"
	}
	return "reserved"
}

// secondaryIPFormula writes the secondary-IP max pods computation, e.g.
// "(3 ENIs - 1 custom networking) x (10 IPv4 - 1) + 2 = 20", the reserved ENIs named why.
func secondaryIPFormula(t *snapshot.InstanceType, reserved int32, why string, efaOnly int32, v int64) string {
	enis := fmt.Sprintf("%d ENIs", t.DefaultCardENIs())
	if reserved > 0 {
		enis += fmt.Sprintf(" - %d %s", reserved, why)
	}
	if efaOnly > 0 {
		enis += fmt.Sprintf(" - %d efa-only", efaOnly)
	}
	if reserved > 0 || efaOnly > 0 {
		enis = "(" + enis + ")"
	}
	return fmt.Sprintf("%s x (%d IPv4 - 1) + 2 = %d", enis, t.IPv4PerENI, v)
}

// maxPodsBelowRemedy names where to raise max pods for the node.
func maxPodsBelowRemedy(n *NodeInfo, allowed int64) string {
	karpenter := fmt.Sprintf("; Karpenter computes max pods without prefix delegation (%s), so it must be set "+
		"explicitly, one value for every instance type it launches (use the smallest type's)", karpenterPodsIssue)
	switch {
	case n.PoolName != "" && (n.Pool != nil && isV1beta1(n.Pool.APIVersion) || n.Class != nil && isV1beta1(n.Class.APIVersion)):
		return fmt.Sprintf("set spec.template.spec.kubelet.maxPods of NodePool %s to %d", n.PoolName, allowed) + karpenter
	case n.ClassName != "":
		return fmt.Sprintf("set spec.kubelet.maxPods of EC2NodeClass %s to %d", n.ClassName, allowed) + karpenter
	default:
		return fmt.Sprintf("set the node group's max pods to %d (nodeadm NodeConfig spec.kubelet.config.maxPods, "+
			"or max-pods-calculator.sh --cni-prefix-delegation-enabled)", allowed)
	}
}
