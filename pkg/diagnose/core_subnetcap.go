package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// The subnet capacity model (subnet-ip-exhaustion). Karpenter launches a node into the subnet
// with the most free addresses among its class's resolved subnets in the zone
// (ZonalSubnetsForLaunch); the launch takes the addresses of the launch template's interfaces,
// and ipamd then takes what its warm settings say (WARM_ENI_TARGET, default 1: the primary
// ENI's secondary IPs; WARM_IP_TARGET / MINIMUM_IP_TARGET; WARM_PREFIX_TARGET with /28
// prefixes) and grows with pods. The next node is judged against both: what it takes at once
// (critical when no subnet of the zone has that much left) and, over time, what the class's
// nodes really hold now (warning when fewer than poolWarnNodes more fit).

// poolWarnNodes is how many more nodes a pool must fit before it is not worth a warning.
const poolWarnNodes = 5

// tagRoleCNI marks the subnets the VPC CNI's subnet discovery may put pods' ENIs in.
const tagRoleCNI = "kubernetes.io/role/cni"

// subnetPool is a set of subnets one kind of growth draws from, with what the next node takes
// of it.
type subnetPool struct {
	// what names the pool for messages, e.g. "EC2NodeClass default in us-west-2a".
	what string
	// subnets are the pool's subnets, roomiest first.
	subnets []*snapshot.Subnet
	// first is what the next node takes at once (launch and warm pool), each what one more
	// node takes over time (never less than first); the texts say how they were estimated.
	first, each         int64
	firstFrom, eachFrom string
	remedy              string
	// blocksFirst and blocksEach are the /28 prefixes among first and each (0 when the pool's
	// growth carves none), blocksFrom says where they come from; fallback marks growth that
	// takes single addresses when no block is free (EKS Auto Mode's ipv4PrefixSize Auto).
	blocksFirst, blocksEach int64
	blocksFrom              string
	fallback                bool
}

// finding judges the pool: critical when its roomiest subnet cannot take the next node's
// first addresses, warning when fewer than poolWarnNodes more nodes fit in all of it.
func (p subnetPool) finding() (Finding, bool) {
	best := p.subnets[0]
	f := Finding{Resource: subnetRef(best.ID), Remedy: p.remedy}
	if int64(best.AvailableIPs) < p.first {
		where, others := "its only subnet "+subnetText(best), ""
		if len(p.subnets) > 1 {
			where = "its roomiest subnet " + subnetText(best)
			var rest []string
			for _, s := range p.subnets[1:] {
				rest = append(rest, subnetText(s))
			}
			others = "; its other subnets: " + strings.Join(rest, ", ")
		}
		f.Severity = Critical
		f.Message = fmt.Sprintf("%s can take no more node: %s has fewer free addresses than the %d the next node "+
			"takes at once (%s)%s", p.what, where, p.first, p.firstFrom, others)
		return f, true
	}
	var fit int64
	for _, s := range p.subnets {
		fit += int64(max(s.AvailableIPs, 0)) / max(p.each, 1)
	}
	if fit >= poolWarnNodes {
		return Finding{}, false
	}
	f.Severity = Warning
	f.Message = fmt.Sprintf("only %s of %s fit in %s: each takes about %s (%s)",
		countText(fit, "more node", "more nodes"), p.what, poolSubnets(p.subnets), countText(p.each, "address", "addresses"), p.eachFrom)
	return f, true
}

// subnetText describes a subnet as "subnet-... (CIDR, F free of U usable)".
func subnetText(s *snapshot.Subnet) string {
	usable := "unknown usable"
	if u := usableIPs(s.CIDR); u > 0 {
		usable = fmt.Sprintf("%d usable", u)
	}
	return fmt.Sprintf("%s (%s, %d free of %s)", s.ID, s.CIDR, s.AvailableIPs, usable)
}

// poolSubnets describes a pool's subnets: "its only subnet" or each one with its free count.
func poolSubnets(subnets []*snapshot.Subnet) string {
	if len(subnets) == 1 {
		return "its only subnet " + subnetText(subnets[0])
	}
	var parts []string
	for _, s := range subnets {
		parts = append(parts, subnetText(s))
	}
	return "its subnets " + strings.Join(parts, ", ")
}

// byRoom sorts subnets roomiest first, then by ID, as Karpenter and the VPC CNI choose them.
func byRoom(subnets []*snapshot.Subnet) []*snapshot.Subnet {
	slices.SortFunc(subnets, func(a, b *snapshot.Subnet) int {
		return cmp.Or(cmp.Compare(b.AvailableIPs, a.AvailableIPs), strings.Compare(a.ID, b.ID))
	})
	return slices.CompactFunc(subnets, func(a, b *snapshot.Subnet) bool { return a.ID == b.ID })
}

// subnetPools returns every pool karpnet judges: for each class that a NodePool uses, and for
// each node group of nodes without a class, one pool per zone of the subnets new nodes launch
// into; the ENIConfig subnets pods take addresses from under custom networking; the subnets
// subnet discovery may put pods' ENIs in, per zone; and the pod subnets of Auto Mode classes.
// A subnet no class, node group or CNI path would use for new nodes is in no pool. They are
// made once per Index; callers do not change them.
func subnetPools(x *Index) []subnetPool {
	x.poolsOnce.Do(func() { x.pools = makeSubnetPools(x) })
	return x.pools
}

// makeSubnetPools makes subnetPools' answer.
func makeSubnetPools(x *Index) []subnetPool {
	cni := x.CNI()
	discovered := map[string][]*snapshot.Subnet{}
	for _, s := range x.discoveredSubnets() {
		discovered[s.Zone] = append(discovered[s.Zone], s)
	}
	var pools []subnetPool
	for _, g := range launchGroups(x) {
		for _, zone := range sortedKeys(g.subnets) {
			pools = append(pools, nodeSubnetPool(x, cni, g, zone, len(discovered[zone]) > 0))
		}
	}
	pools = append(pools, eniConfigPools(x, cni)...)
	pools = append(pools, discoveryPools(x, cni, discovered)...)
	pools = append(pools, autoPodPools(x)...)
	return pools
}

// launchGroup is what adds nodes to subnets: a class (Karpenter or EKS Auto Mode picks the
// roomiest of its resolved subnets in each zone its NodePools allow) or a node group (its
// nodes' subnets).
type launchGroup struct {
	label   string
	class   *snapshot.EC2NodeClass // nil for a node group
	subnets map[string][]*snapshot.Subnet
	nodes   []*NodeInfo
}

// launchGroups returns the classes a NodePool uses, with the subnets of each zone its
// NodePools allow, then the node groups of nodes without a class, in name order.
func launchGroups(x *Index) []launchGroup {
	var out []launchGroup
	nodesOf := map[*snapshot.EC2NodeClass][]*NodeInfo{}
	groups := map[string]*launchGroup{}
	for _, n := range x.checkedNodes() {
		switch {
		case n.Class != nil:
			nodesOf[n.Class] = append(nodesOf[n.Class], n)
		case n.ClassName == "" && n.Subnet != nil:
			name := n.Node.Labels["eks.amazonaws.com/nodegroup"]
			g := groups[name]
			if g == nil {
				label := "node group " + name
				if name == "" {
					label = "the nodes without a NodeClass"
				}
				g = &launchGroup{label: label, subnets: map[string][]*snapshot.Subnet{}}
				groups[name] = g
			}
			g.nodes = append(g.nodes, n)
			zone := cmp.Or(n.Subnet.Zone, nodeZone(n))
			g.subnets[zone] = append(g.subnets[zone], n.Subnet)
		}
	}
	for _, c := range x.sortedClasses() {
		var pools []*snapshot.NodePool
		for _, name := range poolsOfClass(x, c) {
			pools = append(pools, x.NodePools[name])
		}
		if len(pools) == 0 {
			continue // no NodePool launches nodes of the class
		}
		g := launchGroup{label: classLabel(c), class: c, subnets: map[string][]*snapshot.Subnet{}, nodes: nodesOf[c]}
		for _, st := range c.StatusSubnets {
			s := x.Subnets[st.ID]
			if s == nil {
				continue
			}
			zone, zoneID := cmp.Or(st.Zone, s.Zone), cmp.Or(st.ZoneID, s.ZoneID)
			if slices.ContainsFunc(pools, func(p *snapshot.NodePool) bool { return poolAllowsZone(p, zone, zoneID) }) {
				g.subnets[zone] = append(g.subnets[zone], s)
			}
		}
		if len(c.StatusSubnets) == 0 {
			// No resolved subnets to read (an older status): the nodes' subnets stand in.
			for _, n := range g.nodes {
				if n.Subnet != nil {
					zone := cmp.Or(n.Subnet.Zone, nodeZone(n))
					g.subnets[zone] = append(g.subnets[zone], n.Subnet)
				}
			}
		}
		out = append(out, g)
	}
	for _, name := range sortedKeys(groups) {
		out = append(out, *groups[name])
	}
	return out
}

// poolAllowsZone reports whether a NodePool's zone requirements admit a zone (and its ID).
func poolAllowsZone(p *snapshot.NodePool, zone, zoneID string) bool {
	if p == nil {
		return false
	}
	zones := zoneRuleOf(p.Requirements, corev1.LabelTopologyZone, corev1.LabelFailureDomainBetaZone)
	ids := zoneRuleOf(p.Requirements, labelZoneID)
	return (!zones.constrained() || zones.allows(zone)) && (!ids.constrained() || zoneID == "" || ids.allows(zoneID))
}

// nodeSubnetPool is the pool of the subnets a launch group puts its next node into in a zone.
// With subnet discovery and a discovered subnet in the zone, later ENIs go to the roomiest of
// the zone's pod subnets, so each node takes only its launch here.
func nodeSubnetPool(x *Index, cni CNISettings, g launchGroup, zone string, discovery bool) subnetPool {
	p := subnetPool{what: g.label + " in " + zone, subnets: byRoom(slices.Clone(g.subnets[zone]))}
	ref := zoneNodes(g.nodes, zone)
	if len(ref) == 0 {
		ref = g.nodes
	}
	p.first, p.firstFrom = launchBase(g.class)
	p.firstFrom = "no node of it runs yet, so only the launch is counted: " + p.firstFrom
	for i, n := range ref {
		if take, from := launchTake(x, cni, n); i == 0 || take > p.first {
			p.first, p.firstFrom = take, from
		}
	}
	p.each, p.eachFrom = p.first, "as much as the next node takes at once: "+p.firstFrom
	if !discovery && len(ref) > 0 {
		held := make([]int64, 0, len(ref))
		for _, n := range ref {
			held = append(held, heldIn(n, func(id string) bool { return id == n.Instance.SubnetID }))
		}
		if m := median(held); m > p.first {
			p.each, p.eachFrom = m, fmt.Sprintf("what its nodes hold in their subnet now, as the CNI grows with pods: the "+
				"median of %s", countText(len(held), "node", "nodes"))
		}
	}
	p.remedy = nodeSubnetRemedy(x, cni, g, zone)
	p.blocksFirst, p.blocksFrom = classPrefixes(g.class)
	for _, n := range ref {
		if k, from := launchBlocks(x, cni, n); k > p.blocksFirst {
			p.blocksFirst, p.blocksFrom = k, from
		}
	}
	if g.class != nil && g.class.AutoMode() && g.class.IPv4PrefixSize != ipv4PrefixSizeSecondaryIP &&
		len(g.class.PodSubnetSelectorTerms) == 0 {
		p.blocksFirst, p.blocksFrom, p.fallback = max(p.blocksFirst, 1), "Auto Mode carves its pods' /28 prefixes from the node subnet", true
	}
	p.blocksEach = p.blocksFirst
	if !discovery && p.blocksFirst > 0 {
		held := make([]int64, 0, len(ref))
		for _, n := range ref {
			held = append(held, prefixesIn(n, func(id string) bool { return id == n.Instance.SubnetID }))
		}
		p.blocksEach = max(p.blocksEach, median(held))
	}
	return p
}

// zoneNodes returns the nodes in a zone.
func zoneNodes(nodes []*NodeInfo, zone string) []*NodeInfo {
	var out []*NodeInfo
	for _, n := range nodes {
		if nodeZone(n) == zone {
			out = append(out, n)
		}
	}
	return out
}

// heldIn counts the addresses a node's ENIs hold in the subnets in selects: each ENI's private
// IPs and 16 for each /28 prefix.
func heldIn(n *NodeInfo, in func(subnet string) bool) int64 {
	var held int64
	for _, e := range n.instanceENIs() {
		if !in(e.SubnetID) {
			continue
		}
		ips := int64(len(e.PrivateIPs))
		if ips == 0 && e.PrimaryIP != "" {
			ips = 1
		}
		held += ips + prefixIPs*int64(len(e.IPv4Prefixes))
	}
	return held
}

// prefixesIn counts the /28 prefixes a node's ENIs hold in the subnets in selects.
func prefixesIn(n *NodeInfo, in func(subnet string) bool) int64 {
	var k int64
	for _, e := range n.instanceENIs() {
		if in(e.SubnetID) {
			k += int64(len(e.IPv4Prefixes))
		}
	}
	return k
}

// median returns the median of vs (the upper one of two), 0 for none.
func median(vs []int64) int64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	return s[len(s)/2]
}
