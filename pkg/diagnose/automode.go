package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// EKS Auto Mode facts the checks and the node sheet use.
const (
	// autoMaxPodsCap is the pod limit EKS applies to every Auto Mode node after its own
	// (unpublished) max-pods calculation.
	autoMaxPodsCap = 110
	// ipv4PrefixSizeSecondaryIP is spec.advancedNetworking.ipv4PrefixSize for secondary-IP mode.
	ipv4PrefixSizeSecondaryIP = "32"
	// ipv4PrefixSizeAuto is the default: /28 prefixes, falling back to /32 addresses.
	ipv4PrefixSizeAuto = "Auto"
)

// autoModeChecks are the checks that only EKS Auto Mode NodeClasses and nodes have: pod
// subnets and their security groups.
func autoModeChecks() []Check {
	return []Check{
		podSubnetZoneMissing,
		podSubnetSecurityGroupsMissing,
		podSubnetMismatch,
	}
}

// ipModeText describes an Auto Mode NodeClass's spec.advancedNetworking.ipv4PrefixSize.
func ipModeText(prefixSize string) string {
	switch prefixSize {
	case "", ipv4PrefixSizeAuto:
		return "Auto: /28 prefixes, with /32 secondary IPs when the subnet is too fragmented"
	case ipv4PrefixSizeSecondaryIP:
		return `"32": secondary IPs only, no prefixes`
	}
	return fmt.Sprintf("%q (not a documented value; Auto and \"32\" are)", prefixSize)
}

// termMatch tells whether a subnet selector term selects a subnet: yes, no, or unknown when the
// subnet is not in the snapshot and the term selects by tags.
type termMatch int

const (
	matchNo termMatch = iota
	matchUnknown
	matchYes
)

// subnetSelected says whether any of terms selects the subnet with the given ID. Terms are
// ORed; in a term, id is exact and every tag must be present, with '*' meaning any value.
// s is the subnet's record, nil when it was not read.
func subnetSelected(terms []snapshot.SelectorTerm, id string, s *snapshot.Subnet) termMatch {
	verdict := matchNo
	for _, t := range terms {
		switch {
		case t.ID != "":
			if t.ID == id {
				return matchYes
			}
		case len(t.Tags) > 0 && s == nil:
			verdict = matchUnknown
		case len(t.Tags) > 0 && tagsMatch(t.Tags, s.Tags):
			return matchYes
		}
	}
	return verdict
}

// tagsMatch reports whether tags holds every key of want, with want's value or any value for '*'.
func tagsMatch(want, tags map[string]string) bool {
	for k, v := range want {
		got, ok := tags[k]
		if !ok || v != "*" && got != v {
			return false
		}
	}
	return true
}

// podSubnetsOf returns the snapshot's subnets that class c's podSubnetSelectorTerms select,
// sorted by ID, and whether the answer is complete: false when an id term names a subnet
// that was not read. Tag terms can only be matched against the subnets that were read.
func podSubnetsOf(x *Index, c *snapshot.EC2NodeClass) ([]*snapshot.Subnet, bool) {
	complete := true
	for _, t := range c.PodSubnetSelectorTerms {
		if t.ID != "" && x.Subnets[t.ID] == nil {
			complete = false
		}
	}
	var out []*snapshot.Subnet
	for _, id := range sortedKeys(x.Subnets) {
		if s := x.Subnets[id]; subnetSelected(c.PodSubnetSelectorTerms, id, s) == matchYes {
			out = append(out, s)
		}
	}
	return out, complete
}

// termsText renders selector terms for a message or the node sheet, e.g.
// "id subnet-0abc" or "tags kubernetes.io/role/pod=1".
func termsText(terms []snapshot.SelectorTerm) []string {
	var out []string
	for _, t := range terms {
		var parts []string
		if t.ID != "" {
			parts = append(parts, "id "+t.ID)
		}
		if t.Name != "" {
			parts = append(parts, "name "+t.Name)
		}
		if len(t.Tags) > 0 {
			var tags []string
			for _, k := range sortedKeys(t.Tags) {
				tags = append(tags, k+"="+t.Tags[k])
			}
			parts = append(parts, "tags "+strings.Join(tags, ","))
		}
		if len(parts) > 0 {
			out = append(out, strings.Join(parts, " "))
		}
	}
	return out
}

// autoModeCapacity estimates the pod IPs of an Auto Mode node of type t. EKS does not publish
// Auto Mode's max-pods formula; one observed node (c6a.large, 3 ENIs x 10 IPv4 per ENI, 27
// pods) fits min(110, ENIs x (IPv4 per ENI - 1)). The primary ENI gives pods nothing when the
// class has pod subnets, and efa-only ENIs on card 0 carry no IP. Pods is left 0.
func autoModeCapacity(t *snapshot.InstanceType, attached []snapshot.ENI, c *snapshot.EC2NodeClass) CapacityReport {
	r := CapacityReport{
		AutoMode:         true,
		Estimate:         true,
		DefaultCardENIs:  t.DefaultCardENIs(),
		IPv4PerENI:       t.IPv4PerENI,
		PrefixDelegation: c == nil || c.IPv4PrefixSize != ipv4PrefixSizeSecondaryIP,
	}
	var nics []snapshot.NetworkInterface
	if c != nil {
		nics = c.NetworkInterfaces
	}
	for _, e := range attached {
		if e.NetworkCardIndex == t.DefaultNetworkCardIndex {
			r.ENIsAttached++
		}
		if e.InterfaceType == interfaceEFAOnly && e.NetworkCardIndex == 0 {
			r.EFAOnlyOnCard0++
		}
	}
	if r.EFAOnlyOnCard0 == 0 {
		for _, ni := range nics {
			if ni.InterfaceType == interfaceEFAOnly && ni.NetworkCardIndex == 0 {
				r.EFAOnlyOnCard0++
			}
		}
	}
	enis := fmt.Sprintf("%d ENIs", r.DefaultCardENIs)
	usable := r.DefaultCardENIs
	if r.EFAOnlyOnCard0 > 0 {
		usable -= r.EFAOnlyOnCard0
		enis += fmt.Sprintf(" - %d efa-only", r.EFAOnlyOnCard0)
	}
	if c != nil && len(c.PodSubnetSelectorTerms) > 0 {
		usable--
		enis += " - 1 primary (pod subnets)"
	}
	r.UsableENIs = max(usable, 0)
	if enis != fmt.Sprintf("%d ENIs", r.DefaultCardENIs) {
		enis = "(" + enis + ")"
	}
	if t.IPv4PerENI > 0 {
		r.IPCapacity = min(autoMaxPodsCap, int64(r.UsableENIs)*int64(t.IPv4PerENI-1))
	}
	r.Formula = fmt.Sprintf("estimate min(%d, %s x (%d IPv4 - 1)) = %d; EKS does not publish Auto Mode's max pods, "+
		"capacity.pods is the real figure", autoMaxPodsCap, enis, t.IPv4PerENI, r.IPCapacity)
	if len(nics) > 0 {
		r.Formula += "; with static networkInterfaces only the IPs given at launch serve pods"
	}
	return r
}

// describeAutoMode builds the Auto Mode pod-networking section of a node's sheet; nil for
// other nodes.
func describeAutoMode(x *Index, n *NodeInfo) *AutoModeReport {
	if !n.AutoMode() {
		return nil
	}
	r := &AutoModeReport{NodeClass: n.ClassName}
	c := n.Class
	if c == nil {
		return r
	}
	r.IPv4PrefixSize = c.IPv4PrefixSize
	r.IPMode = ipModeText(c.IPv4PrefixSize)
	r.PodSubnetSelectorTerms = termsText(c.PodSubnetSelectorTerms)
	r.PodSecurityGroupSelectorTerms = termsText(c.PodSecurityGroupSelectorTerms)
	r.StaticInterfaces = len(c.NetworkInterfaces)
	if len(c.PodSubnetSelectorTerms) > 0 {
		subnets, _ := podSubnetsOf(x, c)
		zone := nodeZone(n)
		for _, s := range subnets {
			if zone == "" || s.Zone == zone {
				r.PodSubnets = append(r.PodSubnets, s.ID)
			}
		}
		slices.Sort(r.PodSubnets)
	}
	return r
}
