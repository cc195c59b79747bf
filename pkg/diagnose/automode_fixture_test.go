package diagnose

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Names used by the Auto Mode fixture. Auto Mode names nodes after their instance.
const (
	autoInstance   = "i-0fedcba9876543210"
	autoNode       = autoInstance
	subnetAutoB    = "subnet-0bbb"
	autoPodSubnetA = "subnet-0pda"
	autoPodSubnetC = "subnet-0pdc"
)

// autoRef is the nodeClassRef of an Auto Mode NodePool or NodeClaim.
func autoRef(name string) snapshot.NodeClassRef {
	return snapshot.NodeClassRef{Group: snapshot.AutoModeGroup, Kind: snapshot.KindNodeClass, Name: name}
}

// autoHealthy returns a snapshot of one healthy EKS Auto Mode node: an m5.large in us-west-2a
// with 27 pods (Auto Mode's min(110, 3 x (10 - 1))), NodePool "general" and Ready NodeClass
// "default", whose primary ENI holds a /28 prefix and /32 addresses side by side and whose
// second ENI sits in another selected subnet of the zone. A self-managed EC2NodeClass is also
// named "default" and selects other subnets, and aws-node runs with prefix delegation and
// custom networking on for the cluster's other nodes.
func autoHealthy() *snapshot.Snapshot {
	s := healthy()
	node := karpenterNode(autoNode, autoInstance, "10.0.1.20")
	delete(node.Labels, snapshot.LabelEC2NodeClass)
	node.Labels[snapshot.LabelNodePool] = "general"
	node.Labels[snapshot.LabelComputeType] = snapshot.ComputeTypeAuto
	node.Labels[snapshot.LabelAutoNodeClass] = "default"
	node.Status.Capacity[corev1.ResourcePods] = resource.MustParse("27")
	node.Status.Allocatable[corev1.ResourcePods] = resource.MustParse("27")
	s.Nodes = []corev1.Node{node}
	s.NodeClaims = []snapshot.NodeClaim{{
		Name: "general-xyz12", Labels: map[string]string{snapshot.LabelNodePool: "general"},
		NodeClassRef: autoRef("default"), ProviderID: "aws:///us-west-2a/" + autoInstance, NodeName: autoNode,
	}}
	s.NodePools = []snapshot.NodePool{{Name: "general", APIVersion: "karpenter.sh/v1", NodeClassRef: autoRef("default")}}
	s.NodeClasses = []snapshot.EC2NodeClass{
		{
			Name: "default", APIVersion: "karpenter.k8s.aws/v1",
			StatusSubnets:        []snapshot.SubnetStatus{{ID: "subnet-0other", Zone: "us-west-2a"}},
			StatusSecurityGroups: []snapshot.SecurityGroupStatus{{ID: "sg-0other"}},
			Conditions:           []snapshot.Condition{{Type: "Ready", Status: "True"}},
		},
		{
			Name: "default", APIVersion: "eks.amazonaws.com/v1", Group: snapshot.AutoModeGroup, Kind: snapshot.KindNodeClass,
			StatusSubnets: []snapshot.SubnetStatus{
				{ID: subnetA, Zone: "us-west-2a", ZoneID: "usw2-az1"}, {ID: subnetAutoB, Zone: "us-west-2a", ZoneID: "usw2-az1"},
			},
			StatusSecurityGroups: []snapshot.SecurityGroupStatus{{ID: sgNodes, Name: "nodes"}},
			Conditions:           []snapshot.Condition{{Type: "Ready", Status: "True"}},
		},
	}
	s.AWSNode = &snapshot.AWSNode{Image: "amazon-k8s-cni:v1.6.0", Env: map[string]string{
		SettingPrefixDelegation: "true", SettingCustomNetwork: "true", SettingPodENI: "true", "WARM_IP_TARGET": "5",
	}}
	in := instance(autoInstance, "10.0.1.20")
	in.ENIs[0].PrivateIPs = []string{"10.0.1.20", "10.0.1.21", "10.0.1.22"}
	in.ENIs[0].IPv4Prefixes = []string{"10.0.1.48/28"}
	in.ENIs = append(in.ENIs, snapshot.ENI{
		ID: "eni-0second", InterfaceType: "interface", DeviceIndex: 1, SubnetID: subnetAutoB,
		PrimaryIP: "10.0.2.5", PrivateIPs: []string{"10.0.2.5", "10.0.2.6"}, IPv4Prefixes: []string{"10.0.2.16/28"},
		SecurityGroups: []snapshot.GroupRef{{ID: sgNodes}},
	})
	s.Instances = []snapshot.Instance{in}
	s.Subnets = append(s.Subnets, snapshot.Subnet{ID: subnetAutoB, CIDR: "10.0.2.0/24", Zone: "us-west-2a", ZoneID: "usw2-az1", AvailableIPs: 200})
	return s
}

// withPodSubnets gives the Auto Mode NodeClass pod subnets selected by the tag
// kubernetes.io/role/pod=1 and their security groups, with pod subnet autoPodSubnetA in
// us-west-2a and autoPodSubnetC in us-west-2c, and moves the node's second ENI into autoPodSubnetA.
func withPodSubnets(s *snapshot.Snapshot) {
	c := autoClass(s)
	c.PodSubnetSelectorTerms = []snapshot.SelectorTerm{{Tags: map[string]string{"kubernetes.io/role/pod": "1"}}}
	c.PodSecurityGroupSelectorTerms = []snapshot.SelectorTerm{{ID: "sg-0pods"}}
	pod := map[string]string{"kubernetes.io/role/pod": "1"}
	s.Subnets = append(s.Subnets,
		snapshot.Subnet{ID: autoPodSubnetA, CIDR: "100.64.0.0/18", Zone: "us-west-2a", AvailableIPs: 16000, Tags: pod},
		snapshot.Subnet{ID: autoPodSubnetC, CIDR: "100.64.128.0/18", Zone: "us-west-2c", AvailableIPs: 16000, Tags: pod},
	)
	in := &s.Instances[0]
	in.ENIs[0].PrivateIPs = []string{"10.0.1.20"}
	in.ENIs[0].IPv4Prefixes = nil
	in.ENIs[1].SubnetID = autoPodSubnetA
	in.ENIs[1].PrimaryIP, in.ENIs[1].PrivateIPs = "100.64.0.5", []string{"100.64.0.5", "100.64.0.6"}
	in.ENIs[1].IPv4Prefixes = []string{"100.64.0.16/28"}
}

// autoClass returns the Auto Mode NodeClass of an autoHealthy snapshot.
func autoClass(s *snapshot.Snapshot) *snapshot.EC2NodeClass {
	for i := range s.NodeClasses {
		if s.NodeClasses[i].AutoMode() {
			return &s.NodeClasses[i]
		}
	}
	return nil
}
