package diagnose

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// What the next node takes of its subnet at once (subnet-ip-exhaustion's model, see
// core_subnetcap.go): its launch, and what ipamd's warm-pool settings put on its ENIs at start.

// Warm-pool settings of aws-node.
const (
	SettingWarmENITarget    = snapshot.EnvWarmENITarget
	SettingWarmIPTarget     = snapshot.EnvWarmIPTarget
	SettingMinimumIPTarget  = snapshot.EnvMinimumIPTarget
	SettingWarmPrefixTarget = snapshot.EnvWarmPrefixTarget
)

// launchBase is what the launch of a class's node takes of its subnet: the primary IP, the
// class's /28 prefixes (spec.ipPrefixCount) and its other interfaces with addresses.
func launchBase(c *snapshot.EC2NodeClass) (int64, string) {
	take, parts := int64(1), []string{"1 primary IP"}
	if c == nil {
		return take, parts[0]
	}
	if k := c.IPPrefixCount; k != nil && *k > 0 {
		take += prefixIPs * int64(*k)
		parts = append(parts, fmt.Sprintf("%d for spec.ipPrefixCount %d", prefixIPs*int64(*k), *k))
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

// launchTake is what one node like n takes of its subnet at once: its launch, and the
// addresses ipamd puts on the primary ENI at start when aws-node gives pods addresses of this
// subnet. IPv6, Windows, Auto Mode and custom-networking nodes, and nodes aws-node does not
// run on, take only their launch here.
func launchTake(x *Index, cni CNISettings, n *NodeInfo) (int64, string) {
	base, from := launchBase(n.Class)
	switch {
	case n.IPv6():
		return base, from + "; IPv6 pods take no IPv4 address"
	case n.AutoMode() || n.Windows() || !n.VPCCNI || n.Type == nil:
		return base, from
	case cni.CustomNetworking:
		return base, from + "; its pods take ENIConfig subnet addresses"
	case x.primaryExcluded(n):
		return base, from + "; its subnet is tagged " + tagRoleCNI + "=0, so pods take discovered subnets' addresses"
	}
	warm, warmFrom := primaryWarm(x, cni, n.Type)
	return base + warm, fmt.Sprintf("%s + %s of this %s", from, warmFrom, n.Type.Name)
}

// classPrefixes is the /28 prefixes the launch of a class's node carves from its subnet
// (spec.ipPrefixCount).
func classPrefixes(c *snapshot.EC2NodeClass) (int64, string) {
	if c == nil || c.IPPrefixCount == nil || *c.IPPrefixCount <= 0 {
		return 0, ""
	}
	return int64(*c.IPPrefixCount), fmt.Sprintf("spec.ipPrefixCount %d of %s", *c.IPPrefixCount, classLabel(c))
}

// launchBlocks is the /28 prefixes one node like n carves from its subnet at once: its
// class's ipPrefixCount, and with prefix delegation the warm prefixes ipamd puts on the
// primary ENI at start when aws-node gives pods addresses of this subnet (as launchTake).
func launchBlocks(x *Index, cni CNISettings, n *NodeInfo) (int64, string) {
	k, from := classPrefixes(n.Class)
	switch {
	case n.IPv6(), n.AutoMode(), n.Windows(), !n.VPCCNI, n.Type == nil, cni.CustomNetworking, x.primaryExcluded(n):
		return k, from
	}
	warm := warmPrefixes(x, cni, n.Type)
	if warm == 0 {
		return k, from
	}
	why := fmt.Sprintf("%s at start on %s", countText(warm, "warm /28 prefix", "warm /28 prefixes"), aType(n.Type.Name))
	if from != "" {
		why = from + " + " + why
	}
	return k + warm, why
}

// warmPrefixes is the /28 prefixes ipamd puts on a new ENI of type t at start with prefix
// delegation (primaryWarm); 0 without it.
func warmPrefixes(x *Index, cni CNISettings, t *snapshot.InstanceType) int64 {
	if t == nil || !cni.PrefixDelegation || !t.Nitro() {
		return 0
	}
	warm, _ := primaryWarm(x, cni, t)
	return warm / prefixIPs
}

// warmSettings are aws-node's warm-pool settings; 0 means unset.
type warmSettings struct{ eni, ip, minIP, prefix int64 }

// warm is aws-node's warm-pool settings, read once by NewIndex (warmSettingsOf).
func (x *Index) warm() warmSettings { return x.warmPool }

// warmSettingsOf reads the warm-pool settings; WARM_ENI_TARGET defaults to 1 and
// WARM_PREFIX_TARGET, as the VPC CNI's chart ships it, to 1.
func warmSettingsOf(a *snapshot.AWSNode) warmSettings {
	num := func(name string, def int64) int64 {
		v, err := strconv.ParseInt(strings.TrimSpace(a.Setting(name, "")), 10, 64)
		if err != nil || v < 0 {
			return def
		}
		return v
	}
	return warmSettings{eni: num(SettingWarmENITarget, 1), ip: num(SettingWarmIPTarget, 0),
		minIP: num(SettingMinimumIPTarget, 0), prefix: num(SettingWarmPrefixTarget, 1)}
}

// primaryWarm is what ipamd puts on a new node's primary ENI at start: with prefix
// delegation the /28s WARM_PREFIX_TARGET (or WARM_IP_TARGET / MINIMUM_IP_TARGET) asks for;
// otherwise the secondary IPs WARM_IP_TARGET / MINIMUM_IP_TARGET ask for, else (WARM_ENI_TARGET)
// a full primary ENI and each further warm ENI in full.
func primaryWarm(x *Index, cni CNISettings, t *snapshot.InstanceType) (int64, string) {
	w := x.warm()
	target := max(w.ip, w.minIP)
	if cni.PrefixDelegation && t.Nitro() {
		prefixes, why := max(w.prefix, 1), fmt.Sprintf("%s=%d", SettingWarmPrefixTarget, w.prefix)
		if target > 0 {
			prefixes, why = (target+prefixIPs-1)/prefixIPs, fmt.Sprintf("%s/%s %d", SettingWarmIPTarget, SettingMinimumIPTarget, target)
		}
		return prefixIPs * prefixes, fmt.Sprintf("%s (%d addresses, %s)", countText(prefixes, "/28 prefix", "/28 prefixes"),
			prefixIPs*prefixes, why)
	}
	perENI := int64(max(t.IPv4PerENI-1, 0))
	if target > 0 {
		k := min(target, perENI)
		return k, fmt.Sprintf("%s (%s/%s %d)", countText(k, "secondary IP", "secondary IPs"), SettingWarmIPTarget,
			SettingMinimumIPTarget, target)
	}
	if w.eni == 0 {
		return 0, SettingWarmENITarget + "=0: no warm IPs"
	}
	take := perENI + (w.eni-1)*int64(t.IPv4PerENI)
	more := ""
	if w.eni > 1 {
		more = fmt.Sprintf(" and %s of %d", countText(w.eni-1, "more ENI", "more ENIs"), t.IPv4PerENI)
	}
	return take, fmt.Sprintf("%d warm addresses (%s=%d: the primary ENI's %d secondary IPs%s)", take, SettingWarmENITarget,
		w.eni, perENI, more)
}

// firstENI is what the first ENI ipamd creates for pods in another subnet (an ENIConfig's, or
// one found by subnet discovery) takes of it at once: its primary IP and its warm IPs or
// prefixes.
func firstENI(x *Index, cni CNISettings, t *snapshot.InstanceType) (int64, string) {
	warm, from := primaryWarm(x, cni, t)
	if !cni.PrefixDelegation || !t.Nitro() {
		if w := x.warm(); max(w.ip, w.minIP) == 0 && w.eni > 0 {
			// The new ENI is filled: its primary and every secondary IP.
			return int64(t.IPv4PerENI), fmt.Sprintf("%s's first pod ENI, filled: %d addresses (%s=%d)", aType(t.Name),
				t.IPv4PerENI, SettingWarmENITarget, w.eni)
		}
	}
	return 1 + warm, fmt.Sprintf("%s's first pod ENI: its primary IP + %s", aType(t.Name), from)
}

// aType puts the article an instance type name is read with before it: "an m5.large" (the
// family's letters are spelled out), "a c5.large", "a mac1.metal".
func aType(name string) string {
	if name != "" && strings.ContainsRune("aefhilmnorsx", rune(name[0])) && !strings.HasPrefix(name, "mac") {
		return "an " + name
	}
	return "a " + name
}
