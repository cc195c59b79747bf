package diagnose

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Names used by the EFA fixture.
const (
	nodeE1    = "ip-10-0-1-31.us-west-2.compute.internal"
	nodeE2    = "ip-10-0-1-32.us-west-2.compute.internal"
	instE1    = "i-0e1e1e1e1e1e1e1e1"
	instE2    = "i-0e2e2e2e2e2e2e2e2"
	subnetB   = "subnet-0bbb"
	pgTrainID = "pg-0train"
	pgTrain   = "training"
)

// efaCluster returns the healthy snapshot plus an EFA training pool: NodePool training pinned
// to us-west-2a, EC2NodeClass efa with three efa-only interfaces on cards 1-3 of a p4d.24xlarge
// and cluster placement group "training", and two such nodes in subnetA advertising 3 EFA
// devices. The nodes' security group allows all traffic in from and out to itself.
func efaCluster() *snapshot.Snapshot {
	s := healthy()
	s.InstanceTypes = append(s.InstanceTypes, snapshot.InstanceType{
		Name: "p4d.24xlarge", Hypervisor: "nitro", VCPUs: 96, MaxENIs: 60, IPv4PerENI: 50,
		NetworkCards: []snapshot.NetworkCard{{Index: 0, MaxENIs: 15}, {Index: 1, MaxENIs: 15}, {Index: 2, MaxENIs: 15}, {Index: 3, MaxENIs: 15}},
		EFASupported: true, MaxEFAInterfaces: 4,
	})
	self := []snapshot.Rule{{Protocol: "-1", GroupIDs: []string{sgNodes}}}
	s.SecurityGroups[0].Inbound, s.SecurityGroups[0].Outbound = self, append(self, snapshot.Rule{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}})
	s.PlacementGroups = []snapshot.PlacementGroup{{ID: pgTrainID, Name: pgTrain, Strategy: strategyCluster, State: "available"}}
	class := s.NodeClasses[0]
	class.Name = "efa"
	class.NetworkInterfaces = []snapshot.NetworkInterface{
		{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
		{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: interfaceEFAOnly},
		{NetworkCardIndex: 2, DeviceIndex: 0, InterfaceType: interfaceEFAOnly},
		{NetworkCardIndex: 3, DeviceIndex: 0, InterfaceType: interfaceEFAOnly},
	}
	class.PlacementGroupSelector = &snapshot.PlacementGroupSelector{Name: pgTrain}
	s.NodeClasses = append(s.NodeClasses, class)
	s.NodePools = append(s.NodePools, snapshot.NodePool{
		Name: "training", APIVersion: "karpenter.sh/v1",
		NodeClassRef: snapshot.NodeClassRef{Group: snapshot.AWSGroup, Kind: snapshot.KindEC2NodeClass, Name: "efa"},
		Requirements: []snapshot.Requirement{{Key: corev1.LabelTopologyZone, Operator: "In", Values: []string{"us-west-2a"}}},
	})
	addEFANode(s, nodeE1, instE1, "10.0.1.31")
	addEFANode(s, nodeE2, instE2, "10.0.1.32")
	return s
}

// addEFANode adds a training node: a p4d.24xlarge in the training group with its primary ENI
// and three efa-only interfaces, its NodeClaim, and the Node advertising 3 EFA devices.
func addEFANode(s *snapshot.Snapshot, name, id, ip string) {
	n := karpenterNode(name, id, ip)
	n.Labels[corev1.LabelInstanceTypeStable] = "p4d.24xlarge"
	n.Labels[snapshot.LabelNodePool] = "training"
	n.Labels[snapshot.LabelEC2NodeClass] = "efa"
	n.Labels[labelPlacementGroupID] = pgTrainID
	for _, l := range []corev1.ResourceList{n.Status.Capacity, n.Status.Allocatable} {
		l[ResourceEFA] = resource.MustParse("3")
	}
	s.Nodes = append(s.Nodes, n)
	s.NodeClaims = append(s.NodeClaims, snapshot.NodeClaim{
		Name:         "training-" + id[len(id)-5:],
		Labels:       map[string]string{snapshot.LabelNodePool: "training"},
		NodeClassRef: snapshot.NodeClassRef{Group: snapshot.AWSGroup, Kind: snapshot.KindEC2NodeClass, Name: "efa"},
		ProviderID:   "aws:///us-west-2a/" + id,
		NodeName:     name,
	})
	in := instance(id, ip)
	in.Type = "p4d.24xlarge"
	in.Placement = snapshot.Placement{GroupName: pgTrain, GroupID: pgTrainID}
	for card := int32(1); card <= 3; card++ {
		in.ENIs = append(in.ENIs, snapshot.ENI{
			ID: fmt.Sprintf("eni-0efa%d%s", card, id[len(id)-4:]), InterfaceType: interfaceEFAOnly,
			NetworkCardIndex: card, SubnetID: subnetA, SecurityGroups: []snapshot.GroupRef{{ID: sgNodes}},
		})
	}
	s.Instances = append(s.Instances, in)
}

// findInstance returns the snapshot's instance with the given ID.
func findInstance(s *snapshot.Snapshot, id string) *snapshot.Instance {
	for i := range s.Instances {
		if s.Instances[i].ID == id {
			return &s.Instances[i]
		}
	}
	panic("no instance " + id)
}

// findNode returns the snapshot's node with the given name.
func findNode(s *snapshot.Snapshot, name string) *corev1.Node {
	for i := range s.Nodes {
		if s.Nodes[i].Name == name {
			return &s.Nodes[i]
		}
	}
	panic("no node " + name)
}

// findClass returns the snapshot's EC2NodeClass with the given name.
func findClass(s *snapshot.Snapshot, name string) *snapshot.EC2NodeClass {
	for i := range s.NodeClasses {
		if s.NodeClasses[i].Name == name {
			return &s.NodeClasses[i]
		}
	}
	panic("no EC2NodeClass " + name)
}

// runClusterCases runs single-check cases over the EFA cluster instead of the healthy fixture.
func runClusterCases(t *testing.T, c Check, cases []checkCase) {
	t.Helper()
	runCasesOver(t, efaCluster, c, cases)
}
