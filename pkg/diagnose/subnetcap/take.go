package subnetcap

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/maxpods"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// What the next node takes of its subnet at once: its launch, and what ipamd's warm-pool
// settings put on its ENIs at start.

// LaunchBase is what the launch of a class's node takes of its subnet: the primary IP, the
// class's /28 prefixes (spec.ipPrefixCount) and its other interfaces with addresses.
func LaunchBase(c *snapshot.EC2NodeClass) (int64, string) {
	take, parts := int64(1), []string{"1 primary IP"}
	if c == nil {
		return take, parts[0]
	}
	if k := c.IPPrefixCount; k != nil && *k > 0 {
		take += maxpods.PrefixIPs * int64(*k)
		parts = append(parts, fmt.Sprintf("%d for spec.ipPrefixCount %d", maxpods.PrefixIPs*int64(*k), *k))
	}
	var extra int64
	for _, ni := range c.NetworkInterfaces {
		if ni.InterfaceType == "interface" && (ni.NetworkCardIndex != 0 || ni.DeviceIndex != 0) {
			extra++
		}
	}
	if extra > 0 {
		take += extra
		parts = append(parts, fmt.Sprintf("%d for its other interfaces", extra))
	}
	return take, strings.Join(parts, " + ")
}

// Node is what the take model reads of one node like the next: its class (nil without one,
// ClassLabel naming it) and instance type (nil when unknown), and whether its pods take
// addresses of its own subnet.
type Node struct {
	Class      *snapshot.EC2NodeClass
	ClassLabel string
	Type       *snapshot.InstanceType
	// IPv6, AutoMode and Windows are the node's; VPCCNI tells whether aws-node runs on it, and
	// PrimaryExcluded whether subnet discovery keeps its pods off its own subnet (tagged
	// kubernetes.io/role/cni=0 and honoured by the VPC CNI's release).
	IPv6, AutoMode, Windows, VPCCNI, PrimaryExcluded bool
}

// CNI is what aws-node's settings say of a node's take: its warm pool, prefix delegation and
// custom networking.
type CNI struct {
	Warm                               Warm
	PrefixDelegation, CustomNetworking bool
}

// LaunchTake is what one node like n takes of its subnet at once: its launch, and the
// addresses ipamd puts on the primary ENI at start when aws-node gives pods addresses of this
// subnet. IPv6, Windows, Auto Mode and custom-networking nodes, and nodes aws-node does not
// run on, take only their launch here.
func (c CNI) LaunchTake(n Node) (int64, string) {
	base, from := LaunchBase(n.Class)
	switch {
	case n.IPv6:
		return base, from + "; IPv6 pods take no IPv4 address"
	case n.AutoMode || n.Windows || !n.VPCCNI || n.Type == nil:
		return base, from
	case c.CustomNetworking:
		return base, from + "; its pods take ENIConfig subnet addresses"
	case n.PrimaryExcluded:
		return base, from + "; its subnet is tagged " + TagRoleCNI + "=0, so pods take discovered subnets' addresses"
	}
	warm, warmFrom := c.Warm.PrimaryWarm(c.PrefixDelegation, n.Type)
	return base + warm, fmt.Sprintf("%s + %s of this %s", from, warmFrom, n.Type.Name)
}

// LaunchBlocks is the /28 prefixes one node like n carves from its subnet at once: its
// class's ipPrefixCount, and with prefix delegation the warm prefixes ipamd puts on the
// primary ENI at start when aws-node gives pods addresses of this subnet (as LaunchTake).
func (c CNI) LaunchBlocks(n Node) (int64, string) {
	k, from := ClassPrefixes(n.Class, n.ClassLabel)
	switch {
	case n.IPv6, n.AutoMode, n.Windows, !n.VPCCNI, n.Type == nil, c.CustomNetworking, n.PrimaryExcluded:
		return k, from
	}
	warm := c.Warm.WarmPrefixes(c.PrefixDelegation, n.Type)
	if warm == 0 {
		return k, from
	}
	why := fmt.Sprintf("%s at start on %s", countText(warm, "warm /28 prefix", "warm /28 prefixes"), AType(n.Type.Name))
	if from != "" {
		why = from + " + " + why
	}
	return k + warm, why
}

// ClassPrefixes is the /28 prefixes the launch of a class's node carves from its subnet
// (spec.ipPrefixCount); label names the class in the text.
func ClassPrefixes(c *snapshot.EC2NodeClass, label string) (int64, string) {
	if c == nil || c.IPPrefixCount == nil || *c.IPPrefixCount <= 0 {
		return 0, ""
	}
	return int64(*c.IPPrefixCount), fmt.Sprintf("spec.ipPrefixCount %d of %s", *c.IPPrefixCount, label)
}

// WarmPrefixes is the /28 prefixes ipamd puts on a new ENI of type t at start with prefix
// delegation (PrimaryWarm); 0 without it.
func (w Warm) WarmPrefixes(prefixDelegation bool, t *snapshot.InstanceType) int64 {
	if t == nil || !prefixDelegation || !t.Nitro() {
		return 0
	}
	warm, _ := w.PrimaryWarm(prefixDelegation, t)
	return warm / maxpods.PrefixIPs
}

// Warm is aws-node's warm-pool settings; 0 means unset.
type Warm struct{ eni, ip, minIP, prefix int64 }

// WarmOf reads the warm-pool settings; WARM_ENI_TARGET defaults to 1 and WARM_PREFIX_TARGET,
// as the VPC CNI's chart ships it, to 1.
func WarmOf(a *snapshot.AWSNode) Warm {
	num := func(name string, def int64) int64 {
		v, err := strconv.ParseInt(strings.TrimSpace(a.Setting(name, "")), 10, 64)
		if err != nil || v < 0 {
			return def
		}
		return v
	}
	return Warm{eni: num(snapshot.EnvWarmENITarget, 1), ip: num(snapshot.EnvWarmIPTarget, 0),
		minIP: num(snapshot.EnvMinimumIPTarget, 0), prefix: num(snapshot.EnvWarmPrefixTarget, 1)}
}

// PrimaryWarm is what ipamd puts on a new node's primary ENI at start: with prefix
// delegation the /28s WARM_PREFIX_TARGET (or WARM_IP_TARGET / MINIMUM_IP_TARGET) asks for;
// otherwise the secondary IPs WARM_IP_TARGET / MINIMUM_IP_TARGET ask for, else (WARM_ENI_TARGET)
// a full primary ENI and each further warm ENI in full. prefixDelegation is aws-node's
// ENABLE_PREFIX_DELEGATION.
func (w Warm) PrimaryWarm(prefixDelegation bool, t *snapshot.InstanceType) (int64, string) {
	target := max(w.ip, w.minIP)
	if prefixDelegation && t.Nitro() {
		prefixes, why := max(w.prefix, 1), fmt.Sprintf("%s=%d", snapshot.EnvWarmPrefixTarget, w.prefix)
		if target > 0 {
			prefixes, why = (target+maxpods.PrefixIPs-1)/maxpods.PrefixIPs, fmt.Sprintf("%s/%s %d", snapshot.EnvWarmIPTarget, snapshot.EnvMinimumIPTarget, target)
		}
		return maxpods.PrefixIPs * prefixes, fmt.Sprintf("%s (%d addresses, %s)", countText(prefixes, "/28 prefix", "/28 prefixes"),
			maxpods.PrefixIPs*prefixes, why)
	}
	perENI := int64(max(t.IPv4PerENI-1, 0))
	if target > 0 {
		k := min(target, perENI)
		return k, fmt.Sprintf("%s (%s/%s %d)", countText(k, "secondary IP", "secondary IPs"), snapshot.EnvWarmIPTarget,
			snapshot.EnvMinimumIPTarget, target)
	}
	if w.eni == 0 {
		return 0, snapshot.EnvWarmENITarget + "=0: no warm IPs"
	}
	take := perENI + (w.eni-1)*int64(t.IPv4PerENI)
	more := ""
	if w.eni > 1 {
		more = fmt.Sprintf(" and %s of %d", countText(w.eni-1, "more ENI", "more ENIs"), t.IPv4PerENI)
	}
	return take, fmt.Sprintf("%d warm addresses (%s=%d: the primary ENI's %d secondary IPs%s)", take, snapshot.EnvWarmENITarget,
		w.eni, perENI, more)
}

// FirstENI is what the first ENI ipamd creates for pods in another subnet (an ENIConfig's, or
// one found by subnet discovery) takes of it at once: its primary IP and its warm IPs or
// prefixes.
func (w Warm) FirstENI(prefixDelegation bool, t *snapshot.InstanceType) (int64, string) {
	warm, from := w.PrimaryWarm(prefixDelegation, t)
	if !prefixDelegation || !t.Nitro() {
		if max(w.ip, w.minIP) == 0 && w.eni > 0 {
			// The new ENI is filled: its primary and every secondary IP.
			return int64(t.IPv4PerENI), fmt.Sprintf("%s's first pod ENI, filled: %d addresses (%s=%d)", AType(t.Name),
				t.IPv4PerENI, snapshot.EnvWarmENITarget, w.eni)
		}
	}
	return 1 + warm, fmt.Sprintf("%s's first pod ENI: its primary IP + %s", AType(t.Name), from)
}

// AType puts the article an instance type name is read with before it: "an m5.large" (the
// family's letters are spelled out), "a c5.large", "a mac1.metal".
func AType(name string) string {
	if name != "" && strings.ContainsRune("aefhilmnorsx", rune(name[0])) && !strings.HasPrefix(name, "mac") {
		return "an " + name
	}
	return "a " + name
}
