package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/subnetcap"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// The subnet capacity model (subnet-ip-exhaustion). Karpenter launches a node into the subnet
// with the most free addresses among its class's resolved subnets in the zone
// (ZonalSubnetsForLaunch); the launch takes the addresses of the launch template's interfaces,
// and ipamd then takes what its warm settings say (WARM_ENI_TARGET, default 1: the primary
// ENI's secondary IPs; WARM_IP_TARGET / MINIMUM_IP_TARGET; WARM_PREFIX_TARGET with /28
// prefixes) and grows with pods. The next node is judged against both: what it takes at once
// (critical when no subnet of the zone has that much left) and, over time, what the class's
// nodes really hold now (warning when fewer than subnetcap.PoolWarnNodes more fit).

// finding judges the pool: critical when its roomiest subnet cannot take the next node's
// first addresses, warning when fewer than subnetcap.PoolWarnNodes more nodes fit in all of it.
func poolFinding(p subnetcap.Pool) (Finding, bool) {
	best := p.Subnets[0]
	f := Finding{Resource: subnetRef(best.ID), Remedy: p.Remedy}
	if int64(best.AvailableIPs) < p.First {
		where, others := "its only subnet "+subnetText(best), ""
		if len(p.Subnets) > 1 {
			where = "its roomiest subnet " + subnetText(best)
			var rest []string
			for _, s := range p.Subnets[1:] {
				rest = append(rest, subnetText(s))
			}
			others = "; its other subnets: " + strings.Join(rest, ", ")
		}
		f.Severity = Critical
		f.Message = fmt.Sprintf("%s can take no more node: %s has fewer free addresses than the %d the next node "+
			"takes at once (%s)%s", p.What, where, p.First, p.FirstFrom, others)
		return f, true
	}
	var fit int64
	for _, s := range p.Subnets {
		fit += int64(max(s.AvailableIPs, 0)) / max(p.Each, 1)
	}
	if fit >= subnetcap.PoolWarnNodes {
		return Finding{}, false
	}
	f.Severity = Warning
	f.Message = fmt.Sprintf("only %s of %s fit in %s: each takes about %s (%s)",
		countText(fit, "more node", "more nodes"), p.What, poolSubnets(p.Subnets), countText(p.Each, "address", "addresses"), p.EachFrom)
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

// Warm-pool settings of aws-node.
const (
	SettingWarmENITarget    = snapshot.EnvWarmENITarget
	SettingWarmIPTarget     = snapshot.EnvWarmIPTarget
	SettingMinimumIPTarget  = snapshot.EnvMinimumIPTarget
	SettingWarmPrefixTarget = snapshot.EnvWarmPrefixTarget
)

// subnetPools returns every pool karpnet judges: for each class that a NodePool uses, and for
// each node group of nodes without a class, one pool per zone of the subnets new nodes launch
// into; the ENIConfig subnets pods take addresses from under custom networking; the subnets
// subnet discovery may put pods' ENIs in, per zone; and the pod subnets of Auto Mode classes.
// A subnet no class, node group or CNI path would use for new nodes is in no pool. They are
// made once per Index; callers do not change them.
func subnetPools(x *Index) []subnetcap.Pool {
	x.poolsOnce.Do(func() { x.pools = makeSubnetPools(x) })
	return x.pools
}

// makeSubnetPools makes subnetPools' answer.
func makeSubnetPools(x *Index) []subnetcap.Pool {
	cni := x.CNI()
	discovered := map[string][]*snapshot.Subnet{}
	for _, s := range x.discoveredSubnets() {
		discovered[s.Zone] = append(discovered[s.Zone], s)
	}
	var pools []subnetcap.Pool
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
func nodeSubnetPool(x *Index, cni CNISettings, g launchGroup, zone string, discovery bool) subnetcap.Pool {
	p := subnetcap.Pool{What: g.label + " in " + zone, Subnets: subnetcap.ByRoom(slices.Clone(g.subnets[zone]))}
	ref := zoneNodes(g.nodes, zone)
	if len(ref) == 0 {
		ref = g.nodes
	}
	p.First, p.FirstFrom = subnetcap.LaunchBase(g.class)
	p.FirstFrom = "no node of it runs yet, so only the launch is counted: " + p.FirstFrom
	for i, n := range ref {
		if take, from := launchTake(x, cni, n); i == 0 || take > p.First {
			p.First, p.FirstFrom = take, from
		}
	}
	p.Each, p.EachFrom = p.First, "as much as the next node takes at once: "+p.FirstFrom
	if !discovery && len(ref) > 0 {
		held := make([]int64, 0, len(ref))
		for _, n := range ref {
			held = append(held, subnetcap.HeldIn(n.instanceENIs(), func(id string) bool { return id == n.Instance.SubnetID }))
		}
		if m := subnetcap.Median(held); m > p.First {
			p.Each, p.EachFrom = m, fmt.Sprintf("what its nodes hold in their subnet now, as the CNI grows with pods: the "+
				"median of %s", countText(len(held), "node", "nodes"))
		}
	}
	p.Remedy = nodeSubnetRemedy(x, cni, g, zone)
	p.BlocksFirst, p.BlocksFrom = classPrefixes(g.class)
	for _, n := range ref {
		if k, from := launchBlocks(x, cni, n); k > p.BlocksFirst {
			p.BlocksFirst, p.BlocksFrom = k, from
		}
	}
	if g.class != nil && g.class.AutoMode() && g.class.IPv4PrefixSize != ipv4PrefixSizeSecondaryIP &&
		len(g.class.PodSubnetSelectorTerms) == 0 {
		p.BlocksFirst, p.BlocksFrom, p.Fallback = max(p.BlocksFirst, 1), "Auto Mode carves its pods' /28 prefixes from the node subnet", true
	}
	p.BlocksEach = p.BlocksFirst
	if !discovery && p.BlocksFirst > 0 {
		held := make([]int64, 0, len(ref))
		for _, n := range ref {
			held = append(held, subnetcap.PrefixesIn(n.instanceENIs(), func(id string) bool { return id == n.Instance.SubnetID }))
		}
		p.BlocksEach = max(p.BlocksEach, subnetcap.Median(held))
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

// classPrefixes is the /28 prefixes the launch of a class's node carves from its subnet
// (spec.ipPrefixCount); none without a class.
func classPrefixes(c *snapshot.EC2NodeClass) (int64, string) {
	if c == nil {
		return 0, ""
	}
	return subnetcap.ClassPrefixes(c, classLabel(c))
}

// launchTake is what one node like n takes of its subnet at once (subnetcap.CNI.LaunchTake).
func launchTake(x *Index, cni CNISettings, n *NodeInfo) (int64, string) {
	return capCNI(x, cni).LaunchTake(capNode(x, n))
}

// launchBlocks is the /28 prefixes one node like n carves from its subnet at once
// (subnetcap.CNI.LaunchBlocks).
func launchBlocks(x *Index, cni CNISettings, n *NodeInfo) (int64, string) {
	return capCNI(x, cni).LaunchBlocks(capNode(x, n))
}

// capNode is n as the subnet capacity model reads it.
func capNode(x *Index, n *NodeInfo) subnetcap.Node {
	c := subnetcap.Node{Class: n.Class, Type: n.Type, IPv6: n.IPv6(), AutoMode: n.AutoMode(), Windows: n.Windows(),
		VPCCNI: n.VPCCNI, PrimaryExcluded: x.primaryExcluded(n)}
	if n.Class != nil {
		c.ClassLabel = classLabel(n.Class)
	}
	return c
}

// capCNI is aws-node's settings as the subnet capacity model reads them.
func capCNI(x *Index, cni CNISettings) subnetcap.CNI {
	return subnetcap.CNI{Warm: x.warmPool, PrefixDelegation: cni.PrefixDelegation, CustomNetworking: cni.CustomNetworking}
}
