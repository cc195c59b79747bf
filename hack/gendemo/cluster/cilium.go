package cluster

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apitypes "k8s.io/apimachinery/pkg/types"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// The second demo cluster: Cilium in ENI mode instead of the VPC CNI, under its own kubeconfig
// context. Pods take addresses of interfaces Cilium's operator attaches in 100.64.0.0/16 pod
// subnets (first-interface-index 1: the primary interface carries none). The prefix NodePool
// is as Cilium and Karpenter document it: prefix delegation, max pods 110 and Cilium's startup
// taint. The general NodePool predates that: no startup taint, Karpenter's VPC CNI max pods,
// and nodes that started before prefix delegation was turned on, so Cilium keeps them on
// secondary addresses. NetworkPolicies exist, and Cilium enforces them.
const (
	CiliumContext    = "demo-cilium"
	CiliumClusterARN = "arn:aws:eks:us-west-2:111122223333:cluster/demo-cilium"

	ciliumCluster = "demo-cilium"
	ciliumSGName  = "eks-cluster-sg-demo-cilium-2290411583"
)

// ciliumNet is the Cilium cluster's VPC: a node subnet and a pod subnet in zones a and b.
type ciliumNet struct {
	vpc              string
	clusterSG, podSG string
	nodes, pods      map[string]*pool // by zone letter
	ids              map[*pool]string
}

func newCiliumNet() *ciliumNet {
	n := &ciliumNet{
		vpc: hexID("vpc", "cilium"), clusterSG: hexID("sg", "cilium/cluster"), podSG: hexID("sg", "cilium/pods"),
		nodes: map[string]*pool{"a": newPool("10.1.0.0/20"), "b": newPool("10.1.16.0/20")},
		pods:  map[string]*pool{"a": newPool("100.64.0.0/18"), "b": newPool("100.64.64.0/18")},
		ids:   map[*pool]string{},
	}
	for z, p := range n.nodes {
		n.ids[p] = hexID("subnet", "cilium/node-"+z)
	}
	for z, p := range n.pods {
		n.ids[p] = hexID("subnet", "cilium/pods-"+z)
	}
	return n
}

// ciliumConnectionTracking is what the general class sets since its nodes went over their
// conntrack allowance; Karpenter applies it to the primary interface only.
var ciliumConnectionTracking = snapshot.ConnectionTracking{TCPEstablishedTimeout: 3600, UDPStreamTimeout: 60}

// ciliumNodePlan is one node of the Cilium cluster.
type ciliumNodePlan struct {
	key, pool, typ, zone string
	// secondary: the node's Cilium interface holds secondary addresses (it started before
	// prefix delegation was on); strayENI: that interface is in the node subnet;
	// conntrack: the node monitoring agent reported ConntrackExceeded.
	secondary, strayENI, conntrack bool
}

func ciliumPlans() []ciliumNodePlan {
	return []ciliumNodePlan{
		{key: "general-a-0", pool: "general", typ: "m5.large", zone: "a", secondary: true},
		{key: "general-b-0", pool: "general", typ: "m5.large", zone: "b", secondary: true, conntrack: true},
		{key: "prefix-a-0", pool: "prefix", typ: "c6i.xlarge", zone: "a"},
		{key: "prefix-a-1", pool: "prefix", typ: "c6i.xlarge", zone: "a"},
		{key: "prefix-b-0", pool: "prefix", typ: "c6i.xlarge", zone: "b", strayENI: true},
		{key: "prefix-b-1", pool: "prefix", typ: "m6i.xlarge", zone: "b"},
	}
}

// BuildCilium returns the Cilium demo snapshot.
func BuildCilium() *snapshot.Snapshot {
	s := snapshot.New(Taken())
	s.Context, s.Cluster, s.Region, s.ClusterName = CiliumContext, CiliumClusterARN, Region, ciliumCluster
	n := newCiliumNet()
	everywhere := &snapshot.Scheduling{NodeSelector: map[string]string{corev1.LabelOSStable: "linux"},
		Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}
	s.Cilium = &snapshot.Cilium{
		Image:      "quay.io/cilium/cilium:v1.20.2@sha256:" + hex64("cilium-image"),
		Scheduling: everywhere,
		Config:     map[string]string{"ipam": "eni", "aws-enable-prefix-delegation": "true"},
		ConfigRead: true,
		// The host-network DaemonSets: Cilium's agent and Envoy, and kube-proxy.
		HostNetwork: []snapshot.DaemonSet{{Namespace: "kube-system", Name: "cilium", Scheduling: everywhere},
			{Namespace: "kube-system", Name: "cilium-envoy", Scheduling: everywhere},
			{Namespace: "kube-system", Name: "kube-proxy", Scheduling: everywhere}},
		HostNetworkRead: true,
	}
	s.NetworkPolicies = nil // read only where nothing may enforce them: Cilium does
	for _, p := range ciliumPlans() {
		n.add(s, p)
	}
	s.Subnets = n.subnets()
	s.SecurityGroups = n.securityGroups()
	s.NodeClasses = n.classes(s.Subnets)
	s.NodePools = ciliumPools()
	s.RouteTables, s.NATGateways, s.NetworkACLs = n.wayOut(s.Subnets)
	for _, name := range []string{"c6i.xlarge", "m5.large", "m6i.xlarge"} {
		t := lookupType(name).snapshotType()
		t.BaselineGbps, t.PeakGbps, t.ENAExpress = ciliumBandwidth(name)
		s.InstanceTypes = append(s.InstanceTypes, t)
	}
	slices.SortFunc(s.Nodes, func(a, b corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(s.NodeClaims, func(a, b snapshot.NodeClaim) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(s.Instances, func(a, b snapshot.Instance) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(s.CiliumNodes, func(a, b snapshot.CiliumNode) int { return strings.Compare(a.Name, b.Name) })
	return s
}

// ciliumBandwidth is DescribeInstanceTypes' default-card bandwidth and ENA Express support.
func ciliumBandwidth(name string) (baseline, peak float64, enaExpress bool) {
	switch name {
	case "m5.large":
		return 0.75, 10, false
	case "c6i.xlarge", "m6i.xlarge":
		return 1.562, 12.5, false
	}
	return 0, 0, false
}

// add adds a planned node with its instance, NodeClaim and CiliumNode.
func (n *ciliumNet) add(s *snapshot.Snapshot, p ciliumNodePlan) {
	typ := lookupType(p.typ)
	zone := region + p.zone
	id := hexID("i", "cilium/"+p.key)
	ip := n.nodes[p.zone].ip(p.key + "/primary")
	name := nodeName(ip)
	claim := p.pool + "-" + suffix("cilium/"+p.key)
	launched := Taken().Add(-time.Duration(120+number("age", "cilium/"+p.key, 9*24*60)) * time.Minute).Truncate(time.Second)
	groups := []snapshot.GroupRef{{ID: n.clusterSG, Name: ciliumSGName}}
	primary := snapshot.ENI{ID: hexID("eni", "cilium/"+p.key+"/0"), InterfaceType: "interface", SubnetID: n.ids[n.nodes[p.zone]],
		PrimaryIP: ip, PrivateIPs: []string{ip}, SecurityGroups: groups, Status: "in-use"}
	if p.pool == "general" {
		primary.ConnectionTracking = ciliumConnectionTracking // from the class's launch template
	}
	podPool := n.pods[p.zone]
	if p.strayENI {
		podPool = n.nodes[p.zone] // attached before the CiliumNode named the pod subnet
	}
	pod := snapshot.ENI{ID: hexID("eni", "cilium/"+p.key+"/1"), InterfaceType: "interface", DeviceIndex: 1,
		SubnetID: n.ids[podPool], SecurityGroups: []snapshot.GroupRef{{ID: n.podSG, Name: "demo-cilium-pods"}},
		Description: "Cilium-CNI (" + id + ")", Status: "in-use"}
	pod.PrimaryIP = podPool.ip(p.key + "/cilium")
	pod.PrivateIPs = []string{pod.PrimaryIP}
	if p.secondary {
		for i := range typ.ipv4 - 1 {
			pod.PrivateIPs = append(pod.PrivateIPs, podPool.ip(fmt.Sprintf("%s/cilium/%d", p.key, i)))
		}
	} else {
		for i := range 2 {
			pod.IPv4Prefixes = append(pod.IPv4Prefixes, podPool.prefix28(fmt.Sprintf("%s/prefix/%d", p.key, i)))
		}
	}
	s.Instances = append(s.Instances, snapshot.Instance{
		ID: id, Type: typ.name, State: "running", Zone: zone, ZoneID: zoneID(zone), VpcID: n.vpc,
		SubnetID: primary.SubnetID, PrivateIP: ip, SecurityGroups: groups, ENIs: []snapshot.ENI{primary, pod},
		Placement: snapshot.Placement{Tenancy: "default"}, LaunchTime: launched,
		Tags: map[string]string{"Name": name, "kubernetes.io/cluster/" + ciliumCluster: "owned", "karpenter.sh/nodepool": p.pool,
			"karpenter.sh/nodeclaim": claim, "karpenter.k8s.aws/ec2nodeclass": p.pool, "eks:eks-cluster-name": ciliumCluster},
	})

	maxPods := int64(110)
	if p.pool == "general" {
		maxPods = int64(typ.cardENIs)*int64(typ.ipv4-1) + 2 // Karpenter's VPC CNI formula, no ENI reserved
	}
	labels := map[string]string{
		corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux", corev1.LabelHostname: name,
		corev1.LabelInstanceTypeStable: typ.name, corev1.LabelTopologyRegion: region, corev1.LabelTopologyZone: zone,
		"topology.k8s.aws/zone-id": zoneID(zone), snapshot.LabelNodePool: p.pool, snapshot.LabelEC2NodeClass: p.pool,
		"karpenter.sh/capacity-type": "on-demand", "karpenter.sh/registered": "true", "karpenter.sh/initialized": "true",
	}
	created := launched.Add(47 * time.Second)
	cpu := *resource.NewQuantity(int64(typ.vcpus), resource.DecimalSI)
	mem := resource.MustParse(fmt.Sprintf("%dKi", typ.memoryMiB*1024*963/1000))
	pods := *resource.NewQuantity(maxPods, resource.DecimalSI)
	node := corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: nodeUID(name), Labels: labels, CreationTimestamp: metav1.NewTime(created),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: v1Karpenter, Kind: "NodeClaim", Name: claim,
				UID: apitypes.UID(uid(claim)), BlockOwnerDeletion: ptr(true)}},
			Finalizers: []string{"karpenter.sh/termination"},
		},
		Spec: corev1.NodeSpec{ProviderID: "aws:///" + zone + "/" + id},
		Status: corev1.NodeStatus{
			Capacity:    corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem, corev1.ResourcePods: pods},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem, corev1.ResourcePods: pods},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}, {Type: corev1.NodeInternalDNS, Address: name},
				{Type: corev1.NodeHostName, Address: name}},
			Conditions: []corev1.NodeCondition{readyCondition(created, false), {
				Type: corev1.NodeNetworkUnavailable, Status: corev1.ConditionFalse, Reason: "CiliumIsUp",
				Message: "Cilium is running on this node", LastTransitionTime: metav1.NewTime(created.Add(20 * time.Second)),
				LastHeartbeatTime: metav1.NewTime(created.Add(20 * time.Second)),
			}},
			NodeInfo: corev1.NodeSystemInfo{KubeletVersion: kubeletVersion, OSImage: "Amazon Linux 2023.9.20251117",
				KernelVersion: "6.12.55-74.119.amzn2023.x86_64", ContainerRuntimeVersion: "containerd://2.1.4",
				OperatingSystem: "linux", Architecture: "amd64"},
		},
	}
	s.Nodes = append(s.Nodes, node)
	s.NodeClaims = append(s.NodeClaims, snapshot.NodeClaim{
		Name: claim, APIVersion: v1Karpenter, NodeClassRef: classRef(p.pool), ProviderID: node.Spec.ProviderID, NodeName: name,
		Labels: map[string]string{snapshot.LabelNodePool: p.pool, snapshot.LabelEC2NodeClass: p.pool,
			corev1.LabelInstanceTypeStable: typ.name, corev1.LabelTopologyZone: zone, "karpenter.sh/capacity-type": "on-demand"},
		Conditions: conditions(launched.Add(50*time.Second), "Launched", "Registered", "Initialized", "Ready"),
		Created:    launched.Add(-5 * time.Second),
	})

	first := int32(1)
	cn := snapshot.CiliumNode{Name: name, InstanceID: id, FirstInterfaceIndex: &first,
		SubnetIDs: []string{n.ids[n.pods[p.zone]]}, SecurityGroups: []string{n.podSG}}
	for i, e := range []snapshot.ENI{primary, pod} {
		var sgs []string
		for _, g := range e.SecurityGroups {
			sgs = append(sgs, g.ID)
		}
		cn.ENIs = append(cn.ENIs, snapshot.CiliumENI{ID: e.ID, Number: int32(i), Subnet: e.SubnetID, SecurityGroups: sgs,
			Addresses: len(e.PrivateIPs) - 1, Prefixes: len(e.IPv4Prefixes)})
	}
	s.CiliumNodes = append(s.CiliumNodes, cn)

	if p.conntrack {
		last := Taken().Add(-7 * time.Minute)
		s.NodeEvents = append(s.NodeEvents, snapshot.KubeEvent{Kind: "Node", Name: name, Type: "Warning",
			Reason: snapshot.ConditionNetworkingReady, Count: 4, First: last.Add(-35 * time.Minute), Last: last,
			Message: `ConntrackExceeded: conntrack_allowance_exceeded increased on interface "ens5" from 18230 to 31874`})
	}
}

// subnets returns DescribeSubnets for the four subnets.
func (n *ciliumNet) subnets() []snapshot.Subnet {
	var out []snapshot.Subnet
	add := func(p *pool, zone string, tags map[string]string) {
		z := region + zone
		out = append(out, snapshot.Subnet{ID: n.ids[p], VpcID: n.vpc, CIDR: p.cidr.String(), Zone: z, ZoneID: zoneID(z),
			AvailableIPs: int32(p.usable() - p.inUse() - 40), Tags: tags})
	}
	for _, z := range []string{"a", "b"} {
		add(n.nodes[z], z, map[string]string{"Name": "demo-cilium-private-" + z, "karpenter.sh/discovery": ciliumCluster})
		add(n.pods[z], z, map[string]string{"Name": "demo-cilium-pods-" + z, "cilium.io/pods": "true"})
	}
	slices.SortFunc(out, func(a, b snapshot.Subnet) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// securityGroups returns the cluster security group and the pods' group.
func (n *ciliumNet) securityGroups() []snapshot.SecurityGroup {
	anywhere := snapshot.Rule{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}}
	out := []snapshot.SecurityGroup{
		{ID: n.clusterSG, Name: ciliumSGName, VpcID: n.vpc,
			Inbound:  []snapshot.Rule{{Protocol: "-1", GroupIDs: []string{n.clusterSG, n.podSG}}},
			Outbound: []snapshot.Rule{anywhere},
			Tags: map[string]string{"Name": ciliumSGName, "aws:eks:cluster-name": ciliumCluster,
				"kubernetes.io/cluster/" + ciliumCluster: "owned", "karpenter.sh/discovery": ciliumCluster}},
		{ID: n.podSG, Name: "demo-cilium-pods", VpcID: n.vpc,
			Inbound:  []snapshot.Rule{{Protocol: "-1", GroupIDs: []string{n.clusterSG, n.podSG}}},
			Outbound: []snapshot.Rule{anywhere},
			Tags:     map[string]string{"Name": "demo-cilium-pods"}},
	}
	slices.SortFunc(out, func(a, b snapshot.SecurityGroup) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// classes returns the EC2NodeClasses: general leaves max pods to Karpenter, prefix sets 110.
func (n *ciliumNet) classes(subnets []snapshot.Subnet) []snapshot.EC2NodeClass {
	since := Taken().Add(-30 * 24 * time.Hour)
	class := func(name string) snapshot.EC2NodeClass {
		return snapshot.EC2NodeClass{
			Name: name, APIVersion: v1AWS, AMIFamily: "AL2023",
			SubnetSelectorTerms:        []snapshot.SelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": ciliumCluster}}},
			SecurityGroupSelectorTerms: []snapshot.SelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": ciliumCluster}}},
			StatusSubnets:              selectedBy(subnets, func(s snapshot.Subnet) bool { return s.Tags["karpenter.sh/discovery"] == ciliumCluster }),
			StatusSecurityGroups:       []snapshot.SecurityGroupStatus{{ID: n.clusterSG, Name: ciliumSGName}},
			Conditions:                 conditions(since, "AMIsReady", "InstanceProfileReady", "SecurityGroupsReady", "SubnetsReady", "ValidationSucceeded", "Ready"),
		}
	}
	prefix := class("prefix")
	prefix.Kubelet = &snapshot.Kubelet{MaxPods: ptr[int32](110)}
	general := class("general")
	general.ConnectionTracking = &ciliumConnectionTracking
	return []snapshot.EC2NodeClass{general, prefix}
}

// ciliumPools returns the NodePools: prefix lists Cilium's startup taint, general does not.
func ciliumPools() []snapshot.NodePool {
	since := Taken().Add(-30 * 24 * time.Hour)
	pool := func(name string) snapshot.NodePool {
		return snapshot.NodePool{Name: name, APIVersion: v1Karpenter, NodeClassRef: classRef(name),
			Requirements: []snapshot.Requirement{
				{Key: corev1.LabelTopologyZone, Operator: "In", Values: []string{region + "a", region + "b"}},
				{Key: "karpenter.sh/capacity-type", Operator: "In", Values: []string{"on-demand"}},
			},
			Conditions: conditions(since, "NodeClassReady", "NodeRegistrationHealthy", "ValidationSucceeded", "Ready")}
	}
	prefix := pool("prefix")
	prefix.StartupTaints = []corev1.Taint{{Key: snapshot.CiliumTaintDefault, Value: "true", Effect: corev1.TaintEffectNoExecute}}
	return []snapshot.NodePool{pool("general"), prefix}
}

// wayOut returns a main route table through a NAT gateway in a public subnet, that subnet's
// route table to the internet gateway, and the default network ACL.
func (n *ciliumNet) wayOut(subnets []snapshot.Subnet) ([]snapshot.RouteTable, []snapshot.NATGateway, []snapshot.NetworkACL) {
	nat := hexID("nat", "cilium/public-a")
	routes := []snapshot.RouteTable{{ID: hexID("rtb", "cilium/main"), VpcID: n.vpc, Main: true, Routes: []snapshot.Route{
		{Destination: "10.1.0.0/16", Target: "local", State: snapshot.RouteActive},
		{Destination: "100.64.0.0/16", Target: "local", State: snapshot.RouteActive},
		{Destination: "0.0.0.0/0", Target: nat, State: snapshot.RouteActive},
	}}, {ID: hexID("rtb", "cilium/public"), VpcID: n.vpc, SubnetIDs: []string{hexID("subnet", "cilium/public-a")}, Routes: []snapshot.Route{
		{Destination: "10.1.0.0/16", Target: "local", State: snapshot.RouteActive},
		{Destination: "0.0.0.0/0", Target: hexID("igw", "cilium"), State: snapshot.RouteActive},
	}}}
	gateways := []snapshot.NATGateway{{ID: nat, VpcID: n.vpc, SubnetID: hexID("subnet", "cilium/public-a"), State: "available",
		ConnectivityType: "public", PublicIP: "203.0.113.77"}}
	var ids []string
	for _, s := range subnets {
		ids = append(ids, s.ID)
	}
	acl := snapshot.NetworkACL{ID: hexID("acl", "cilium/default"), VpcID: n.vpc, Default: true, SubnetIDs: ids,
		Entries: []snapshot.ACLEntry{
			{RuleNumber: 100, Egress: true, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0"},
			{RuleNumber: 32767, Egress: true, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0"},
			{RuleNumber: 100, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "0.0.0.0/0"},
			{RuleNumber: 32767, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0"},
		}}
	return routes, gateways, []snapshot.NetworkACL{acl}
}

// EncodeCilium returns the Cilium demo snapshot as snapshot.Write writes it.
func EncodeCilium() ([]byte, error) {
	var buf strings.Builder
	if err := snapshot.Write(&buf, BuildCilium()); err != nil {
		return nil, fmt.Errorf("encoding the Cilium demo snapshot: %w", err)
	}
	return []byte(buf.String()), nil
}
