package diagnose

import (
	"net/netip"
	"slices"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/blocks"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// awsReservedIPs is the number of addresses AWS reserves in every subnet.
const awsReservedIPs = blocks.AWSReservedIPs

// subnetUse is one subnet that nodes use, a class selects, or pods take addresses from.
type subnetUse struct {
	subnet *snapshot.Subnet
	// classes are the classes that select the subnet or have nodes in it, as sorted ClassKeys.
	classes []string
	// podSubnet is true for an ENIConfig subnet, a subnet the VPC CNI's subnet discovery may
	// put pods' ENIs in, or an Auto Mode pod subnet; podClasses are the Auto Mode NodeClasses
	// whose pod terms select it.
	podSubnet  bool
	podClasses []string
}

// subnetUses returns, sorted by subnet ID, every known subnet used by a checked node's
// instance or one of its ENIs, listed in a class's status.subnets, named by an ENIConfig (with custom networking
// on), tagged for the VPC CNI's subnet discovery, or selected by the podSubnetSelectorTerms
// of an Auto Mode NodeClass with nodes in its zone.
func subnetUses(x *Index) []subnetUse {
	classesOf := map[string]map[string]bool{}
	ids := map[string]bool{}
	pods := map[string][]string{} // pod subnet ID -> Auto Mode classes selecting it
	for _, n := range x.checkedNodes() {
		if n.Instance != nil && n.Instance.SubnetID != "" {
			ids[n.Instance.SubnetID] = true
			if n.ClassName != "" {
				addToSet(classesOf, n.Instance.SubnetID, ClassKey(n.classKind(), n.ClassName))
			}
		}
		for _, e := range n.instanceENIs() {
			if e.SubnetID != "" {
				ids[e.SubnetID] = true
			}
		}
		switch {
		case n.AutoMode() && n.Class != nil && len(n.Class.PodSubnetSelectorTerms) > 0:
			subnets, _ := podSubnetsOf(x, n.Class)
			zone := nodeZone(n)
			for _, s := range subnets {
				if zone == "" || s.Zone == "" || s.Zone == zone {
					if !slices.Contains(pods[s.ID], n.Class.Name) {
						pods[s.ID] = append(pods[s.ID], n.Class.Name)
					}
				}
			}
		case n.VPCCNI && x.cniSettingOn(SettingCustomNetwork):
			if cfg := x.ENIConfigs[ENIConfigName(n.Node, x.Snapshot.AWSNode)]; cfg != nil && cfg.Subnet != "" {
				markPodSubnet(pods, cfg.Subnet)
			}
		}
	}
	for _, s := range x.discoveredSubnets() {
		markPodSubnet(pods, s.ID)
	}
	for _, c := range x.sortedClasses() {
		// Every pod subnet an Auto Mode class selects is in use by it, in a zone it has nodes
		// in or not: the report, its views and its metrics list each subnet a class selects.
		if c.AutoMode() && len(c.PodSubnetSelectorTerms) > 0 {
			subnets, _ := podSubnetsOf(x, c)
			for _, s := range subnets {
				if !slices.Contains(pods[s.ID], c.Name) {
					pods[s.ID] = append(pods[s.ID], c.Name)
				}
			}
		}
		for _, s := range c.StatusSubnets {
			addToSet(classesOf, s.ID, ClassKey(c.KindName(), c.Name))
			ids[s.ID] = true
		}
	}
	for id := range pods {
		ids[id] = true
	}
	var uses []subnetUse
	for _, id := range sortedKeys(ids) {
		s := x.Subnets[id]
		if s == nil {
			continue
		}
		u := subnetUse{subnet: s, classes: sortedKeys(classesOf[id])}
		if classes, ok := pods[id]; ok {
			u.podSubnet = true
			u.podClasses = sortedUnique(classes)
		}
		uses = append(uses, u)
	}
	return uses
}

// markPodSubnet records a pod subnet that no Auto Mode class selects.
func markPodSubnet(pods map[string][]string, id string) {
	if _, ok := pods[id]; !ok {
		pods[id] = nil
	}
}

func addToSet(m map[string]map[string]bool, k, v string) {
	if m[k] == nil {
		m[k] = map[string]bool{}
	}
	m[k][v] = true
}

// usableIPs returns the addresses of an IPv4 CIDR that instances can use (all but the five AWS
// reserves), or 0 when the CIDR does not parse.
func usableIPs(cidr string) int64 {
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is4() {
		return 0
	}
	return max(int64(1)<<(32-p.Bits())-awsReservedIPs, 0)
}
