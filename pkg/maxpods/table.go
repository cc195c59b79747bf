package maxpods

import "github.com/karpnet/kubectl-karpnet/pkg/snapshot"

// Options describe the cluster a max-pods table is computed for.
type Options struct {
	// PrefixDelegation is the VPC CNI's ENABLE_PREFIX_DELEGATION=true: Recommended is then the
	// prefix-delegation value on Nitro types.
	PrefixDelegation bool
	// CustomNetworking is AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true: the primary ENI gives no pod IPs.
	CustomNetworking bool
	// PodENI is ENABLE_POD_ENI=true (security groups for pods): the trunk ENI takes one ENI slot.
	PodENI bool
	// ReservedENIs is Karpenter's RESERVED_ENIS setting.
	ReservedENIs int32
	// EFAOnly counts efa-only interfaces on network card 0 (EC2NodeClass spec.networkInterfaces).
	EFAOnly int32
	// MaxAllowed leaves the prefix-delegation and recommended values uncapped.
	MaxAllowed bool
}

// Row is one instance type's pod density as the VPC CNI, the EKS max-pods calculator and
// Karpenter see it.
type Row struct {
	InstanceType string `json:"instanceType"`
	// ENIs are the network interfaces of the default network card only, which is what every
	// max-pods formula uses (not the instance-wide total of multi-card types).
	ENIs       int32 `json:"enis"`
	IPv4PerENI int32 `json:"ipv4PerENI"`
	VCPUs      int32 `json:"vcpus"`
	// Nitro is true on Nitro types, bare metal included, where prefix delegation works.
	Nitro     bool `json:"nitro"`
	BareMetal bool `json:"bareMetal,omitempty"`
	// SecondaryIP is usable ENIs x (IPv4PerENI - 1) + 2, as in eni-max-pods.txt, uncapped.
	SecondaryIP int64 `json:"secondaryIP"`
	// PrefixDelegation is usable ENIs x (IPv4PerENI - 1) x 16 + 2, capped at 110 (250 above 30
	// vCPUs) unless MaxAllowed; nil on types that cannot use prefixes (neither Nitro nor bare metal).
	PrefixDelegation *int64 `json:"prefixDelegation"`
	// Recommended is the kubelet max pods for the chosen VPC CNI mode, capped like the
	// calculator unless MaxAllowed: the prefix-delegation value with PrefixDelegation on a
	// Nitro type, else the secondary-IP value.
	Recommended int64 `json:"recommended"`
	// Karpenter is the max pods Karpenter sets when kubelet.maxPods is not set: its ENI-limited
	// formula with RESERVED_ENIS and the efa-only interfaces on card 0. It ignores prefixes.
	Karpenter int64 `json:"karpenter"`
	// Source is where the limits were read: SourceEmbedded (OfflineSource, of SourceDate) or
	// SourceEC2 (DescribeInstanceTypes in Region). For sets it to nothing.
	Source     string `json:"source,omitempty"`
	SourceDate string `json:"sourceDate,omitempty"`
	Region     string `json:"region,omitempty"`
}

// The sources of a Row.
const (
	SourceEmbedded = "embedded"
	SourceEC2      = "ec2"
)

// For computes the pod density of instance type t under opts, with the formulas of
// IPCapacity and ENILimitedPods.
func For(t *snapshot.InstanceType, opts Options) Row {
	var attached []snapshot.ENI
	for i := range opts.EFAOnly {
		attached = append(attached, snapshot.ENI{NetworkCardIndex: 0, DeviceIndex: i + 1, InterfaceType: InterfaceEFAOnly})
	}
	secondary := IPCapacity(t, Settings{CustomNetworking: opts.CustomNetworking}, attached, opts.PodENI)
	prefixes := IPCapacity(t, Settings{CustomNetworking: opts.CustomNetworking, PrefixDelegation: true}, attached, opts.PodENI)
	limit := func(v int64) int64 {
		if opts.MaxAllowed {
			return v
		}
		return min(v, Cap(t.VCPUs))
	}
	m := Row{
		InstanceType: t.Name,
		ENIs:         t.DefaultCardENIs(),
		IPv4PerENI:   t.IPv4PerENI,
		VCPUs:        t.VCPUs,
		Nitro:        prefixes.PrefixDelegation,
		BareMetal:    t.BareMetal,
		SecondaryIP:  secondary.IPCapacity,
		Recommended:  limit(secondary.IPCapacity),
		Karpenter:    KarpenterPods(t, opts.ReservedENIs, opts.EFAOnly),
	}
	if prefixes.PrefixDelegation {
		pd := limit(prefixes.IPCapacity)
		m.PrefixDelegation = &pd
		if opts.PrefixDelegation {
			m.Recommended = pd
		}
	}
	return m
}

// Cap is the max pods the EKS calculator allows a type with vcpus vCPUs: 110, or 250
// above 30 vCPUs.
func Cap(vcpus int32) int64 {
	if vcpus > CapLargeAt {
		return CapLarge
	}
	return CapSmall
}

// KarpenterPods is the max pods Karpenter computes for t without kubelet.maxPods: the
// ENI-limited formula of ENILimitedPods over the default card's ENIs minus reservedENIs
// (RESERVED_ENIS) and efaOnly (efa-only interfaces on card 0), or 0 when none is left.
func KarpenterPods(t *snapshot.InstanceType, reservedENIs, efaOnly int32) int64 {
	left := max(t.DefaultCardENIs()-max(reservedENIs, 0)-max(efaOnly, 0), 0)
	reduced := *t
	reduced.MaxENIs, reduced.NetworkCards = left, nil
	return ENILimitedPods(&reduced)
}
