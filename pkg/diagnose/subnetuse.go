package diagnose

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// awsReservedIPs is the number of addresses AWS reserves in every subnet.
const awsReservedIPs = 5

// subnetUse is one subnet that nodes use or an EC2NodeClass selects, with what one more node
// placed in it would take.
type subnetUse struct {
	subnet *snapshot.Subnet
	// classes are the classes that select the subnet or have nodes in it, as sorted ClassKeys.
	classes []string
	// need is the largest ENI-limited max pods + 1 of the instance types that may land in the
	// subnet; 0 when no type is known. needFrom says, as a phrase, what
	// gives it.
	need     int64
	needFrom string
	// podSubnet is true for an ENIConfig subnet, or an Auto Mode pod subnet, that pods take
	// addresses from; podClasses are the Auto Mode NodeClasses whose pod terms select it.
	podSubnet  bool
	podClasses []string
}

// subnetUses returns, sorted by subnet ID, every known subnet used by a checked node's
// instance, listed in an EC2NodeClass's status.subnets, or (with custom networking on) named by
// an ENIConfig, or selected by the podSubnetSelectorTerms of an Auto Mode NodeClass with nodes
// in its zone.
//
// Without custom networking a node's pods take addresses of its own subnet, so the next node
// needs its largest ENI-limited max pods + 1 there. With custom networking pods take addresses
// of the node's ENIConfig subnet: the node subnet gives one address per node and the pod subnet
// needs what the node's secondary ENIs can hold. EKS Auto Mode nodes are sized by the Auto
// Mode estimate and never use ENIConfigs; with pod subnets their pods use those instead.
func subnetUses(x *Index) []subnetUse {
	cni := CNISettingsFrom(x.Snapshot.AWSNode)
	classesOf := map[string]map[string]bool{}
	plainTypes := map[string]map[string]*snapshot.InstanceType{}
	classTypes := map[string]map[string]*snapshot.InstanceType{}
	// fixed holds, by class key or (for nodes without a class) subnet ID, the need of nodes
	// whose pods do not take ENI-limited addresses of the subnet (ownSubnetNeed).
	fixed := map[string]subnetUse{}
	podNeeds := map[string]subnetUse{}
	for _, n := range x.checkedNodes() {
		key := ClassKey(n.classKind(), n.ClassName)
		own, from, isFixed := ownSubnetNeed(n)
		switch {
		case n.ClassName != "" && isFixed:
			fixed[key] = largerNeed(fixed[key], own, from)
		case n.ClassName != "":
			addType(classTypes, key, n.Type)
		}
		if n.AutoMode() {
			addAutoPodNeeds(x, n, podNeeds)
		} else if cni.CustomNetworking && n.VPCCNI && !n.IPv6() && n.Type != nil {
			if cfg := x.ENIConfigs[ENIConfigName(n.Node, x.Snapshot.AWSNode)]; cfg != nil && cfg.Subnet != "" {
				need := podSubnetNeed(n, cni)
				podNeeds[cfg.Subnet] = largerNeed(podNeeds[cfg.Subnet], need, fmt.Sprintf(
					"one more node with ENIConfig %s (%s) can take %d pod addresses here", cfg.Name, n.Type.Name, need))
			}
		}
		if n.Instance == nil || n.Instance.SubnetID == "" {
			continue
		}
		id := n.Instance.SubnetID
		switch {
		case n.ClassName != "":
			addToSet(classesOf, id, key)
		case isFixed:
			fixed[id] = largerNeed(fixed[id], own, from)
		default:
			addType(plainTypes, id, n.Type)
		}
	}
	for _, c := range x.sortedClasses() {
		for _, s := range c.StatusSubnets {
			addToSet(classesOf, s.ID, ClassKey(c.KindName(), c.Name))
		}
	}
	ids := map[string]bool{}
	for id := range classesOf {
		ids[id] = true
	}
	for id := range plainTypes {
		ids[id] = true
	}
	for id := range fixed {
		if x.Subnets[id] != nil {
			ids[id] = true
		}
	}
	for id := range podNeeds {
		ids[id] = true
	}
	var uses []subnetUse
	for _, id := range sortedKeys(ids) {
		s := x.Subnets[id]
		if s == nil {
			continue
		}
		u := subnetUse{subnet: s, classes: sortedKeys(classesOf[id])}
		switch {
		case cni.CustomNetworking && !allAutoMode(u.classes):
			if len(u.classes) > 0 || len(plainTypes[id]) > 0 {
				u = largerNeed(u, 1, "one more node takes 1 address here (its pods use ENIConfig subnets)")
			}
		default:
			for _, c := range u.classes {
				if need, t := largestNeedOf(c, classTypes[c]); need > 0 {
					u = largerNeed(u, need, fmt.Sprintf(
						"one more node of %s (%s) needs up to %d (%s + 1)", keyLabel(c), t, need, podsPhrase(c, need-1)))
				}
			}
			for _, c := range u.classes {
				if f, ok := fixed[c]; ok {
					u = largerNeed(u, f.need, f.needFrom)
				}
			}
			if u.need == 0 {
				if need, t := largestNeed(plainTypes[id]); need > 0 {
					u = largerNeed(u, need, fmt.Sprintf(
						"one more node like its non-Karpenter nodes (%s) needs up to %d (%d ENI-limited pods + 1)", t, need, need-1))
				}
				if f, ok := fixed[id]; ok {
					u = largerNeed(u, f.need, f.needFrom)
				}
			}
		}
		if p, ok := podNeeds[id]; ok {
			u = largerNeed(u, p.need, p.needFrom)
			u.podSubnet = true
			u.podClasses = p.podClasses
		}
		uses = append(uses, u)
	}
	return uses
}

// ownSubnetNeed is what one more node like n takes from its subnet when its pods do not take
// ENI-limited VPC CNI addresses: an IPv6 node takes one IPv4 address (its pods take IPv6 ones),
// a Windows node the IPv4 addresses of its primary ENI (the VPC resource controller's), and a
// node aws-node does not run on (another CNI) what it holds now. false for the rest, which are
// sized by their type's ENI-limited max pods.
func ownSubnetNeed(n *NodeInfo) (int64, string, bool) {
	switch {
	case n.AutoMode() || n.Compute != ComputeEC2:
		return 0, "", false
	case n.IPv6():
		return 1, "one more IPv6 node takes 1 IPv4 address here (its pods take IPv6 addresses)", true
	case n.Windows():
		if n.Type == nil || n.Type.IPv4PerENI <= 0 {
			return 1, "one more Windows node takes at least 1 address here", true
		}
		return int64(n.Type.IPv4PerENI), fmt.Sprintf("one more Windows node (%s) takes up to %d addresses here (its "+
			"primary ENI's, which the VPC resource controller gives Windows pods)", n.Type.Name, n.Type.IPv4PerENI), true
	case !n.VPCCNI:
		held := int64(0)
		for _, e := range n.instanceENIs() {
			held += int64(len(e.PrivateIPs)) + prefixIPs*int64(len(e.IPv4Prefixes))
		}
		held = max(held, 1)
		return held, fmt.Sprintf("one more node like %s, which aws-node does not run on, holds %s here now",
			n.Name(), countText(held, "address", "addresses")), true
	}
	return 0, "", false
}

// podSubnetNeed is what one node's pods can take from its ENIConfig subnet: its pod IP
// capacity without the two host-network pods, and no more than its capacity.pods.
func podSubnetNeed(n *NodeInfo, cni CNISettings) int64 {
	c := nodeIPCapacity(n, cni)
	need := max(c.IPCapacity-2, 0)
	if pods, ok := n.Node.Status.Capacity[corev1.ResourcePods]; ok && pods.Value() > 0 {
		need = min(need, pods.Value())
	}
	return need
}

// largerNeed returns u with need and needFrom raised to need when it is larger.
func largerNeed(u subnetUse, need int64, from string) subnetUse {
	if need > u.need {
		u.need, u.needFrom = need, from
	}
	return u
}

func addToSet(m map[string]map[string]bool, k, v string) {
	if m[k] == nil {
		m[k] = map[string]bool{}
	}
	m[k][v] = true
}

func addType(m map[string]map[string]*snapshot.InstanceType, k string, t *snapshot.InstanceType) {
	if m[k] == nil {
		m[k] = map[string]*snapshot.InstanceType{}
	}
	if t != nil {
		m[k][t.Name] = t
	}
}

// largestNeed returns the largest ENI-limited max pods + 1 among types, and the type giving it
// (the first by name on a tie); 0 when there is none.
func largestNeed(types map[string]*snapshot.InstanceType) (int64, string) {
	var need int64
	var from string
	for _, name := range sortedKeys(types) {
		if pods := ENILimitedPods(types[name]); pods > 0 && pods+1 > need {
			need, from = pods+1, name
		}
	}
	return need, from
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

// addAutoPodNeeds records, for an Auto Mode node whose NodeClass has pod subnets, what one
// more such node can take from each pod subnet of its zone: its estimated pod IPs, no more
// than its capacity.pods.
func addAutoPodNeeds(x *Index, n *NodeInfo, podNeeds map[string]subnetUse) {
	c := n.Class
	if c == nil || len(c.PodSubnetSelectorTerms) == 0 || n.Type == nil {
		return
	}
	need := autoModeCapacity(n.Type, n.instanceENIs(), c).IPCapacity
	if pods, ok := cniPodsCapacity(n); ok && pods > 0 {
		need = min(need, pods)
	}
	subnets, _ := podSubnetsOf(x, c)
	zone := cniNodeZone(n)
	for _, s := range subnets {
		if zone != "" && s.Zone != "" && s.Zone != zone {
			continue
		}
		u := largerNeed(podNeeds[s.ID], need, fmt.Sprintf(
			"one more node of %s (%s) can take an estimated %d pod addresses here", n.ClassLabel(), n.Type.Name, need))
		if !slices.Contains(u.podClasses, c.Name) {
			u.podClasses = append(u.podClasses, c.Name)
			slices.Sort(u.podClasses)
		}
		podNeeds[s.ID] = u
	}
}

// allAutoMode reports whether every class key is an Auto Mode NodeClass's (true for none).
func allAutoMode(keys []string) bool {
	for _, k := range keys {
		if !strings.HasPrefix(k, snapshot.KindNodeClass+"/") {
			return false
		}
	}
	return true
}

// keyLabel names the class of a ClassKey for messages: "EC2NodeClass NAME" or "NodeClass NAME".
func keyLabel(key string) string {
	kind, name, _ := strings.Cut(key, "/")
	return kind + " " + name
}

// largestNeedOf is largestNeed for the node types of the class with the given key, using the
// Auto Mode estimate for an Auto Mode NodeClass.
func largestNeedOf(key string, types map[string]*snapshot.InstanceType) (int64, string) {
	if !strings.HasPrefix(key, snapshot.KindNodeClass+"/") {
		return largestNeed(types)
	}
	var need int64
	var from string
	for _, name := range sortedKeys(types) {
		if pods := autoModeCapacity(types[name], nil, nil).IPCapacity; pods > 0 && pods+1 > need {
			need, from = pods+1, name
		}
	}
	return need, from
}

// podsPhrase says where a class's pod count comes from: "29 ENI-limited pods" or, for an Auto
// Mode NodeClass, "an estimated 27 pods".
func podsPhrase(key string, pods int64) string {
	if strings.HasPrefix(key, snapshot.KindNodeClass+"/") {
		return fmt.Sprintf("an estimated %d pods", pods)
	}
	return fmt.Sprintf("%d ENI-limited pods", pods)
}
