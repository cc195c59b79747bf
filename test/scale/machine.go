package scale

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// fault is a misconfiguration planted on one node; every cluster of 500 nodes or more has
// each of them once.
type fault int

const (
	healthy fault = iota
	extraSecurityGroup
	internalIPNotInstanceIP
	inUnselectedSubnet
	maxPodsAboveIPs
	inExhaustedSubnet
	outsidePlacementGroup
)

// faultAt says which fault node i carries: the planted faults sit on the nodes with indexes
// 13, 77, 101, 222, 333 and 450.
func faultAt(i int) fault {
	switch i {
	case 13:
		return extraSecurityGroup
	case 77:
		return inExhaustedSubnet
	case 101:
		return internalIPNotInstanceIP
	case 222:
		return inUnselectedSubnet
	case 333:
		return maxPodsAboveIPs
	case 450:
		return outsidePlacementGroup
	}
	return healthy
}

// isTraining reports whether node i is a training (EFA) node: one in a hundred.
func isTraining(i int) bool { return i%100 == 50 }

// efaCards is how many efa-only interfaces a training node has, one per extra network card.
const efaCards = 31

// launched is when every instance was launched; the clusters are old and settled.
func launched() time.Time { return time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC) }

// machine is node i of the cluster: its EC2 instance and what the Kubernetes objects say.
type machine struct {
	i       int
	wide    bool // the node subnets are /13s (subnetPrefixIn)
	fault   fault
	pool    string
	class   string
	typ     instanceType
	subnet  int
	zone    string
	id      string
	name    string
	claim   string
	ip      netip.Addr
	groups  []snapshot.GroupRef
	enis    []snapshot.ENI
	maxPods int64
	efa     int64
}

// mix returns a well-spread 64-bit value for i and salt, for IDs and per-node variety.
func mix(i int, salt uint64) uint64 {
	x := uint64(i)*0x9e3779b97f4a7c15 + salt
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 29
	return x
}

// claimSuffix returns five lower-case letters and digits unique to i, as Karpenter names
// NodeClaims (pool-xxxxx).
func claimSuffix(i int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	v := (uint64(i)*7919 + 1234567) % 60466176 // 36^5; 7919 is prime to 36, so i ↦ v is one to one
	var b [5]byte
	for k := range b {
		b[4-k] = alphabet[v%36]
		v /= 36
	}
	return string(b[:])
}

func newMachine(i int) *machine { return newMachineIn(i, false) }

// newMachineIn returns node i with the node subnets wide (/13s) or not (/16s). Training nodes
// take addresses from offset 40,960 of the first node subnet (from 400,000 when wide), beyond
// the general nodes' up to wideNodes nodes (up to 100,000 when wide).
func newMachineIn(i int, wide bool) *machine {
	m := &machine{i: i, wide: wide, fault: faultAt(i), pool: "general", class: "default", groups: nodeGroups()}
	types := generalTypes()
	m.typ = types[i%len(types)]
	m.subnet = (i%3)*nodeSubnets + (i/3)%nodeSubnets
	offset := 16 + (i/(3*nodeSubnets))*addrBlock
	switch {
	case isTraining(i):
		m.pool, m.class, m.typ, m.subnet = "training", "efa", efaType(), 0
		offset = 40960 + (i/100)*addrBlock
		if wide {
			offset = 400000 + (i/100)*addrBlock
		}
	case m.fault == inUnselectedSubnet:
		m.subnet, offset = unselectedSubnet, 16
	case m.fault == inExhaustedSubnet:
		m.subnet, offset = exhaustedSubnet, 16
	}
	m.zone = subnetZone(m.subnet)
	m.ip = addrAt(m.prefix(), offset)
	m.id = fmt.Sprintf("i-0%016x", mix(i, 1))
	m.name = "ip-" + strings.ReplaceAll(m.ip.String(), ".", "-") + "." + Region + ".compute.internal"
	m.claim = m.pool + "-" + claimSuffix(i)
	if m.fault == extraSecurityGroup {
		m.groups = append(m.groups, snapshot.GroupRef{ID: debugSG, Name: "scale-debug-ssh"})
	}
	m.maxPods = m.typ.maxPods()
	if m.fault == maxPodsAboveIPs {
		m.maxPods = 110
	}
	m.enis = m.attachENIs(offset)
	return m
}

// addrAt returns the address off places into p.
func addrAt(p netip.Prefix, off int) netip.Addr {
	a := p.Addr().As4()
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	v += uint32(off)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// attachENIs returns the instance's interfaces: one to three VPC CNI ENIs on the default
// card, each full of secondary addresses, and on training nodes an efa-only interface on
// every other network card.
func (m *machine) attachENIs(offset int) []snapshot.ENI {
	count := 1 + int(mix(m.i, 2)%3)
	if m.pool == "training" {
		count = 1
	}
	var enis []snapshot.ENI
	prefix := m.prefix()
	for d := range count {
		eni := snapshot.ENI{
			ID: fmt.Sprintf("eni-0%016x", mix(m.i*64+d, 3)), InterfaceType: "interface", DeviceIndex: int32(d),
			SubnetID: subnetID(m.subnet), SecurityGroups: m.groups, Status: "in-use",
		}
		if d > 0 {
			eni.Description = "aws-K8S-" + m.id
		}
		ips := int(m.typ.ipv4)
		for k := range ips {
			eni.PrivateIPs = append(eni.PrivateIPs, addrAt(prefix, offset+d*int(m.typ.ipv4)+k).String())
		}
		eni.PrimaryIP = eni.PrivateIPs[0]
		enis = append(enis, eni)
	}
	if m.pool == "training" {
		for c := int32(1); c <= efaCards; c++ {
			enis = append(enis, snapshot.ENI{
				ID: fmt.Sprintf("eni-0%016x", mix(m.i*64+int(c)+3, 3)), InterfaceType: "efa-only",
				NetworkCardIndex: c, SubnetID: subnetID(m.subnet), SecurityGroups: m.groups, Status: "in-use",
			})
		}
		m.efa = efaCards
	}
	return enis
}

// prefix returns the CIDR of the machine's subnet.
func (m *machine) prefix() netip.Prefix { return subnetPrefixIn(m.subnet, m.wide) }

// usedIPs is how many subnet addresses the instance holds.
func (m *machine) usedIPs() int {
	n := 0
	for _, e := range m.enis {
		n += len(e.PrivateIPs)
	}
	return n
}

// instance returns what DescribeInstances says about the machine.
func (m *machine) instance() snapshot.Instance {
	in := snapshot.Instance{
		ID: m.id, Type: m.typ.name, State: "running", Zone: m.zone, ZoneID: zoneID(m.zone),
		VpcID: vpcID, SubnetID: subnetID(m.subnet), PrivateIP: m.ip.String(), SecurityGroups: m.groups,
		ENIs: m.enis, Placement: snapshot.Placement{Tenancy: "default"}, LaunchTime: launched(),
		Tags: map[string]string{
			"karpenter.sh/nodepool": m.pool, "karpenter.sh/nodeclaim": m.claim,
			"karpenter.k8s.aws/ec2nodeclass": m.class, "eks:eks-cluster-name": clusterName,
			"kubernetes.io/cluster/" + clusterName: "owned", "Name": m.name,
		},
	}
	if m.pool == "training" && m.fault != outsidePlacementGroup {
		in.Placement.GroupName, in.Placement.GroupID = placementGroupName, placementGroupID
	}
	return in
}

// internalIP is the address the node reports as InternalIP.
func (m *machine) internalIP() string {
	if m.fault == internalIPNotInstanceIP {
		return addrAt(m.prefix(), 16+(m.i/(3*nodeSubnets))*addrBlock+addrBlock-1).String()
	}
	return m.ip.String()
}
