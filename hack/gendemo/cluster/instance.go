package cluster

import (
	"fmt"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// machine is what one planned node gets from EC2 and from the subnets.
type machine struct {
	plan     nodePlan
	typ      instanceType
	zone     string
	id       string
	subnet   *subnet
	ip       string
	groups   []snapshot.GroupRef
	enis     []snapshot.ENI
	maxPods  int64
	efaCount int64
}

func newMachine(net *network, p nodePlan) *machine {
	m := &machine{plan: p, typ: lookupType(p.typ), zone: region + p.zone, id: hexID("i", p.key), subnet: net.subnet(p.subnet)}
	m.ip = m.subnet.pool.ip(p.key + "/primary")
	switch {
	case p.kind == managedNode || p.kind == autoNode:
		// Managed node groups without a launch template use the cluster security group, and
		// the Auto Mode NodeClass selects it by ID.
		m.groups = []snapshot.GroupRef{{ID: net.clusterSG, Name: clusterSGName}}
	default:
		m.groups = net.nodeGroups()
	}
	if p.fault == extraSecurityGroup {
		m.groups = append(m.groups, snapshot.GroupRef{ID: net.debugSG, Name: debugSGName})
	}
	m.maxPods = m.podCapacity()
	m.enis = append(m.enis, snapshot.ENI{
		ID: hexID("eni", p.key+"/0/0"), InterfaceType: "interface", SubnetID: m.subnet.id,
		PrimaryIP: m.ip, PrivateIPs: []string{m.ip}, SecurityGroups: m.groups, Status: "in-use",
	})
	if p.class == "efa" {
		for c := int32(1); c <= efaCards; c++ {
			m.enis = append(m.enis, snapshot.ENI{
				ID: hexID("eni", fmt.Sprintf("%s/%d/0", p.key, c)), InterfaceType: "efa-only",
				NetworkCardIndex: c, SubnetID: m.subnet.id, SecurityGroups: m.groups, Status: "in-use",
			})
		}
		m.efaCount = efaCards
	}
	if p.kind == autoNode {
		m.enis = append(m.enis, m.autoPodENIs(net)...)
		return m
	}
	m.enis = append(m.enis, m.cniENI(net))
	return m
}

// podCapacity is the node's capacity.pods: kubelet.maxPods when the EC2NodeClass sets it,
// else Karpenter's ENI-limited figure with RESERVED_ENIS=1 (set for custom networking). EKS
// managed node groups compute 110 with prefix delegation on. Auto Mode nodes get
// min(110, ENIs x (IPv4 per ENI - 1)), which matches a real c6a.large (27).
func (m *machine) podCapacity() int64 {
	switch {
	case m.plan.kind == autoNode:
		return min(autoMaxPods, int64(m.typ.cardENIs)*int64(m.typ.ipv4-1))
	case m.plan.kind == managedNode:
		return 110
	case m.plan.class == "batch":
		return batchMaxPods
	case m.plan.class == "default":
		return defaultMaxPods
	}
	usable := int64(m.typ.cardENIs - 1)
	return usable*int64(m.typ.ipv4-1) + 2
}

// cniENI is the secondary ENI the VPC CNI attached on the default card: with custom networking
// it lives in the zone's ENIConfig subnet, with /28 prefixes on Nitro and secondary IPs on Xen.
func (m *machine) cniENI(net *network) snapshot.ENI {
	pods := net.podSubnet(m.zone)
	eni := snapshot.ENI{
		ID: hexID("eni", m.plan.key+"/0/1"), InterfaceType: "interface", DeviceIndex: 1, SubnetID: pods.id,
		SecurityGroups: []snapshot.GroupRef{{ID: net.clusterSG, Name: clusterSGName}},
		Description:    "aws-K8S-" + m.id, Status: "in-use",
	}
	eni.PrimaryIP = pods.pool.ip(m.plan.key + "/cni")
	eni.PrivateIPs = []string{eni.PrimaryIP}
	if m.typ.hypervisor != "nitro" {
		for i := range m.typ.ipv4 - 1 {
			eni.PrivateIPs = append(eni.PrivateIPs, pods.pool.ip(fmt.Sprintf("%s/cni/%d", m.plan.key, i)))
		}
		return eni
	}
	running := 4 + int(number("pods", m.plan.key, 24))
	for i := range (running+15)/16 + 1 {
		eni.IPv4Prefixes = append(eni.IPv4Prefixes, pods.pool.prefix28(fmt.Sprintf("%s/prefix/%d", m.plan.key, i)))
	}
	return eni
}

// instance returns what DescribeInstances says about the machine.
func (m *machine) instance(net *network, launched time.Time, tags map[string]string) snapshot.Instance {
	in := snapshot.Instance{
		ID: m.id, Type: m.typ.name, State: "running", Zone: m.zone, ZoneID: zoneID(m.zone),
		VpcID: net.vpcID, SubnetID: m.subnet.id, PrivateIP: m.ip, SecurityGroups: m.groups, ENIs: m.enis,
		Placement: snapshot.Placement{Tenancy: "default"}, LaunchTime: launched, Tags: tags,
	}
	if m.plan.class == "efa" {
		in.Placement.GroupName, in.Placement.GroupID = net.placementGroup.Name, net.placementGroup.ID
	}
	if m.plan.fault == consolidating {
		in.State = "shutting-down"
	}
	if m.plan.fault == instanceTerminated {
		// A terminated instance has no network interfaces or addresses left.
		in.State, in.VpcID, in.SubnetID, in.PrivateIP, in.SecurityGroups, in.ENIs = "terminated", "", "", "", nil, nil
	}
	return in
}
