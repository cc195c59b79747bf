package diagnose

import (
	"github.com/karpnet/kubectl-karpnet/pkg/maxpods"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// VPC CNI (aws-node) settings that change how many pod IPs a node can hold.
const (
	SettingCustomNetwork    = snapshot.EnvCustomNetwork
	SettingPrefixDelegation = snapshot.EnvPrefixDelegation
	SettingMaxENI           = snapshot.EnvMaxENI
)

// ENI interface types that change what a node's interfaces give, and the addresses of a /28
// prefix: pkg/maxpods's, which does the arithmetic.
const (
	interfaceTrunk   = maxpods.InterfaceTrunk
	interfaceEFA     = maxpods.InterfaceEFA
	interfaceEFAOnly = maxpods.InterfaceEFAOnly
	prefixIPs        = maxpods.PrefixIPs
)

// CNISettings are the aws-node settings the IP capacity depends on.
type CNISettings = maxpods.Settings

// CNISettingsFrom reads the capacity settings from the aws-node env; a nil AWSNode gives the
// VPC CNI defaults.
func CNISettingsFrom(a *snapshot.AWSNode) CNISettings { return maxpods.SettingsFrom(a) }

// IPCapacity is maxpods.IPCapacity as a node's report shows it (Pods left 0).
func IPCapacity(t *snapshot.InstanceType, cni CNISettings, attached []snapshot.ENI, reserveTrunk bool) CapacityReport {
	c := maxpods.IPCapacity(t, cni, attached, reserveTrunk)
	return CapacityReport{
		IPCapacity: c.IPCapacity, DefaultCardENIs: c.DefaultCardENIs, IPv4PerENI: c.IPv4PerENI,
		PrefixDelegation: c.PrefixDelegation, CustomNetworking: c.CustomNetworking, TrunkENI: c.TrunkENI,
		EFAOnlyOnCard0: c.EFAOnlyOnCard0, UsableENIs: c.UsableENIs, ENIsAttached: c.ENIsAttached, Formula: c.Formula,
	}
}
