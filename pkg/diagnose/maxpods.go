package diagnose

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// VPC CNI (aws-node) settings that change how many pod IPs a node can hold.
const (
	SettingCustomNetwork    = snapshot.EnvCustomNetwork
	SettingPrefixDelegation = snapshot.EnvPrefixDelegation
	SettingMaxENI           = snapshot.EnvMaxENI
)

// ENI interface types that change the IP capacity.
const (
	interfaceTrunk   = "trunk"
	interfaceEFA     = "efa"
	interfaceEFAOnly = "efa-only"
)

// prefixIPs is the number of IPv4 addresses in one /28 delegated prefix.
const prefixIPs = 16

// CNISettings are the aws-node settings the IP capacity depends on.
type CNISettings struct {
	// CustomNetworking is AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true: the primary ENI gives no pod IPs.
	CustomNetworking bool
	// PrefixDelegation is ENABLE_PREFIX_DELEGATION=true: each ENI slot holds a /28 prefix.
	PrefixDelegation bool
	// MaxENI is MAX_ENI, the cap on ENIs per node; 0 means unset.
	MaxENI int32
	// PodENI is ENABLE_POD_ENI=true: ipamd keeps a slot of the default card for the trunk ENI
	// of security groups for pods on types that support trunking.
	PodENI bool
}

// CNISettingsFrom reads the capacity settings from the aws-node env; a nil AWSNode gives the
// VPC CNI defaults.
func CNISettingsFrom(a *snapshot.AWSNode) CNISettings {
	var s CNISettings
	s.CustomNetworking, _ = strconv.ParseBool(a.Setting(SettingCustomNetwork, "false"))
	s.PrefixDelegation, _ = strconv.ParseBool(a.Setting(SettingPrefixDelegation, "false"))
	s.PodENI, _ = strconv.ParseBool(strings.TrimSpace(a.Setting(SettingPodENI, "false")))
	if n, err := strconv.ParseInt(strings.TrimSpace(a.Setting(SettingMaxENI, "")), 10, 32); err == nil && n > 0 {
		s.MaxENI = int32(n)
	}
	return s
}

// ENILimitedPods returns the pods Karpenter, nodeadm and eni-max-pods.txt give an instance type
// with no reserved ENI: DefaultCardENIs x (IPv4PerENI - 1) + 2, or 0 when it has no usable ENI.
func ENILimitedPods(t *snapshot.InstanceType) int64 {
	enis := int64(t.DefaultCardENIs())
	if enis <= 0 || t.IPv4PerENI <= 0 {
		return 0
	}
	return enis*int64(t.IPv4PerENI-1) + 2
}

// IPCapacity returns how many pod IPs the ENIs of a node of type t can give at most, with the
// inputs and the formula that produce it. attached are the instance's ENIs (nil when unknown);
// reserveTrunk says that the running CNI keeps a slot for a trunk ENI even before one is
// attached (ENABLE_POD_ENI on a type that supports trunking). The returned Pods is left 0.
//
// Usable ENIs are the default card's ENIs, capped by MAX_ENI, minus one for custom networking
// (the primary ENI gives pods nothing), one for a trunk ENI that is attached or reserved, and
// the efa-only ENIs attached on card 0, never below 0: only what the node really has or the
// CNI really takes counts, not what its EC2NodeClass asks for. Capacity is usable x
// (IPv4PerENI - 1) + 2, and with prefix delegation on a Nitro type usable x (IPv4PerENI - 1) x
// 16 + 2.
func IPCapacity(t *snapshot.InstanceType, cni CNISettings, attached []snapshot.ENI, reserveTrunk bool) CapacityReport {
	r := CapacityReport{
		DefaultCardENIs:  t.DefaultCardENIs(),
		IPv4PerENI:       t.IPv4PerENI,
		PrefixDelegation: cni.PrefixDelegation && t.Nitro(),
		CustomNetworking: cni.CustomNetworking,
	}
	var attachedEFAOnly int32
	for _, e := range attached {
		if e.NetworkCardIndex == t.DefaultNetworkCardIndex {
			r.ENIsAttached++
		}
		switch {
		case e.InterfaceType == interfaceTrunk:
			r.TrunkENI = true
		case e.InterfaceType == interfaceEFAOnly && e.NetworkCardIndex == 0:
			attachedEFAOnly++
		}
	}
	r.EFAOnlyOnCard0 = attachedEFAOnly
	r.TrunkENI = r.TrunkENI || reserveTrunk

	enis := r.DefaultCardENIs
	base := fmt.Sprintf("%d ENIs", enis)
	if cni.MaxENI > 0 && cni.MaxENI < enis {
		enis = cni.MaxENI
		base = fmt.Sprintf("%d ENIs (MAX_ENI)", enis)
	}
	var minus []string
	usable := enis
	if r.CustomNetworking {
		usable--
		minus = append(minus, "1 custom networking")
	}
	if r.TrunkENI {
		usable--
		minus = append(minus, "1 trunk")
	}
	if r.EFAOnlyOnCard0 > 0 {
		usable -= r.EFAOnlyOnCard0
		minus = append(minus, fmt.Sprintf("%d efa-only", r.EFAOnlyOnCard0))
	}
	if len(minus) == 0 {
		minus = []string{"0"}
	}
	enisPart := base + " - " + strings.Join(minus, " - ")
	r.UsableENIs = max(usable, 0)

	if r.UsableENIs == 0 || t.IPv4PerENI <= 0 {
		r.Formula = fmt.Sprintf("%s leaves no ENI for pods = 0", enisPart)
		return r
	}
	perENI := int64(t.IPv4PerENI - 1)
	if r.PrefixDelegation {
		r.IPCapacity = int64(r.UsableENIs)*perENI*prefixIPs + 2
		r.Formula = fmt.Sprintf("(%s) x (%d IPv4 - 1) x %d + 2 = %d", enisPart, t.IPv4PerENI, prefixIPs, r.IPCapacity)
		return r
	}
	r.IPCapacity = int64(r.UsableENIs)*perENI + 2
	r.Formula = fmt.Sprintf("(%s) x (%d IPv4 - 1) + 2 = %d", enisPart, t.IPv4PerENI, r.IPCapacity)
	return r
}
