package cluster

import (
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// instanceType is a row of the demo's DescribeInstanceTypes: the real EC2 network limits
// (default-card ENIs and IPv4 per ENI agree with nodeadm's instance-info.jsonl) plus the vCPU
// and memory figures the nodes' capacities are computed from.
type instanceType struct {
	name       string
	vcpus      int32
	memoryMiB  int64
	hypervisor string
	// cards is the number of network cards, each with cardENIs interfaces.
	cards    int32
	cardENIs int32
	ipv4     int32
	ipv6     int32
	perf     string
	efa      int32 // EfaInfo.MaximumEfaInterfaces; 0 when EFA is not supported
	gpus     int64
}

// instanceTypes lists every type the demo's instances use.
func instanceTypes() []instanceType {
	return []instanceType{
		{name: "c6a.large", vcpus: 2, memoryMiB: 4096, hypervisor: "nitro", cards: 1, cardENIs: 3, ipv4: 10, ipv6: 10, perf: "Up to 12.5 Gigabit"},
		{name: "c6a.xlarge", vcpus: 4, memoryMiB: 8192, hypervisor: "nitro", cards: 1, cardENIs: 4, ipv4: 15, ipv6: 15, perf: "Up to 12.5 Gigabit"},
		{name: "c6i.2xlarge", vcpus: 8, memoryMiB: 16384, hypervisor: "nitro", cards: 1, cardENIs: 4, ipv4: 15, ipv6: 15, perf: "Up to 12.5 Gigabit"},
		{name: "c6i.xlarge", vcpus: 4, memoryMiB: 8192, hypervisor: "nitro", cards: 1, cardENIs: 4, ipv4: 15, ipv6: 15, perf: "Up to 12.5 Gigabit"},
		{name: "m4.large", vcpus: 2, memoryMiB: 8192, hypervisor: "xen", cards: 1, cardENIs: 2, ipv4: 10, ipv6: 10, perf: "Moderate"},
		{name: "m5.2xlarge", vcpus: 8, memoryMiB: 32768, hypervisor: "nitro", cards: 1, cardENIs: 4, ipv4: 15, ipv6: 15, perf: "Up to 10 Gigabit"},
		{name: "m5.large", vcpus: 2, memoryMiB: 8192, hypervisor: "nitro", cards: 1, cardENIs: 3, ipv4: 10, ipv6: 10, perf: "Up to 10 Gigabit"},
		{name: "m5.xlarge", vcpus: 4, memoryMiB: 16384, hypervisor: "nitro", cards: 1, cardENIs: 4, ipv4: 15, ipv6: 15, perf: "Up to 10 Gigabit"},
		{name: "m6i.2xlarge", vcpus: 8, memoryMiB: 32768, hypervisor: "nitro", cards: 1, cardENIs: 4, ipv4: 15, ipv6: 15, perf: "Up to 12.5 Gigabit"},
		{name: "m6i.large", vcpus: 2, memoryMiB: 8192, hypervisor: "nitro", cards: 1, cardENIs: 3, ipv4: 10, ipv6: 10, perf: "Up to 12.5 Gigabit"},
		{name: "m6i.xlarge", vcpus: 4, memoryMiB: 16384, hypervisor: "nitro", cards: 1, cardENIs: 4, ipv4: 15, ipv6: 15, perf: "Up to 12.5 Gigabit"},
		{name: "p5.48xlarge", vcpus: 192, memoryMiB: 2097152, hypervisor: "nitro", cards: 32, cardENIs: 2, ipv4: 50, ipv6: 50, perf: "3200 Gigabit", efa: 32, gpus: 8},
	}
}

func lookupType(name string) instanceType {
	types := instanceTypes()
	i := slices.IndexFunc(types, func(t instanceType) bool { return t.name == name })
	if i < 0 {
		panic("instance type " + name + " is not in the demo's table")
	}
	return types[i]
}

// snapshotType converts a row to what DescribeInstanceTypes gives karpnet.
func (t instanceType) snapshotType() snapshot.InstanceType {
	it := snapshot.InstanceType{
		Name:               t.name,
		Hypervisor:         t.hypervisor,
		VCPUs:              t.vcpus,
		MaxENIs:            t.cards * t.cardENIs,
		IPv4PerENI:         t.ipv4,
		IPv6PerENI:         t.ipv6,
		EFASupported:       t.efa > 0,
		MaxEFAInterfaces:   t.efa,
		NetworkPerformance: t.perf,
	}
	for c := range t.cards {
		it.NetworkCards = append(it.NetworkCards, snapshot.NetworkCard{Index: c, MaxENIs: t.cardENIs})
	}
	return it
}

// family returns the instance family, e.g. "m5" for m5.large.
func (t instanceType) family() string {
	f, _, _ := strings.Cut(t.name, ".")
	return f
}

// size returns the instance size, e.g. "large" for m5.large.
func (t instanceType) size() string {
	_, s, _ := strings.Cut(t.name, ".")
	return s
}

// generation returns the instance generation, e.g. "6" for m6i.large.
func (t instanceType) generation() string {
	i := strings.IndexAny(t.name, "0123456789")
	return t.name[i : i+1]
}
