package cluster

import (
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

const (
	v1Karpenter = "karpenter.sh/v1"
	v1AWS       = "karpenter.k8s.aws/v1"
	// efaCards is the number of efa-only interfaces of the efa EC2NodeClass, one on each
	// p5.48xlarge network card but the default one, which custom networking needs for pods.
	efaCards = 31
	// batchMaxPods is kubelet.maxPods of the batch EC2NodeClass, which relies on prefix
	// delegation for the IP addresses.
	batchMaxPods = 110
	// defaultMaxPods is kubelet.maxPods of the default EC2NodeClass.
	defaultMaxPods = 110
)

func allZones() []string { return []string{region + "a", region + "b", region + "c"} }

func conditions(at time.Time, types ...string) []snapshot.Condition {
	var out []snapshot.Condition
	for _, t := range types {
		out = append(out, snapshot.Condition{Type: t, Status: "True", Reason: t, LastTransitionTime: at})
	}
	return out
}

func classRef(name string) snapshot.NodeClassRef {
	return snapshot.NodeClassRef{Group: snapshot.AWSGroup, Kind: snapshot.KindEC2NodeClass, Name: name}
}

// nodeClasses returns the demo's EC2NodeClasses, then its Auto Mode NodeClass. subnets are the VPC's subnets, for status.
func (n *network) nodeClasses(subnets []snapshot.Subnet) []snapshot.EC2NodeClass {
	since := Taken().Add(-45 * 24 * time.Hour)
	ready := []string{"AMIsReady", "InstanceProfileReady", "SecurityGroupsReady", "SubnetsReady", "ValidationSucceeded", "Ready"}
	var sgStatus []snapshot.SecurityGroupStatus
	for _, g := range n.nodeGroups() {
		sgStatus = append(sgStatus, snapshot.SecurityGroupStatus(g))
	}
	class := func(name, discovery string) snapshot.EC2NodeClass {
		return snapshot.EC2NodeClass{
			Name: name, APIVersion: v1AWS, AMIFamily: "AL2023",
			SubnetSelectorTerms:        []snapshot.SelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": discovery}}},
			SecurityGroupSelectorTerms: []snapshot.SelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": clusterName}}},
			StatusSubnets:              selected(subnets, discovery),
			StatusSecurityGroups:       sgStatus,
			Conditions:                 conditions(since, ready...),
		}
	}
	// The platform team raised max pods for prefix delegation on the general class; the efa
	// class still has Karpenter's secondary-IP value (aws/karpenter-provider-aws#8210).
	def := class("default", clusterName)
	def.Kubelet = &snapshot.Kubelet{MaxPods: ptr[int32](defaultMaxPods)}

	batch := class("batch", "demo-batch")
	batch.Kubelet = &snapshot.Kubelet{MaxPods: ptr[int32](batchMaxPods)}

	efa := class("efa", "demo-ml")
	efa.AssociatePublicIPAddress = ptr(false)
	efa.NetworkInterfaces = []snapshot.NetworkInterface{{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"}}
	for c := int32(1); c <= efaCards; c++ {
		efa.NetworkInterfaces = append(efa.NetworkInterfaces,
			snapshot.NetworkInterface{NetworkCardIndex: c, DeviceIndex: 0, InterfaceType: "efa-only"})
	}
	efa.PlacementGroupSelector = &snapshot.PlacementGroupSelector{Name: n.placementGroup.Name}
	efa.Conditions = conditions(since, append(ready[:5:5], "PlacementGroupReady", "Ready")...)

	// The staging class selects subnets by a tag nobody set.
	staging := class("staging", "demo-staging")
	broken := Taken().Add(-26 * time.Hour)
	staging.Conditions = []snapshot.Condition{
		{Type: "AMIsReady", Status: "True", Reason: "AMIsReady", LastTransitionTime: broken},
		{Type: "InstanceProfileReady", Status: "True", Reason: "InstanceProfileReady", LastTransitionTime: broken},
		{Type: "SecurityGroupsReady", Status: "True", Reason: "SecurityGroupsReady", LastTransitionTime: broken},
		{Type: "SubnetsReady", Status: "False", Reason: "SubnetsNotFound", Message: "SubnetSelector did not match any Subnets", LastTransitionTime: broken},
		{Type: "ValidationSucceeded", Status: "False", Reason: "DependenciesNotReady", Message: "Awaiting Subnet resolution", LastTransitionTime: broken},
		{Type: "Ready", Status: "False", Reason: "UnhealthyDependents", Message: "SubnetsReady=False, ValidationSucceeded=False", LastTransitionTime: broken},
	}
	return []snapshot.EC2NodeClass{batch, def, efa, staging, n.autoNodeClass(subnets)}
}

// nodePools returns the demo's NodePools.
func nodePools() []snapshot.NodePool {
	since := Taken().Add(-45 * 24 * time.Hour)
	ready := []string{"NodeClassReady", "NodeRegistrationHealthy", "ValidationSucceeded", "Ready"}
	req := func(key, op string, values ...string) snapshot.Requirement {
		return snapshot.Requirement{Key: key, Operator: op, Values: values}
	}
	pool := func(name, class string, reqs ...snapshot.Requirement) snapshot.NodePool {
		return snapshot.NodePool{
			Name: name, APIVersion: v1Karpenter, NodeClassRef: classRef(class), Requirements: reqs,
			Labels: map[string]string{"workload-class": name}, Conditions: conditions(since, ready...),
		}
	}
	arch := req("kubernetes.io/arch", "In", "amd64")
	zones := req("topology.kubernetes.io/zone", "In", allZones()...)
	sizes := req("karpenter.k8s.aws/instance-size", "In", "large", "xlarge", "2xlarge")
	general := pool("general", "default", arch, zones, sizes,
		req("karpenter.k8s.aws/instance-family", "In", "c6i", "m5", "m6i"),
		req("karpenter.sh/capacity-type", "In", "on-demand", "spot"))
	batch := pool("batch", "batch", arch, zones, sizes,
		req("karpenter.k8s.aws/instance-category", "In", "m"),
		req("karpenter.k8s.aws/instance-generation", "Gt", "3"),
		req("karpenter.sh/capacity-type", "In", "on-demand", "spot"))
	training := pool("training", "efa",
		req("node.kubernetes.io/instance-type", "In", "p5.48xlarge"),
		req("topology.kubernetes.io/zone", "In", region+"b"),
		req("karpenter.sh/capacity-type", "In", "on-demand"))
	general.Disruption = &snapshot.Disruption{ConsolidationPolicy: "WhenEmptyOrUnderutilized", ConsolidateAfter: "0s",
		Budgets: []snapshot.DisruptionBudget{
			{Nodes: "10%"},
			{Nodes: "0", Schedule: "0 9 * * mon-fri", Duration: "8h", Reasons: []string{"Drifted", "Underutilized"}},
		}}
	batch.Disruption = &snapshot.Disruption{ConsolidationPolicy: "WhenEmpty", ConsolidateAfter: "5m"}
	staging := pool("staging", "staging", arch, zones,
		req("karpenter.k8s.aws/instance-family", "In", "m6i"))
	broken := Taken().Add(-26 * time.Hour)
	staging.Conditions = []snapshot.Condition{
		{Type: "NodeClassReady", Status: "False", Reason: "NodeClassNotReady", Message: "EC2NodeClass staging is not ready", LastTransitionTime: broken},
		{Type: "NodeRegistrationHealthy", Status: "Unknown", Reason: "AwaitingReconciliation", LastTransitionTime: broken},
		{Type: "ValidationSucceeded", Status: "True", Reason: "ValidationSucceeded", LastTransitionTime: broken},
		{Type: "Ready", Status: "False", Reason: "UnhealthyDependents", Message: "NodeClassReady=False", LastTransitionTime: broken},
	}
	return []snapshot.NodePool{batch, general, staging, training, autoNodePool()}
}
