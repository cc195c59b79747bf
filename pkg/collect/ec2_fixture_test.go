package collect

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2InstanceID returns the n-th test instance ID.
func ec2InstanceID(n int) string { return fmt.Sprintf("i-%017x", n) }

// ec2Node returns a node with an aws providerID in zone and an instance-type label.
func ec2Node(name, zone, instanceID, instanceType string) corev1.Node {
	return corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelInstanceTypeStable: instanceType}},
		Spec:       corev1.NodeSpec{ProviderID: "aws:///" + zone + "/" + instanceID},
	}
}

// ec2World is a simulated EC2 with n instances over two subnets, two security groups, one
// placement group and two instance types, and the snapshot of the n nodes that run on them.
type ec2World struct {
	sim  *ec2sim.Server
	url  string
	snap *snapshot.Snapshot
}

func newEC2World(t *testing.T, n int) *ec2World {
	t.Helper()
	sim := ec2sim.New()
	sim.AddSubnets(
		snapshot.Subnet{ID: "subnet-a", VpcID: "vpc-1", CIDR: "10.0.0.0/19", Zone: "us-west-2a", ZoneID: "usw2-az1", AvailableIPs: 8000},
		snapshot.Subnet{ID: "subnet-b", VpcID: "vpc-1", CIDR: "10.0.32.0/19", Zone: "us-west-2b", ZoneID: "usw2-az2", AvailableIPs: 12},
		snapshot.Subnet{ID: "subnet-pods", VpcID: "vpc-1", CIDR: "100.64.0.0/16", Zone: "us-west-2a", ZoneID: "usw2-az1", AvailableIPs: 60000},
	)
	sim.AddSecurityGroups(
		snapshot.SecurityGroup{ID: "sg-cluster", Name: "eks-cluster-sg", VpcID: "vpc-1"},
		snapshot.SecurityGroup{ID: "sg-nodes", Name: "nodes", VpcID: "vpc-1"},
		snapshot.SecurityGroup{ID: "sg-pods", Name: "pods", VpcID: "vpc-1"},
	)
	sim.AddPlacementGroups(snapshot.PlacementGroup{ID: "pg-0a1", Name: "train", Strategy: "cluster", State: "available"})
	sim.AddInstanceTypes(
		snapshot.InstanceType{Name: "m5.large", Hypervisor: "nitro", VCPUs: 2, MaxENIs: 3, IPv4PerENI: 10,
			NetworkCards: []snapshot.NetworkCard{{Index: 0, MaxENIs: 3}}},
		snapshot.InstanceType{Name: "c5.xlarge", Hypervisor: "nitro", VCPUs: 4, MaxENIs: 4, IPv4PerENI: 15,
			NetworkCards: []snapshot.NetworkCard{{Index: 0, MaxENIs: 4}}},
	)
	s := snapshot.New(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	for i := range n {
		zone, subnet, typ := "us-west-2a", "subnet-a", "m5.large"
		if i%2 == 1 {
			zone, subnet, typ = "us-west-2b", "subnet-b", "c5.xlarge"
		}
		id := ec2InstanceID(i)
		in := snapshot.Instance{
			ID: id, Type: typ, State: "running", Zone: zone, VpcID: "vpc-1", SubnetID: subnet,
			SecurityGroups: []snapshot.GroupRef{{ID: "sg-cluster", Name: "eks-cluster-sg"}},
			ENIs: []snapshot.ENI{{ID: fmt.Sprintf("eni-%017x", i), InterfaceType: "interface", SubnetID: subnet,
				SecurityGroups: []snapshot.GroupRef{{ID: "sg-nodes", Name: "nodes"}}}},
		}
		if i == 0 {
			in.Placement = snapshot.Placement{GroupName: "train", GroupID: "pg-0a1"}
		}
		sim.AddInstances(in)
		s.Nodes = append(s.Nodes, ec2Node(fmt.Sprintf("node-%05d", i), zone, id, typ))
	}
	s.ENIConfigs = []snapshot.ENIConfig{{Name: "us-west-2a", Subnet: "subnet-pods", SecurityGroups: []string{"sg-pods"}}}
	return &ec2World{sim: sim, url: sim.Start(t), snap: s}
}

// collectEC2 reads EC2 for s, whose Kubernetes half is complete, as Collect does.
func (c *Collector) collectEC2(ctx context.Context, s *snapshot.Snapshot) {
	e := c.startEC2(ctx)
	e.addNodes(s.Nodes, -1)
	e.nodesDone(s)
	e.finish(ctx, s)
}
