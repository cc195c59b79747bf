package scale

import (
	"fmt"
	"net/netip"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Region is the AWS Region of every synthetic cluster.
const Region = "us-west-2"

const (
	clusterName = "scale"
	vpcID       = "vpc-0a5ca1e0000000001"
	clusterSG   = "sg-0a5ca1e00000000c1"
	nodeSG      = "sg-0a5ca1e00000000c2"
	debugSG     = "sg-0a5ca1e00000000c3"
	// nodeSubnets is how many node subnets each zone has; they are /16s selected by the
	// default EC2NodeClass.
	nodeSubnets = 6
	// addrBlock is how many addresses each node reserves in its subnet for its ENIs.
	addrBlock = 64
	// placementGroupName is the cluster placement group of the training NodePool.
	placementGroupName = "scale-training"
	placementGroupID   = "pg-0a5ca1e0000000001"
)

// zones returns the cluster's Availability Zones.
func zones() []string { return []string{Region + "a", Region + "b", Region + "c"} }

// exhaustedZone is the zone of the exhausted subnet, which the general NodePool allows too.
const exhaustedZone = Region + "d"

// zoneID returns the zone ID of a zone, usw2-az1 for us-west-2a.
func zoneID(zone string) string { return fmt.Sprintf("usw2-az%d", zone[len(zone)-1]-'a'+1) }

// Subnet indexes beyond the node subnets: a small subnet nearly out of addresses that the
// default class selects, alone in a zone of its own (exhaustedZone) so that no roomier subnet
// takes the next node there, and one no class selects.
const (
	exhaustedSubnet  = 3 * nodeSubnets
	unselectedSubnet = exhaustedSubnet + 1
	subnetCount      = unselectedSubnet + 1
)

// subnetID returns the ID of subnet s.
func subnetID(s int) string { return fmt.Sprintf("subnet-0a5ca1e%010x", s+1) }

// subnetZone returns the zone of subnet s.
func subnetZone(s int) string {
	switch s {
	case exhaustedSubnet:
		return exhaustedZone
	case unselectedSubnet:
		return zones()[2]
	}
	return zones()[s/nodeSubnets]
}

// wideNodes is the largest cluster whose nodes fit the node subnets' /16s; Snapshot gives
// larger clusters /13s (wide addressing), and so does a seeded cluster measured past it
// (Cluster.Widen).
const wideNodes = 10000

// subnetPrefixIn returns the CIDR of subnet s: node subnets are /16s from 10.1.0.0, or with
// wide addressing /13s from 10.8.0.0 that leave out 10.96.0.0/13, where the small subnets are.
func subnetPrefixIn(s int, wide bool) netip.Prefix {
	switch s {
	case exhaustedSubnet:
		return netip.MustParsePrefix("10.100.0.0/24")
	case unselectedSubnet:
		return netip.MustParsePrefix("10.101.0.0/22")
	}
	if wide {
		block := s + 1
		if block >= 100/8 {
			block++
		}
		return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(block * 8), 0, 0}), 13)
	}
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(s + 1), 0, 0}), 16)
}

// subnetTags returns the tags of subnet s: node subnets and the exhausted one carry the
// discovery tag the default class selects by.
func subnetTags(s int) map[string]string {
	tags := map[string]string{"Name": fmt.Sprintf("scale-nodes-%d", s)}
	if s != unselectedSubnet {
		tags["karpenter.sh/discovery"] = clusterName
	}
	return tags
}

// instanceType is one row of the cluster's DescribeInstanceTypes, with real EC2 network limits
// (ENIs and IPv4 per ENI agree with the VPC CNI's eni-max-pods.txt).
type instanceType struct {
	name       string
	vcpus      int32
	memoryMiB  int64
	cards      int32
	cardENIs   int32
	ipv4       int32
	efa        int32
	perf       string
	generalUse bool
}

// maxPods is the VPC CNI's max pods for the type: ENIs × (IPv4 per ENI − 1) + 2.
func (t instanceType) maxPods() int64 { return int64(t.cardENIs)*int64(t.ipv4-1) + 2 }

// instanceTypes returns the cluster's ten instance types; general nodes rotate over the ones
// marked generalUse.
func instanceTypes() []instanceType {
	return []instanceType{
		{name: "c5.xlarge", vcpus: 4, memoryMiB: 8192, cards: 1, cardENIs: 4, ipv4: 15, perf: "Up to 10 Gigabit", generalUse: true},
		{name: "c6i.2xlarge", vcpus: 8, memoryMiB: 16384, cards: 1, cardENIs: 4, ipv4: 15, perf: "Up to 12.5 Gigabit", generalUse: true},
		{name: "c6i.xlarge", vcpus: 4, memoryMiB: 8192, cards: 1, cardENIs: 4, ipv4: 15, perf: "Up to 12.5 Gigabit", generalUse: true},
		{name: "m5.2xlarge", vcpus: 8, memoryMiB: 32768, cards: 1, cardENIs: 4, ipv4: 15, perf: "Up to 10 Gigabit", generalUse: true},
		{name: "m5.large", vcpus: 2, memoryMiB: 8192, cards: 1, cardENIs: 3, ipv4: 10, perf: "Up to 10 Gigabit", generalUse: true},
		{name: "m5.xlarge", vcpus: 4, memoryMiB: 16384, cards: 1, cardENIs: 4, ipv4: 15, perf: "Up to 10 Gigabit", generalUse: true},
		{name: "m6i.2xlarge", vcpus: 8, memoryMiB: 32768, cards: 1, cardENIs: 4, ipv4: 15, perf: "Up to 12.5 Gigabit", generalUse: true},
		{name: "m6i.large", vcpus: 2, memoryMiB: 8192, cards: 1, cardENIs: 3, ipv4: 10, perf: "Up to 12.5 Gigabit", generalUse: true},
		{name: "m6i.xlarge", vcpus: 4, memoryMiB: 16384, cards: 1, cardENIs: 4, ipv4: 15, perf: "Up to 12.5 Gigabit", generalUse: true},
		{name: "p5.48xlarge", vcpus: 192, memoryMiB: 2097152, cards: 32, cardENIs: 2, ipv4: 50, efa: 32, perf: "3200 Gigabit"},
	}
}

// generalTypes returns the types general nodes use.
func generalTypes() []instanceType {
	var out []instanceType
	for _, t := range instanceTypes() {
		if t.generalUse {
			out = append(out, t)
		}
	}
	return out
}

// efaType is the type of training nodes.
func efaType() instanceType {
	types := instanceTypes()
	return types[len(types)-1]
}

// snapshotType converts a row to what DescribeInstanceTypes answers.
func (t instanceType) snapshotType() snapshot.InstanceType {
	it := snapshot.InstanceType{
		Name: t.name, Hypervisor: "nitro", VCPUs: t.vcpus, MaxENIs: t.cards * t.cardENIs,
		IPv4PerENI: t.ipv4, IPv6PerENI: t.ipv4, EFASupported: t.efa > 0, MaxEFAInterfaces: t.efa,
		NetworkPerformance: t.perf,
	}
	for c := range t.cards {
		it.NetworkCards = append(it.NetworkCards, snapshot.NetworkCard{Index: c, MaxENIs: t.cardENIs})
	}
	return it
}

// securityGroups returns DescribeSecurityGroups for the cluster's groups.
func securityGroups() []snapshot.SecurityGroup {
	anywhere := snapshot.Rule{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}}
	return []snapshot.SecurityGroup{
		{
			ID: clusterSG, Name: "eks-cluster-sg-scale-1", VpcID: vpcID,
			Inbound:  []snapshot.Rule{{Protocol: "-1", GroupIDs: []string{clusterSG}}},
			Outbound: []snapshot.Rule{anywhere, {Protocol: "-1", GroupIDs: []string{clusterSG}}},
			Tags:     map[string]string{"karpenter.sh/discovery": clusterName, "aws:eks:cluster-name": clusterName},
		},
		{
			ID: nodeSG, Name: "scale-node", VpcID: vpcID,
			Inbound: []snapshot.Rule{
				{Protocol: "-1", GroupIDs: []string{nodeSG}},
				{Protocol: "tcp", FromPort: 443, ToPort: 443, GroupIDs: []string{clusterSG}},
				{Protocol: "tcp", FromPort: 10250, ToPort: 10250, GroupIDs: []string{clusterSG}},
			},
			Outbound: []snapshot.Rule{anywhere},
			Tags:     map[string]string{"karpenter.sh/discovery": clusterName},
		},
		{
			ID: debugSG, Name: "scale-debug-ssh", VpcID: vpcID,
			Inbound:  []snapshot.Rule{{Protocol: "tcp", FromPort: 22, ToPort: 22, CIDRs: []string{"10.0.0.0/8"}}},
			Outbound: []snapshot.Rule{anywhere},
		},
	}
}

// nodeGroups are the groups the EC2NodeClasses resolve.
func nodeGroups() []snapshot.GroupRef {
	return []snapshot.GroupRef{{ID: clusterSG, Name: "eks-cluster-sg-scale-1"}, {ID: nodeSG, Name: "scale-node"}}
}

// placementGroups returns DescribePlacementGroups for the training NodePool's group.
func placementGroups() []snapshot.PlacementGroup {
	return []snapshot.PlacementGroup{{ID: placementGroupID, Name: placementGroupName, Strategy: "cluster", State: "available"}}
}
