package scale

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Snapshot returns what a collection of the synthetic cluster of n nodes holds, built in
// memory with no API server and no EC2: the same nodes (stripped of what collection drops),
// NodeClaims, NodePools, EC2NodeClasses, aws-node, sandbox failures, instances, subnets,
// security groups, placement group and instance types that Grow seeds, in the form collection
// decodes them into. It is for measuring what analysing and printing cost at sizes too big to
// seed into kube-apiserver here (100,000 nodes).
func Snapshot(n int, taken time.Time) *snapshot.Snapshot {
	s := snapshot.New(taken)
	s.Context, s.Cluster, s.Region, s.ClusterName = "scale", "https://scale.invalid", Region, clusterName
	s.Nodes = make([]corev1.Node, 0, n)
	s.NodeClaims = make([]snapshot.NodeClaim, 0, n)
	s.Instances = make([]snapshot.Instance, 0, n)
	used, wide := map[int]int{}, n > wideNodes
	for i := range n {
		m := newMachineIn(i, wide)
		node := m.node()
		node.Status.Images = nil // as collection strips it
		s.Nodes = append(s.Nodes, *node)
		s.NodeClaims = append(s.NodeClaims, m.snapshotClaim())
		s.Instances = append(s.Instances, m.instance())
		used[m.subnet] += m.usedIPs()
		if m.fault == maxPodsAboveIPs {
			for k := range 3 {
				ev := sandboxFailure(m.name, fmt.Sprintf("web-%s-%d", claimSuffix(i), k))
				s.SandboxFailures = append(s.SandboxFailures, snapshot.SandboxFailure{
					Node: ev.Source.Host, Namespace: ev.InvolvedObject.Namespace, Pod: ev.InvolvedObject.Name,
					Message: ev.Message, Count: ev.Count, LastSeen: taken, FirstSeen: taken,
				})
			}
		}
	}
	for sn := range subnetCount {
		p := subnetPrefixIn(sn, wide)
		free := int32(1<<(32-p.Bits()) - 5 - used[sn])
		if sn == exhaustedSubnet {
			free = exhaustedFreeIP
		}
		s.Subnets = append(s.Subnets, snapshot.Subnet{
			ID: subnetID(sn), VpcID: vpcID, CIDR: p.String(), Zone: subnetZone(sn), ZoneID: zoneID(subnetZone(sn)),
			AvailableIPs: free, Tags: subnetTags(sn),
		})
	}
	s.NodePools, s.NodeClasses = snapshotPools(), snapshotClasses()
	ds := awsNode()
	env := map[string]string{}
	for _, e := range ds.Spec.Template.Spec.Containers[0].Env {
		env[e.Name] = e.Value
	}
	s.AWSNode = &snapshot.AWSNode{Image: ds.Spec.Template.Spec.Containers[0].Image, Env: env}
	s.SecurityGroups, s.PlacementGroups = securityGroups(), placementGroups()
	for _, t := range instanceTypes() {
		s.InstanceTypes = append(s.InstanceTypes, t.snapshotType())
	}
	return s
}

// snapshotConditions returns conditions of the given types, all True since since().
func snapshotConditions(types ...string) []snapshot.Condition {
	out := make([]snapshot.Condition, 0, len(types))
	for _, t := range types {
		out = append(out, snapshot.Condition{Type: t, Status: "True", Reason: t, LastTransitionTime: since()})
	}
	return out
}

// snapshotClaim is the machine's NodeClaim as collection decodes claimObject.
func (m *machine) snapshotClaim() snapshot.NodeClaim {
	labels := m.labels()
	delete(labels, "kubernetes.io/hostname")
	c := snapshot.NodeClaim{
		Name: m.claim, APIVersion: "karpenter.sh/v1", Labels: labels,
		NodeClassRef: snapshot.NodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: m.class},
		ProviderID:   m.providerID(), NodeName: m.name,
		Conditions: snapshotConditions("Launched", "Registered", "Initialized", "Ready"),
	}
	if m.efa > 0 {
		c.Requests = map[string]string{"vpc.amazonaws.com/efa": fmt.Sprint(m.efa)}
	}
	return c
}

// snapshotPools are nodePools as collection decodes them.
func snapshotPools() []snapshot.NodePool {
	var general []string
	for _, t := range generalTypes() {
		general = append(general, t.name)
	}
	req := func(key string, values ...string) snapshot.Requirement {
		return snapshot.Requirement{Key: key, Operator: "In", Values: values}
	}
	pool := func(name, class string, reqs ...snapshot.Requirement) snapshot.NodePool {
		return snapshot.NodePool{
			Name: name, APIVersion: "karpenter.sh/v1", Requirements: reqs,
			NodeClassRef: snapshot.NodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: class},
			Conditions:   snapshotConditions("NodeClassReady", "NodeRegistrationHealthy", "ValidationSucceeded", "Ready"),
		}
	}
	return []snapshot.NodePool{
		pool("general", "default", req("topology.kubernetes.io/zone", append(zones(), exhaustedZone)...),
			req("node.kubernetes.io/instance-type", general...), req("karpenter.sh/capacity-type", "on-demand", "spot")),
		pool("training", "efa", req("topology.kubernetes.io/zone", zones()[0]),
			req("node.kubernetes.io/instance-type", efaType().name), req("karpenter.sh/capacity-type", "on-demand")),
	}
}

// snapshotClasses are nodeClasses as collection decodes them.
func snapshotClasses() []snapshot.EC2NodeClass {
	var subnets []snapshot.SubnetStatus
	for s := range subnetCount {
		if subnetTags(s)["karpenter.sh/discovery"] == clusterName {
			subnets = append(subnets, snapshot.SubnetStatus{ID: subnetID(s), Zone: subnetZone(s), ZoneID: zoneID(subnetZone(s))})
		}
	}
	var groups []snapshot.SecurityGroupStatus
	for _, g := range nodeGroups() {
		groups = append(groups, snapshot.SecurityGroupStatus(g))
	}
	discovery := []snapshot.SelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": clusterName}}}
	ready := []string{"AMIsReady", "InstanceProfileReady", "SecurityGroupsReady", "SubnetsReady", "ValidationSucceeded"}
	class := func(name string, conds ...string) snapshot.EC2NodeClass {
		return snapshot.EC2NodeClass{
			Name: name, APIVersion: "karpenter.k8s.aws/v1", AMIFamily: "AL2023",
			SubnetSelectorTerms: discovery, SecurityGroupSelectorTerms: discovery,
			StatusSubnets: subnets, StatusSecurityGroups: groups, Conditions: snapshotConditions(conds...),
		}
	}
	efa := class("efa", append(ready, "PlacementGroupReady", "Ready")...)
	efa.AssociatePublicIPAddress = ptr.To(false)
	efa.NetworkInterfaces = []snapshot.NetworkInterface{{InterfaceType: "interface"}}
	for c := range efaCards {
		efa.NetworkInterfaces = append(efa.NetworkInterfaces, snapshot.NetworkInterface{NetworkCardIndex: int32(c + 1), InterfaceType: "efa-only"})
	}
	efa.PlacementGroupSelector = &snapshot.PlacementGroupSelector{Name: placementGroupName}
	return []snapshot.EC2NodeClass{class("default", append(ready, "Ready")...), efa}
}
