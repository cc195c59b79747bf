package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/subnetcap"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// subnetDiscoveryOn reports whether the VPC CNI's subnet discovery may put pods' ENIs in
// subnets tagged kubernetes.io/role/cni=1 (snapshot.AWSNode.SubnetDiscovery) on the nodes
// aws-node runs on.
func (x *Index) subnetDiscoveryOn() bool {
	return x.vpcCNI() && !x.awsNodeRunsNowhere() && x.Snapshot.AWSNode.SubnetDiscovery()
}

// discoveredSubnets returns, sorted by ID, the subnets of the VPC CNI nodes' VPCs tagged
// kubernetes.io/role/cni=1 when subnet discovery is on.
func (x *Index) discoveredSubnets() []*snapshot.Subnet {
	if !x.subnetDiscoveryOn() {
		return nil
	}
	vpcs := map[string]bool{}
	for _, n := range x.vpcCNINodes() {
		if n.Instance != nil && n.Instance.VpcID != "" {
			vpcs[n.Instance.VpcID] = true
		}
	}
	var out []*snapshot.Subnet
	for _, id := range sortedKeys(x.Subnets) {
		// The tag may be on subnets of other VPCs too: the CNI looks in the node's VPC only.
		if s := x.Subnets[id]; s.Tags[subnetcap.TagRoleCNI] == "1" && (s.VpcID == "" || len(vpcs) == 0 || vpcs[s.VpcID]) {
			out = append(out, s)
		}
	}
	return out
}

// eniConfigPools are the ENIConfig subnets that VPC CNI nodes take pod addresses from under
// custom networking: the next node's first pod ENI there, and what the ENIConfig's nodes hold
// in it now.
func eniConfigPools(x *Index, cni CNISettings) []subnetcap.Pool {
	if !cni.CustomNetworking {
		return nil
	}
	users := map[string][]*NodeInfo{}
	for _, n := range x.vpcCNINodes() {
		if n.IPv6() || n.Type == nil {
			continue
		}
		if cfg := x.ENIConfigs[ENIConfigName(n.Node, x.Snapshot.AWSNode)]; cfg != nil && x.Subnets[cfg.Subnet] != nil {
			users[cfg.Name] = append(users[cfg.Name], n)
		}
	}
	var out []subnetcap.Pool
	for _, name := range sortedKeys(users) {
		cfg := x.ENIConfigs[name]
		s := x.Subnets[cfg.Subnet]
		p := subnetcap.Pool{What: fmt.Sprintf("the pod subnet of ENIConfig %s", name), Subnets: []*snapshot.Subnet{s},
			Remedy: fmt.Sprintf("point ENIConfig %s (spec.subnet) at a larger pod subnet, or "+
				"add a secondary CIDR to the VPC for a new one in %s", name, s.Zone)}
		p.First, p.FirstFrom = largestFirstENI(x, cni, users[name])
		p.Each, p.EachFrom = p.First, "as much as its first pod ENI: "+p.FirstFrom
		held := make([]int64, 0, len(users[name]))
		for _, n := range users[name] {
			held = append(held, subnetcap.HeldIn(n.instanceENIs(), func(id string) bool { return id == s.ID }))
		}
		if m := subnetcap.Median(held); m > p.First {
			p.Each, p.EachFrom = m, fmt.Sprintf("what its nodes hold there now: the median of %s",
				countText(len(held), "node", "nodes"))
		}
		podPrefixes(x, &p, cni, users[name], func(id string) bool { return id == s.ID })
		out = append(out, p)
	}
	return out
}

// podPrefixes sets the /28 prefixes a pod-subnet pool's next node takes with prefix
// delegation: the warm prefixes of its first pod ENI there, for the largest warm take among
// nodes, and over time the median of what they hold in the subnets in selects.
func podPrefixes(x *Index, p *subnetcap.Pool, cni CNISettings, nodes []*NodeInfo, in func(string) bool) {
	held := make([]int64, 0, len(nodes))
	for _, n := range nodes {
		if k := x.warmPool.WarmPrefixes(cni.PrefixDelegation, n.Type); k > p.BlocksFirst {
			p.BlocksFirst = k
			p.BlocksFrom = fmt.Sprintf("%s on %s's first pod ENI", countText(k, "warm /28 prefix", "warm /28 prefixes"), subnetcap.AType(n.Type.Name))
		}
		held = append(held, subnetcap.PrefixesIn(n.instanceENIs(), in))
	}
	if p.BlocksFirst > 0 {
		p.BlocksEach = max(p.BlocksFirst, subnetcap.Median(held))
	}
}

// largestFirstENI is firstENI for the largest type among nodes.
func largestFirstENI(x *Index, cni CNISettings, nodes []*NodeInfo) (int64, string) {
	var take int64
	var from string
	for _, n := range nodes {
		if t, f := x.warmPool.FirstENI(cni.PrefixDelegation, n.Type); t > take {
			take, from = t, f
		}
	}
	return take, from
}

// primaryExcluded reports whether the VPC CNI keeps pods off the node's own subnet: subnet
// discovery is on, the subnet is tagged kubernetes.io/role/cni=0, and the release honours the
// tag on the primary subnet (1.22.0 and later).
func (x *Index) primaryExcluded(n *NodeInfo) bool {
	if n.Subnet == nil || n.Subnet.Tags[subnetcap.TagRoleCNI] != "0" || !x.subnetDiscoveryOn() {
		return false
	}
	v, ok := parseCNIVersion(x.Snapshot.AWSNode.Image)
	return !ok || !v.less(cniVersion{1, 22, 0})
}

// discoveryPools are, per zone with subnet discovery and a discovered subnet, the subnets the
// VPC CNI may put the zone's pod ENIs in: the discovered subnets and the nodes' own unless
// tagged kubernetes.io/role/cni=0 (the roomiest wins). The next node takes a first pod ENI
// there; over time what its nodes hold beyond their launch.
func discoveryPools(x *Index, cni CNISettings, discovered map[string][]*snapshot.Subnet) []subnetcap.Pool {
	var out []subnetcap.Pool
	for _, zone := range sortedKeys(discovered) {
		var nodes []*NodeInfo
		members := slices.Clone(discovered[zone])
		for _, n := range x.vpcCNINodes() {
			if nodeZone(n) != zone || n.IPv6() || n.Type == nil || n.Subnet == nil {
				continue
			}
			nodes = append(nodes, n)
			if !x.primaryExcluded(n) {
				members = append(members, n.Subnet)
			}
		}
		if len(nodes) == 0 {
			continue
		}
		in := map[string]bool{}
		for _, s := range members {
			in[s.ID] = true
		}
		p := subnetcap.Pool{What: "the pod subnets of " + zone + " (subnet discovery: " + subnetcap.TagRoleCNI + "=1 and the nodes' own)",
			Subnets: subnetcap.ByRoom(members),
			Remedy: fmt.Sprintf("tag another subnet of %s with %s=1 (from a secondary VPC CIDR if the VPC is full), so the "+
				"VPC CNI puts pods' ENIs there", zone, subnetcap.TagRoleCNI)}
		p.First, p.FirstFrom = largestFirstENI(x, cni, nodes)
		p.Each, p.EachFrom = p.First, "as much as its first pod ENI: "+p.FirstFrom
		held := make([]int64, 0, len(nodes))
		for _, n := range nodes {
			launch, _ := launchTake(x, cni, n)
			held = append(held, max(subnetcap.HeldIn(n.instanceENIs(), func(id string) bool { return in[id] })-launch, 0))
		}
		if m := subnetcap.Median(held); m > p.First {
			p.Each, p.EachFrom = m, fmt.Sprintf("what the zone's nodes hold there beyond their launch: the median of %s",
				countText(len(held), "node", "nodes"))
		}
		podPrefixes(x, &p, cni, nodes, func(id string) bool { return in[id] })
		out = append(out, p)
	}
	return out
}

// autoPodPools are, per EKS Auto Mode NodeClass with pod subnets and zone of its nodes, the
// pod subnets its nodes take pod addresses from: each node its estimated pod IPs, no more than
// its capacity.pods.
func autoPodPools(x *Index) []subnetcap.Pool {
	type key struct{ class, zone string }
	nodes := map[key][]*NodeInfo{}
	for _, n := range x.checkedNodes() {
		if n.AutoMode() && n.Class != nil && len(n.Class.PodSubnetSelectorTerms) > 0 && n.Type != nil {
			k := key{n.Class.Name, nodeZone(n)}
			nodes[k] = append(nodes[k], n)
		}
	}
	keys := make([]key, 0, len(nodes))
	for k := range nodes {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int { return strings.Compare(a.class+"/"+a.zone, b.class+"/"+b.zone) })
	var out []subnetcap.Pool
	for _, k := range keys {
		c := nodes[k][0].Class
		subnets, _ := podSubnetsOf(x, c)
		subnets = slices.DeleteFunc(subnets, func(s *snapshot.Subnet) bool { return k.zone != "" && s.Zone != "" && s.Zone != k.zone })
		if len(subnets) == 0 {
			continue // pod-subnet-zone-missing
		}
		p := subnetcap.Pool{What: fmt.Sprintf("the pod subnets of %s in %s", classLabel(c), k.zone), Subnets: subnetcap.ByRoom(subnets),
			Remedy: fmt.Sprintf("add pod subnets in %s to spec.podSubnetSelectorTerms of NodeClass %s, or add a secondary "+
				"CIDR to the VPC for a new one; secondary-IP mode (spec.advancedNetworking.ipv4PrefixSize: \"32\") takes "+
				"single addresses instead of /28 prefixes", k.zone, c.Name)}
		for _, n := range nodes[k] {
			need := autoModeCapacity(n.Type, n.instanceENIs(), c).IPCapacity
			if pods, ok := podsCapacity(n); ok && pods > 0 {
				need = min(need, pods)
			}
			if need > p.First {
				p.First, p.FirstFrom = need, fmt.Sprintf("%s's estimated pod IPs, no more than its capacity.pods", subnetcap.AType(n.Type.Name))
			}
		}
		p.Each, p.EachFrom = p.First, p.FirstFrom
		if c.IPv4PrefixSize != ipv4PrefixSizeSecondaryIP {
			p.BlocksFirst = (p.First + prefixIPs - 1) / prefixIPs
			p.BlocksEach, p.Fallback = p.BlocksFirst, true
			p.BlocksFrom = "Auto Mode carves the pods' addresses as /28 prefixes: " + p.FirstFrom
		}
		out = append(out, p)
	}
	return out
}

// nodeSubnetRemedy says where more addresses for a launch group's nodes come from.
func nodeSubnetRemedy(x *Index, cni CNISettings, g launchGroup, zone string) string {
	where := "the node group's subnet list"
	if g.class != nil {
		where = fmt.Sprintf("spec.subnetSelectorTerms of %s (new nodes go to the roomiest subnet of the zone; %s, which "+
			"stay where they are)", classLabel(g.class), classReachOf(x, g.class.KindName(), g.class.Name))
	}
	remedy := fmt.Sprintf("add subnets in %s to %s, or give the VPC a larger or secondary CIDR", zone, where)
	switch {
	case g.class != nil && g.class.AutoMode():
		return remedy + "; Auto Mode pods can take addresses from other subnets (spec.podSubnetSelectorTerms with " +
			"spec.podSecurityGroupSelectorTerms), and secondary-IP mode (spec.advancedNetworking.ipv4PrefixSize: \"32\") " +
			"takes single addresses instead of /28 prefixes"
	case !x.vpcCNI() || cni.CustomNetworking:
		return remedy
	}
	remedy += fmt.Sprintf("; subnet discovery puts pods' ENIs in subnets tagged %s=1 (VPC CNI 1.18+)", subnetcap.TagRoleCNI)
	if !cni.PrefixDelegation {
		remedy += fmt.Sprintf(", and prefix delegation (aws-node %s=true) packs pod addresses into /28 prefixes", SettingPrefixDelegation)
	}
	return remedy
}
