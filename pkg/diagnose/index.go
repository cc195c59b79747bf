package diagnose

import (
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/blocks"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/subnetcap"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Index is a Snapshot with its objects keyed for lookup and each node joined with its
// instance, subnet, instance type, NodeClaim, NodePool and NodeClass (a self-managed
// EC2NodeClass or an EKS Auto Mode NodeClass). It is built once per Analyze and shared,
// read-only, by every check.
type Index struct {
	Snapshot *snapshot.Snapshot

	// Nodes holds every node, sorted by name.
	Nodes []*NodeInfo
	// Claims holds the NodeClaims that no Node answers to, sorted by name (join_nodeclaim.go).
	Claims []*ClaimInfo

	Instances       map[string]*snapshot.Instance
	Subnets         map[string]*snapshot.Subnet
	SecurityGroups  map[string]*snapshot.SecurityGroup
	PlacementGroups map[string]*snapshot.PlacementGroup // by ID and by name
	InstanceTypes   map[string]*snapshot.InstanceType
	NodePools       map[string]*snapshot.NodePool
	// NodeClasses holds EC2NodeClasses and Auto Mode NodeClasses keyed by ClassKey(kind, name),
	// as the two kinds may share a name; look them up with NodeClass or ClassOf.
	NodeClasses map[string]*snapshot.EC2NodeClass
	ENIConfigs  map[string]*snapshot.ENIConfig

	// net keys the route tables, NAT gateways, VPC endpoints and network ACLs (pkg/diagnose/wayout).
	net *wayout.Net

	// checked is checkedNodes' answer, made once for every check that asks.
	checked     []*NodeInfo
	checkedOnce sync.Once
	// vpcCNIList is vpcCNINodes' answer, made once for the VPC CNI's checks.
	vpcCNIList []*NodeInfo
	vpcCNIOnce sync.Once
	// paths is pathSubjects' answer, made once for the three way-out checks.
	paths     []pathSubject
	pathsOnce sync.Once
	// pools is subnetPools' answer, made once for subnet-ip-exhaustion and
	// subnet-prefix-fragmented.
	pools     []subnetcap.Pool
	poolsOnce sync.Once

	// reach holds nodesAffected's answers by the set they count, so that the commands of many
	// findings on one class, pool or group count its nodes once (command.go).
	reach   map[string]string
	reachMu sync.Mutex

	// blocks holds the subnet block maps' inputs and answers (pkg/diagnose/blocks).
	blocks *blocks.Index
	// interfaces keys the interfaces read on their own by ID (Interface).
	interfaces     map[string]*snapshot.InterfaceRecord
	interfacesOnce sync.Once

	// cilium holds what the Cilium checks and the node sheet's Cilium section share
	// (nodeagents_cilium.go).
	cilium ciliumIndex

	// cni and warmPool are aws-node's settings, read once instead of for every node.
	cni      CNISettings
	warmPool subnetcap.Warm
}

// NodeInfo is one node joined with everything karpnet knows about it. Pointers are nil when
// the object is unknown.
type NodeInfo struct {
	Node *corev1.Node
	// EC2 is true when the node should be an EC2 instance (Compute is ComputeEC2): an aws
	// providerID that is not a Fargate one, or none at all on a node carrying EC2 or Karpenter
	// labels. Non-EC2 nodes are skipped.
	EC2 bool
	// Provider is the parsed providerID; ProviderErr says why it did not parse.
	Provider    ProviderID
	ProviderErr error
	// Unread is the gap of the node's Region when EC2 could not be read there: the node is
	// skipped, as the other Regions' nodes are checked.
	Unread *snapshot.Gap

	Instance *snapshot.Instance
	Subnet   *snapshot.Subnet
	Type     *snapshot.InstanceType
	Claim    *snapshot.NodeClaim
	Pool     *snapshot.NodePool
	Class    *snapshot.EC2NodeClass

	// PoolName and ClassName are the node's NodePool and NodeClass names, even when the
	// objects themselves were not found. ClassKind is snapshot.KindEC2NodeClass, or
	// snapshot.KindNodeClass on an EKS Auto Mode node.
	PoolName  string
	ClassName string
	ClassKind string

	// Compute is ComputeEC2, ComputeFargate, ComputeHybrid or ComputeOther. State is where the
	// node is in its life and StateReason why (empty for a plain running node).
	Compute     string
	State       NodeState
	StateReason string
	// OS is the node's operating system (OSLinux, OSWindows, or "" when unknown); IPFamily
	// is IPv6 when its pods take IPv6 addresses, else IPv4.
	OS       string
	IPFamily string
	// VPCCNI is true when the aws-node DaemonSet runs on the node; VPCCNIReason says why or
	// why not.
	VPCCNI       bool
	VPCCNIReason string
}

// Checked reports whether the node takes part in EC2 checks: an EC2 node whose providerID parses,
// in a Region EC2 was read in.
func (n *NodeInfo) Checked() bool { return n.EC2 && n.ProviderErr == nil && n.Unread == nil }

// Name returns the node's name.
func (n *NodeInfo) Name() string { return n.Node.Name }

// NewIndex indexes s. It does not modify s.
func NewIndex(s *snapshot.Snapshot) *Index {
	x := &Index{
		Snapshot:        s,
		Instances:       keyed(s.Instances, func(v *snapshot.Instance) string { return v.ID }),
		Subnets:         keyed(s.Subnets, func(v *snapshot.Subnet) string { return v.ID }),
		SecurityGroups:  keyed(s.SecurityGroups, func(v *snapshot.SecurityGroup) string { return v.ID }),
		PlacementGroups: keyed(s.PlacementGroups, func(v *snapshot.PlacementGroup) string { return v.ID }),
		InstanceTypes:   keyed(s.InstanceTypes, func(v *snapshot.InstanceType) string { return v.Name }),
		NodePools:       keyed(s.NodePools, func(v *snapshot.NodePool) string { return v.Name }),
		NodeClasses:     keyed(s.NodeClasses, func(v *snapshot.EC2NodeClass) string { return ClassKey(v.KindName(), v.Name) }),
		ENIConfigs:      keyed(s.ENIConfigs, func(v *snapshot.ENIConfig) string { return v.Name }),
		cni:             CNISettingsFrom(s.AWSNode),
		warmPool:        subnetcap.WarmOf(s.AWSNode),
	}
	x.net = wayout.New(s, x.Subnets)
	x.blocks = blocks.New(s)
	for i := range s.PlacementGroups {
		if pg := &s.PlacementGroups[i]; pg.Name != "" {
			if _, ok := x.PlacementGroups[pg.Name]; !ok {
				x.PlacementGroups[pg.Name] = pg
			}
		}
	}
	claimsByNode := make(map[string]*snapshot.NodeClaim, len(s.NodeClaims))
	claimsByProvider := make(map[string]*snapshot.NodeClaim, len(s.NodeClaims))
	for i := range s.NodeClaims {
		c := &s.NodeClaims[i]
		if c.NodeName != "" {
			claimsByNode[c.NodeName] = c
		}
		if c.ProviderID != "" {
			claimsByProvider[c.ProviderID] = c
		}
	}
	x.Nodes = make([]*NodeInfo, 0, len(s.Nodes))
	for i := range s.Nodes {
		n := &NodeInfo{Node: &s.Nodes[i]}
		n.Claim = claimsByNode[n.Node.Name]
		if n.Claim == nil && n.Node.Spec.ProviderID != "" {
			n.Claim = claimsByProvider[n.Node.Spec.ProviderID]
		}
		x.join(n)
		x.Nodes = append(x.Nodes, n)
	}
	slices.SortFunc(x.Nodes, func(a, b *NodeInfo) int { return strings.Compare(a.Name(), b.Name()) })
	x.Claims = x.joinClaims()
	return x
}

func (x *Index) join(n *NodeInfo) {
	node := n.Node
	n.Provider, n.ProviderErr = ParseProviderID(node.Spec.ProviderID)
	n.Compute = computeKind(node)
	n.EC2 = n.Compute == ComputeEC2
	if n.Checked() {
		n.Unread = x.Snapshot.ZoneGap(n.Provider.Zone)
	}
	if n.Checked() {
		n.Instance = x.Instances[n.Provider.InstanceID]
	}
	if n.Instance != nil {
		n.Subnet = x.Subnets[n.Instance.SubnetID]
		n.Type = x.InstanceTypes[n.Instance.Type]
	} else if t := node.Labels[corev1.LabelInstanceTypeStable]; t != "" {
		n.Type = x.InstanceTypes[t]
	}

	n.PoolName = node.Labels[snapshot.LabelNodePool]
	if n.PoolName == "" && n.Claim != nil {
		n.PoolName = n.Claim.NodePool()
	}
	n.Pool = x.NodePools[n.PoolName]

	if autoModeNode(node, n.Claim) {
		n.ClassKind = snapshot.KindNodeClass
		switch {
		case node.Labels[snapshot.LabelAutoNodeClass] != "":
			n.ClassName = node.Labels[snapshot.LabelAutoNodeClass]
		case n.Claim != nil && n.Claim.NodeClassRef.Name != "" && isAutoModeRef(n.Claim.NodeClassRef):
			n.ClassName = n.Claim.NodeClassRef.Name
		case n.Pool != nil && isAutoModeRef(n.Pool.NodeClassRef):
			n.ClassName = n.Pool.NodeClassRef.Name
		}
	} else {
		n.ClassKind = snapshot.KindEC2NodeClass
		switch {
		case n.Claim != nil && n.Claim.NodeClassRef.Name != "" && isEC2NodeClassRef(n.Claim.NodeClassRef):
			n.ClassName = n.Claim.NodeClassRef.Name
		case node.Labels[snapshot.LabelEC2NodeClass] != "":
			n.ClassName = node.Labels[snapshot.LabelEC2NodeClass]
		case n.Pool != nil && isEC2NodeClassRef(n.Pool.NodeClassRef):
			n.ClassName = n.Pool.NodeClassRef.Name
		}
	}
	if n.ClassName != "" {
		n.Class = x.NodeClasses[ClassKey(n.ClassKind, n.ClassName)]
	}
	x.decideLifecycle(n)
	x.decidePlatform(n)
}

// looksLikeEC2 reports whether a node without providerID carries labels only EC2 nodes have.
func looksLikeEC2(node *corev1.Node) bool {
	for k := range node.Labels {
		if strings.HasPrefix(k, "karpenter.sh/") || strings.HasPrefix(k, "karpenter.k8s.aws/") ||
			k == snapshot.LabelComputeType && node.Labels[k] == snapshot.ComputeTypeAuto ||
			strings.HasPrefix(k, "eks.amazonaws.com/nodegroup") || strings.HasPrefix(k, "k8s.io/cloud-provider-aws") {
			return true
		}
	}
	return false
}

// Unavailable reports whether source could not be read (see snapshot.Snapshot.Unavailable).
func (x *Index) Unavailable(source string) bool { return x.Snapshot.Unavailable(source) }

// BlockMap is a subnet's /28 block map (pkg/diagnose/blocks), named here for the views that
// embed it.
type BlockMap = blocks.Map

// BlockMap returns the subnet's /28 block map, made once per Index; ok is false unless the
// subnet's every interface was read and its CIDR is IPv4.
func (x *Index) BlockMap(s *snapshot.Subnet) (BlockMap, bool) { return x.blocks.Map(s) }

// Setting returns an aws-node (VPC CNI) env setting, or def.
func (x *Index) Setting(name, def string) string { return x.Snapshot.AWSNode.Setting(name, def) }

// CNI is the capacity settings of aws-node (CNISettingsFrom), read once by NewIndex.
func (x *Index) CNI() CNISettings { return x.cni }

func keyed[T any](items []T, key func(*T) string) map[string]*T {
	m := make(map[string]*T, len(items))
	for i := range items {
		m[key(&items[i])] = &items[i]
	}
	return m
}

// InternalIPs returns the node's InternalIP addresses in status order.
func (n *NodeInfo) InternalIPs() []string {
	var ips []string
	for _, a := range n.Node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP && a.Address != "" {
			ips = append(ips, a.Address)
		}
	}
	return ips
}

// checkedNodes returns the nodes that take part in EC2 checks: EC2 nodes whose providerID
// parses and that are not being deleted.
func (x *Index) checkedNodes() []*NodeInfo {
	x.checkedOnce.Do(func() {
		for _, n := range x.Nodes {
			if n.Checked() && !n.Terminating() {
				x.checked = append(x.checked, n)
			}
		}
	})
	return x.checked
}

// instanceENIs returns the ENIs attached to the node's instance, nil when it is unknown.
func (n *NodeInfo) instanceENIs() []snapshot.ENI {
	if n.Instance == nil {
		return nil
	}
	return n.Instance.ENIs
}
