package diagnose

// The remedy of max-pods-exceeds-ip-capacity, scoped to what is broken: the NodePool
// requirement for a type that cannot take prefixes, and what a cap on a class would do to the
// class's other nodes.

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// maxPodsRemedy names the change that brings the node's pods within its IP capacity, and
// prefers the one that touches only what is broken. A node of a type that is not Nitro, under
// a VPC CNI that runs prefix delegation, falls back to secondary IPs (ipamd turns prefix
// delegation off on such types), so a kubelet maxPods sized for prefixes overshoots it alone:
// the fix is to keep such types out of the NodePool that launched it (or give them a class of
// their own) and replace the node, and a cap on the whole class is offered only beside what
// it would do to the class's other nodes. Any other node gets the cap where its kubelet
// settings live, with the nodes it would also lower, and the CNI or Karpenter setting that
// fits its case. The commands are those of the node's replacement, where that is the fix.
func maxPodsRemedy(peers *peerIndex, n *NodeInfo, r CapacityReport, cni CNISettings) (string, []Command) {
	var where string
	v1beta1 := n.PoolName != "" && (n.Pool != nil && isV1beta1(n.Pool.APIVersion) || n.Class != nil && isV1beta1(n.Class.APIVersion))
	switch {
	case v1beta1:
		where = fmt.Sprintf("spec.template.spec.kubelet.maxPods of NodePool %s", n.PoolName)
	case n.ClassName != "":
		where = fmt.Sprintf("spec.kubelet.maxPods of %s %s", classKindName(n), n.ClassName)
	default:
		return fmt.Sprintf("set the node group's max pods (nodeadm NodeConfig spec.kubelet.config.maxPods) to at most %d%s",
			r.IPCapacity, prefixDelegationOption(n, r)), nil
	}
	hit := peers.capped(n, v1beta1, r.IPCapacity)
	if nonNitroInPrefixClass(n, r, cni) {
		return fmt.Sprintf("NodePool %s admits %s, a %s type the VPC CNI gives no prefixes, while %s%s is sized for "+
				"prefix delegation: add the requirement %s NotIn [%s] to NodePool %s (or give the types that are not "+
				"Nitro a NodePool and EC2NodeClass of their own with kubelet.maxPods at most %d), then %s; capping %s at "+
				"%d instead %s",
				n.PoolName, n.Type.Name, hypervisorXen, where, maxPodsValue(n), labelInstanceHypervisor, hypervisorXen,
				n.PoolName, r.IPCapacity, replaceNodeProse(n, "so it is launched on a type that takes prefixes"),
				where, r.IPCapacity, hit.text("would also cap", "would cap no other node")),
			append(hypervisorRequirementCommands(peers.x, n), replaceNodeCommands(n)...)
	}
	parts := []string{fmt.Sprintf("set %s to at most %d", where, r.IPCapacity)}
	var cmds []Command
	if c, ok := classMaxPodsPatch(peers.x, n, r.IPCapacity); ok {
		parts[0] += fmt.Sprintf(" (the command sets %d)", r.IPCapacity)
		cmds = append(cmds, c)
	}
	if hit.nodes > 0 {
		parts[0] += ", which " + hit.text("also caps", "")
	}
	if (r.CustomNetworking || r.TrunkENI) && n.ClassName != "" && !explicitMaxPods(n) {
		parts = append(parts, "or set Karpenter's RESERVED_ENIS=1 (settings.reservedENIs) so it leaves out the ENI that custom networking or the trunk takes")
	}
	return strings.Join(parts, ", ") + prefixDelegationOption(n, r), cmds
}

// hypervisorRequirementCommands is the kubectl JSON patch that appends the requirement
// karpenter.k8s.aws/instance-hypervisor NotIn [xen] to the node's NodePool's requirements, a
// list every NodePool has (spec.template.spec.requirements is required by the karpenter.sh
// CRD at v1 and v1beta1), so the append applies even to an empty one. Requirements are no part of
// the NodePool's hash: only the NodeClaims whose labels the new requirement rejects, those of
// xen types, drift and are replaced (kubernetes-sigs/karpenter drift.go, areRequirementsDrifted).
// No command when the pool itself was not read.
func hypervisorRequirementCommands(x *Index, n *NodeInfo) []Command {
	if n.Pool == nil {
		return nil
	}
	req := snapshot.Requirement{Key: labelInstanceHypervisor, Operator: string(corev1.NodeSelectorOpNotIn), Values: []string{hypervisorXen}}
	xen := func(m *NodeInfo) bool { return m.Type != nil && m.Type.Hypervisor == hypervisorXen }
	return []Command{poolRequirementCommand(x, n.PoolName, []snapshot.Requirement{req}, "of xen types", "xen", xen)}
}

// poolRequirementCommand is the kubectl JSON patch that appends reqs to NodePool pool's
// requirements, a list every NodePool has (spec.template.spec.requirements is required by the
// karpenter.sh CRD at v1 and v1beta1), so the append applies even to an empty one.
// Requirements are no part of the NodePool's hash: only the NodeClaims whose labels the new
// requirements reject drift and are replaced (kubernetes-sigs/karpenter drift.go,
// areRequirementsDrifted). rejected tells those of the pool's nodes, what names them in
// Affects ("of xen types") and set keys their count.
func poolRequirementCommand(x *Index, pool string, reqs []snapshot.Requirement, what, set string, rejected func(*NodeInfo) bool) Command {
	var ops []any
	for _, r := range reqs {
		req := map[string]any{"key": r.Key, "operator": r.Operator, "values": r.Values}
		ops = append(ops, map[string]any{"op": "add", "path": "/spec/template/spec/requirements/-", "value": req})
	}
	inPool := func(m *NodeInfo) bool { return m.PoolName == pool }
	drift := func(m *NodeInfo) bool { return inPool(m) && rejected(m) }
	return Command{
		Argv:    []string{"kubectl", "patch", "nodepool", pool, "--type", "json", "-p", jsonArg(ops)},
		Changes: "nodepool/" + pool,
		Affects: "the NodePool's nodes " + what + " drift and Karpenter replaces them: " + nodesAffected(x, "nodepool-"+set+"/"+pool, drift) +
			"; its other nodes stay: " + nodesAffected(x, "nodepool-not-"+set+"/"+pool, func(m *NodeInfo) bool { return inPool(m) && !rejected(m) }),
	}
}

// prefixDelegationOption offers prefix delegation on a Nitro type that runs without it.
func prefixDelegationOption(n *NodeInfo, r CapacityReport) string {
	if !r.PrefixDelegation && n.Type.Nitro() {
		return fmt.Sprintf(", or enable prefix delegation (aws-node %s=true) on this Nitro type", SettingPrefixDelegation)
	}
	return ""
}

// nonNitroInPrefixClass reports whether the node is above its IP capacity because its type
// cannot take prefixes while the VPC CNI runs prefix delegation and the node's kubelet maxPods
// is set (a value sized for prefixes): Karpenter's own value, with no maxPods, is the
// ENI-limited count, which prefix delegation does not change. The node must have a NodePool
// to keep such types out of.
func nonNitroInPrefixClass(n *NodeInfo, r CapacityReport, cni CNISettings) bool {
	return cni.PrefixDelegation && !r.PrefixDelegation && n.Type != nil && !n.Type.Nitro() && n.Type.Hypervisor == hypervisorXen &&
		n.PoolName != "" && explicitMaxPods(n)
}

// maxPodsValue is " (N)" for the node's numeric Karpenter kubelet maxPods (its NodePool's at
// v1beta1 when it sets one, else its class's), "" when it is an expression or unset.
func maxPodsValue(n *NodeInfo) string {
	for _, k := range []*snapshot.Kubelet{poolKubelet(n), classKubelet(n)} {
		if k != nil && k.MaxPods != nil {
			return fmt.Sprintf(" (%d)", *k.MaxPods)
		}
	}
	return ""
}

func poolKubelet(n *NodeInfo) *snapshot.Kubelet {
	if n.Pool == nil {
		return nil
	}
	return n.Pool.Kubelet
}

func classKubelet(n *NodeInfo) *snapshot.Kubelet {
	if n.Class == nil {
		return nil
	}
	return n.Class.Kubelet
}

// hypervisorNote is " (hypervisor H)" as DescribeInstanceTypes gives the type's, "" when it
// gives none.
func hypervisorNote(t *snapshot.InstanceType) string {
	if t.Hypervisor == "" {
		return ""
	}
	return " (hypervisor " + t.Hypervisor + ")"
}

// classKindName is the kind of the node's class, EC2NodeClass unless it is EKS Auto Mode's.
func classKindName(n *NodeInfo) string {
	if n.ClassKind == snapshot.KindNodeClass {
		return snapshot.KindNodeClass
	}
	return snapshot.KindEC2NodeClass
}

// labelInstanceHypervisor is the label Karpenter gives every instance type (and so every
// node it launches) with the type's hypervisor from DescribeInstanceTypes, which NodePool
// requirements can select on; hypervisorXen is EC2's one hypervisor besides nitro (bare-metal
// types have none, and take prefixes).
const (
	labelInstanceHypervisor = "karpenter.k8s.aws/instance-hypervisor"
	hypervisorXen           = "xen"
)

// peerCap is what a cap on the node's class (or v1beta1 NodePool) would do to the other nodes
// it launched: those that advertise more pods than the cap today.
type peerCap struct {
	nodes int
	types []string
	pods  []int64
}

// peerGroup is a class's (or NodePool's) checked nodes; above caches, per cap, how many of
// them advertise more pods than it, by type and by capacity.pods.
type peerGroup struct {
	members []*NodeInfo
	above   map[int64]*peerCounts
}

type peerCounts struct {
	byType map[string]int
	byPods map[int64]int
}

// peerIndex groups the checked nodes by class and by NodePool once, so that a cluster with
// many nodes above their capacity pays for one pass per group and cap, not one per finding.
type peerIndex struct {
	x       *Index
	byClass map[string]*peerGroup
	byPool  map[string]*peerGroup
}

func newPeerIndex(x *Index) *peerIndex { return &peerIndex{x: x} }

func (p *peerIndex) group(n *NodeInfo, byPool bool) *peerGroup {
	if p.byClass == nil {
		p.byClass, p.byPool = map[string]*peerGroup{}, map[string]*peerGroup{}
		add := func(m map[string]*peerGroup, k string, o *NodeInfo) {
			if m[k] == nil {
				m[k] = &peerGroup{above: map[int64]*peerCounts{}}
			}
			m[k].members = append(m[k].members, o)
		}
		for _, o := range p.x.checkedNodes() {
			if o.ClassName != "" {
				add(p.byClass, ClassKey(o.ClassKind, o.ClassName), o)
			}
			if o.PoolName != "" {
				add(p.byPool, o.PoolName, o)
			}
		}
	}
	if byPool {
		return p.byPool[n.PoolName]
	}
	return p.byClass[ClassKey(n.ClassKind, n.ClassName)]
}

// nodePods is the node's capacity.pods, false when it advertises none.
func nodePods(n *NodeInfo) (int64, bool) {
	q, ok := n.Node.Status.Capacity[corev1.ResourcePods]
	return q.Value(), ok
}

// nodeTypeName is the node's instance type, from EC2 or else its label.
func nodeTypeName(n *NodeInfo) string {
	if n.Type != nil {
		return n.Type.Name
	}
	return n.Node.Labels[corev1.LabelInstanceTypeStable]
}

// capped finds the other checked nodes of n's class (of its NodePool when the kubelet settings
// live there) whose capacity.pods is above limit.
func (p *peerIndex) capped(n *NodeInfo, byPool bool, limit int64) peerCap {
	g := p.group(n, byPool)
	if g == nil {
		return peerCap{}
	}
	c := g.above[limit]
	if c == nil {
		c = &peerCounts{byType: map[string]int{}, byPods: map[int64]int{}}
		for _, o := range g.members {
			if pods, ok := nodePods(o); ok && pods > limit {
				c.byType[nodeTypeName(o)]++
				c.byPods[pods]++
			}
		}
		g.above[limit] = c
	}
	// Leave the node itself out when it is one of the group's.
	self := slices.Contains(g.members, n)
	ownPods, _ := nodePods(n)
	var out peerCap
	for typ, k := range c.byType {
		if self && typ == nodeTypeName(n) {
			k--
		}
		if k > 0 {
			out.nodes += k
			if typ != "" {
				out.types = append(out.types, typ)
			}
		}
	}
	for pods, k := range c.byPods {
		if self && pods == ownPods {
			k--
		}
		if k > 0 {
			out.pods = append(out.pods, pods)
		}
	}
	slices.Sort(out.types)
	slices.Sort(out.pods)
	return out
}

// text says "VERB N other nodes (TYPES) below their capacity.pods P" (P a range when they
// differ), or none when no other
// node is above the cap.
func (c peerCap) text(verb, none string) string {
	if c.nodes == 0 {
		return none
	}
	pods := fmt.Sprint(c.pods[0])
	if last := c.pods[len(c.pods)-1]; last != c.pods[0] {
		pods = fmt.Sprintf("%d-%d", c.pods[0], last)
	}
	s := fmt.Sprintf("%s %s", verb, countText(c.nodes, "other node", "other nodes"))
	if len(c.types) > 0 {
		s += " (" + abbreviate(c.types, 5) + ")"
	}
	return fmt.Sprintf("%s below %s capacity.pods %s", s, plural(c.nodes, "its", "their"), pods)
}

// isV1beta1 reports whether a Karpenter apiVersion is v1beta1, where kubelet settings live in
// the NodePool.
func isV1beta1(apiVersion string) bool { return strings.HasSuffix(apiVersion, "/v1beta1") }

// explicitMaxPods reports whether the node's Karpenter kubelet settings set maxPods, which
// RESERVED_ENIS then no longer changes.
func explicitMaxPods(n *NodeInfo) bool {
	set := func(k *snapshot.Kubelet) bool { return k != nil && (k.MaxPods != nil || k.MaxPodsExpression != "") }
	return n.Class != nil && set(n.Class.Kubelet) || n.Pool != nil && set(n.Pool.Kubelet)
}

// classMaxPodsPatch is the kubectl merge patch that sets spec.kubelet.maxPods of the node's
// EC2NodeClass to v, with whom it reaches: kubelet is part of the class's hash, so every node
// of the class drifts and Karpenter replaces it, each then with max pods v whatever its type
// (karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go). ok is false when the node has no
// Karpenter v1 EC2NodeClass: v1beta1 keeps kubelet in the NodePool, and an EKS Auto Mode
// NodeClass has no kubelet settings.
func classMaxPodsPatch(x *Index, n *NodeInfo, v int64) (Command, bool) {
	v1beta1 := n.Pool != nil && isV1beta1(n.Pool.APIVersion) || n.Class != nil && isV1beta1(n.Class.APIVersion)
	if n.ClassName == "" || n.ClassKind == snapshot.KindNodeClass || v1beta1 {
		return Command{}, false
	}
	patch := map[string]any{"spec": map[string]any{"kubelet": map[string]any{"maxPods": v}}}
	return Command{
		Argv:    []string{"kubectl", "patch", "ec2nodeclass", n.ClassName, "--type", "merge", "-p", jsonArg(patch)},
		Changes: "ec2nodeclass/" + n.ClassName,
		Affects: fmt.Sprintf("every node of EC2NodeClass %s drifts (kubelet is part of its hash) and Karpenter replaces "+
			"it with max pods %d whatever its type: %s", n.ClassName, v, nodesAffected(x, "ec2nodeclass/"+n.ClassName, func(m *NodeInfo) bool {
			return m.ClassName == n.ClassName && m.ClassKind != snapshot.KindNodeClass
		})),
	}, true
}
