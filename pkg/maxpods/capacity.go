// Package maxpods is the arithmetic of pod density on an EC2 instance type: how many pod IPs
// its ENIs can give under the VPC CNI's settings (secondary IPs or /28 prefixes, custom
// networking, a trunk ENI, efa-only interfaces), and the max-pods values the VPC CNI's
// eni-max-pods.txt, the EKS max-pods calculator and Karpenter give it. It is pure: the
// diagnosis and `kubectl karpnet max-pods` both compute with it, and it reads nothing.
package maxpods

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ENI interface types that change the IP capacity.
const (
	InterfaceTrunk   = "trunk"
	InterfaceEFA     = "efa"
	InterfaceEFAOnly = "efa-only"
)

// PrefixIPs is the number of IPv4 addresses in one /28 delegated prefix.
const PrefixIPs = 16

// Kubelet max-pods caps that the EKS max-pods calculator applies to prefix-delegation values:
// CapSmall, or CapLarge on types with more than CapLargeAt vCPUs.
const (
	CapSmall   = 110
	CapLarge   = 250
	CapLargeAt = 30
)

// Settings are the aws-node settings the IP capacity depends on.
type Settings struct {
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

// SettingsFrom reads the capacity settings from the aws-node env; a nil AWSNode gives the
// VPC CNI defaults.
func SettingsFrom(a *snapshot.AWSNode) Settings {
	var s Settings
	s.CustomNetworking, _ = strconv.ParseBool(a.Setting(snapshot.EnvCustomNetwork, "false"))
	s.PrefixDelegation, _ = strconv.ParseBool(a.Setting(snapshot.EnvPrefixDelegation, "false"))
	s.PodENI, _ = strconv.ParseBool(strings.TrimSpace(a.Setting(snapshot.EnvPodENI, "false")))
	if n, err := strconv.ParseInt(strings.TrimSpace(a.Setting(snapshot.EnvMaxENI, "")), 10, 32); err == nil && n > 0 {
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

// Capacity is how many pod IPs a node's ENIs can give at most, with the inputs and the
// formula that produce it.
type Capacity struct {
	// IPCapacity is the most pod IPs the node's ENIs can ever give (see Formula).
	IPCapacity int64
	// Inputs of the formula.
	DefaultCardENIs  int32
	IPv4PerENI       int32
	PrefixDelegation bool
	CustomNetworking bool
	TrunkENI         bool
	EFAOnlyOnCard0   int32
	UsableENIs       int32
	// ENIsAttached counts the ENIs attached on the default network card.
	ENIsAttached int
	// Formula is the computation with its numbers, e.g. "(3 ENIs - 0) x (10 IPv4 - 1) + 2 = 29".
	Formula string
}

// IPCapacity returns how many pod IPs the ENIs of a node of type t can give at most, with the
// inputs and the formula that produce it. attached are the instance's ENIs (nil when unknown);
// reserveTrunk says that the running CNI keeps a slot for a trunk ENI even before one is
// attached (ENABLE_POD_ENI on a type that supports trunking).
//
// Usable ENIs are the default card's ENIs, capped by MAX_ENI, minus one for custom networking
// (the primary ENI gives pods nothing), one for a trunk ENI that is attached or reserved, and
// the efa-only ENIs attached on card 0, never below 0: only what the node really has or the
// CNI really takes counts, not what its EC2NodeClass asks for. Capacity is usable x
// (IPv4PerENI - 1) + 2, and with prefix delegation on a Nitro type usable x (IPv4PerENI - 1) x
// 16 + 2.
func IPCapacity(t *snapshot.InstanceType, cni Settings, attached []snapshot.ENI, reserveTrunk bool) Capacity {
	r := Capacity{
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
		case e.InterfaceType == InterfaceTrunk:
			r.TrunkENI = true
		case e.InterfaceType == InterfaceEFAOnly && e.NetworkCardIndex == 0:
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
		r.IPCapacity = int64(r.UsableENIs)*perENI*PrefixIPs + 2
		r.Formula = fmt.Sprintf("(%s) x (%d IPv4 - 1) x %d + 2 = %d", enisPart, t.IPv4PerENI, PrefixIPs, r.IPCapacity)
		return r
	}
	r.IPCapacity = int64(r.UsableENIs)*perENI + 2
	r.Formula = fmt.Sprintf("(%s) x (%d IPv4 - 1) + 2 = %d", enisPart, t.IPv4PerENI, r.IPCapacity)
	return r
}
