package view

// Lifecycle is where the node is in its life.
type Lifecycle struct {
	// State is running, initialising, terminating, termination-stuck or skipped.
	State string `json:"state"`
	// Reason says what puts the node in that state, e.g. "deleted 3m ago (...); instance
	// i-... is shutting-down"; empty for a running node.
	Reason string `json:"reason,omitempty"`
}

// Platform is what the node runs on and which data planes apply to it.
type Platform struct {
	// Compute is ec2, fargate, hybrid or other.
	Compute string `json:"compute"`
	// OS is linux or windows, when known; IPFamily is ipv4 or ipv6 (the family pods take).
	OS       string `json:"os,omitempty"`
	IPFamily string `json:"ipFamily,omitempty"`
	// VPCCNI tells whether the aws-node DaemonSet runs on the node; VPCCNIReason says why.
	VPCCNI       bool   `json:"vpcCNI"`
	VPCCNIReason string `json:"vpcCNIReason,omitempty"`
	// NetworkPolicy says whether the VPC CNI's agent enforces network policies on the node,
	// and in which mode; empty when aws-node does not run here or has no policy agent.
	NetworkPolicy string `json:"networkPolicy,omitempty"`
}

// Identity ties a Node to its instance and to Karpenter.
type Identity struct {
	Node          string `json:"node"`
	ProviderID    string `json:"providerID,omitempty"`
	InstanceID    string `json:"instanceID,omitempty"`
	InstanceState string `json:"instanceState,omitempty"`
	InstanceType  string `json:"instanceType,omitempty"`
	Zone          string `json:"zone,omitempty"`
	ZoneID        string `json:"zoneID,omitempty"`
	NodePool      string `json:"nodePool,omitempty"`
	NodeClass     string `json:"nodeClass,omitempty"`
	// NodeClassKind is NodeClass on an EKS Auto Mode node; empty means an EC2NodeClass.
	NodeClassKind string `json:"nodeClassKind,omitempty"`
	// AutoMode is true on an EKS Auto Mode node (label eks.amazonaws.com/compute-type=auto).
	AutoMode  bool   `json:"autoMode,omitempty"`
	NodeClaim string `json:"nodeClaim,omitempty"`
	// Skipped says why the node was not checked against EC2 (a non-EC2 providerID).
	Skipped string `json:"skipped,omitempty"`
}

// AddressReport is one InternalIP of the node.
type AddressReport struct {
	Address string `json:"address"`
	// InSubnet tells whether the address lies in the instance subnet's CIDR (nil: unknown).
	InSubnet *bool `json:"inSubnet,omitempty"`
	// IsPrimaryIP tells whether it equals the instance's primary private IP (nil: unknown).
	IsPrimaryIP *bool `json:"isPrimaryIP,omitempty"`
}

// SubnetReport is the instance's subnet.
type SubnetReport struct {
	ID           string `json:"id"`
	CIDR         string `json:"cidr,omitempty"`
	Zone         string `json:"zone,omitempty"`
	ZoneID       string `json:"zoneID,omitempty"`
	AvailableIPs *int32 `json:"availableIPs,omitempty"`
	// Selected tells whether the EC2NodeClass status selects the subnet (nil: no NodeClass).
	Selected *bool `json:"selected,omitempty"`
}

// SecurityGroups compares the instance's security groups with its EC2NodeClass's resolved set.
type SecurityGroups struct {
	Groups []SecurityGroupReport `json:"groups"`
	// NodeClass is the EC2NodeClass's status.securityGroups IDs, when known.
	NodeClass []string `json:"nodeClass,omitempty"`
	// Match tells whether the two sets are equal (nil: no NodeClass to compare with).
	Match *bool `json:"match,omitempty"`
}

// SecurityGroupReport is one security group of the instance.
type SecurityGroupReport struct {
	ID          string `json:"id"`
	Name        string `json:"name,omitempty"`
	InNodeClass *bool  `json:"inNodeClass,omitempty"`
}

// ENIReport is one network interface attached to the instance.
type ENIReport struct {
	NetworkCardIndex int32    `json:"networkCardIndex"`
	DeviceIndex      int32    `json:"deviceIndex"`
	ID               string   `json:"id"`
	InterfaceType    string   `json:"interfaceType"`
	SubnetID         string   `json:"subnetID,omitempty"`
	PrivateIPs       []string `json:"privateIPs,omitempty"`
	IPv4Prefixes     []string `json:"ipv4Prefixes,omitempty"`
	SecurityGroups   []string `json:"securityGroups,omitempty"`
}

// CapacityReport compares the pods a node advertises with what its ENIs can give pods. On an
// EKS Auto Mode node Pods is the figure to trust and IPCapacity only an estimate (Estimate).
type CapacityReport struct {
	// AutoMode is true on an EKS Auto Mode node, whose max pods EKS sets by a formula it does
	// not publish; Estimate is true when IPCapacity is karpnet's estimate of it.
	AutoMode bool `json:"autoMode,omitempty"`
	Estimate bool `json:"estimate,omitempty"`
	// Windows is true on a Windows node, whose pod IPs are its advertised
	// vpc.amazonaws.com/PrivateIPv4Address; IPFamily is ipv4 or ipv6 (pods take addresses of a
	// /80 prefix on the primary ENI, with no IPv4 ceiling).
	Windows  bool   `json:"windows,omitempty"`
	IPFamily string `json:"ipFamily,omitempty"`
	// Pods is the node's status.capacity.pods.
	Pods int64 `json:"pods"`
	// IPCapacity is the most pod IPs the node's ENIs can ever give (see Formula).
	IPCapacity int64 `json:"ipCapacity"`
	// Inputs of the formula.
	DefaultCardENIs  int32 `json:"defaultCardENIs"`
	IPv4PerENI       int32 `json:"ipv4PerENI"`
	PrefixDelegation bool  `json:"prefixDelegation"`
	CustomNetworking bool  `json:"customNetworking"`
	TrunkENI         bool  `json:"trunkENI"`
	EFAOnlyOnCard0   int32 `json:"efaOnlyOnCard0"`
	UsableENIs       int32 `json:"usableENIs"`
	// ENIsAttached counts the ENIs attached on the default network card.
	ENIsAttached int `json:"enisAttached"`
	// Formula is the computation with its numbers, e.g. "(3 - 0) x (10 - 1) + 2 = 29".
	Formula string `json:"formula"`
}

// CiliumReport is what the node's CiliumNode asks of Cilium's ENI IPAM, the interfaces it
// lists, and how many pod addresses Cilium can give the node.
type CiliumReport struct {
	CiliumNode string `json:"ciliumNode"`
	// FirstInterfaceIndex is spec.eni.first-interface-index; interfaces below it carry no
	// pod address.
	FirstInterfaceIndex *int32 `json:"firstInterfaceIndex,omitempty"`
	// FirstInterfaceIndexProblem says why the index is not computed with, "out of range (0 to
	// 3, the interfaces of m5.large)"; the capacity and the managed interfaces are then unknown.
	FirstInterfaceIndexProblem string            `json:"firstInterfaceIndexProblem,omitempty"`
	SubnetIDs                  []string          `json:"subnetIDs,omitempty"`
	SubnetTags                 map[string]string `json:"subnetTags,omitempty"`
	SecurityGroups             []string          `json:"securityGroups,omitempty"`
	SecurityGroupTags          map[string]string `json:"securityGroupTags,omitempty"`
	PrefixDelegation           bool              `json:"prefixDelegation"`
	// Pods is capacity.pods; Allocatable the addresses Cilium can give the node, PodIPs those
	// left for pods after its router and health endpoint; Formula shows the computation.
	// All three are 0 and Formula empty when the instance type or the index is unknown.
	Pods        int64  `json:"pods"`
	Allocatable int64  `json:"allocatable"`
	PodIPs      int64  `json:"podIPs"`
	Formula     string `json:"formula,omitempty"`
	// HostNetworkPods are the pods that take no pod address: the host-network DaemonSets with
	// a pod on the node (HostNetwork), or Karpenter's assumed 2 when they were not listed.
	HostNetworkPods int64             `json:"hostNetworkPods,omitempty"`
	HostNetwork     []string          `json:"hostNetwork,omitempty"`
	ENIs            []CiliumENIReport `json:"enis"`
	// OperatorError is the CiliumNode's status.ipam.operator-status.error.
	OperatorError string `json:"operatorError,omitempty"`
}

// CiliumENIReport is one interface of a CiliumNode's status.eni.enis.
type CiliumENIReport struct {
	ID     string `json:"id"`
	Device int32  `json:"device"`
	Subnet string `json:"subnet,omitempty"`
	// Managed is true when Cilium gives pods addresses of it (device at or above
	// first-interface-index, and not left out by exclude-interface-tags); Excluded is true
	// when exclude-interface-tags leaves it out.
	Managed        bool     `json:"managed"`
	Excluded       bool     `json:"excluded,omitempty"`
	SecurityGroups []string `json:"securityGroups,omitempty"`
	Addresses      int      `json:"addresses"`
	Prefixes       int      `json:"prefixes"`
}

// EFAReport is the node's Elastic Fabric Adapter picture.
type EFAReport struct {
	Supported     bool  `json:"supported"`
	MaxInterfaces int32 `json:"maxInterfaces"`
	// Attached counts ENIs of type efa and efa-only.
	Attached int `json:"attached"`
	// Allocatable is the node's allocatable vpc.amazonaws.com/efa.
	Allocatable int64 `json:"allocatable"`
	// NodeClassEFAOnly counts efa-only entries in the EC2NodeClass's networkInterfaces.
	NodeClassEFAOnly int `json:"nodeClassEFAOnly,omitempty"`
}

// PlacementReport is the instance's placement group and what its EC2NodeClass selects.
type PlacementReport struct {
	GroupName string `json:"groupName,omitempty"`
	GroupID   string `json:"groupID,omitempty"`
	Strategy  string `json:"strategy,omitempty"`
	Partition int32  `json:"partition,omitempty"`
	// NodeClassSelects is the EC2NodeClass's placementGroupSelector as name=... or id=....
	NodeClassSelects string `json:"nodeClassSelects,omitempty"`
}

// AutoModeReport is the pod networking an EKS Auto Mode node gets from its NodeClass.
type AutoModeReport struct {
	NodeClass string `json:"nodeClass,omitempty"`
	// IPv4PrefixSize is spec.advancedNetworking.ipv4PrefixSize as written ("" means Auto);
	// IPMode says what it means.
	IPv4PrefixSize string `json:"ipv4PrefixSize,omitempty"`
	IPMode         string `json:"ipMode,omitempty"`
	// PodSubnetSelectorTerms and PodSecurityGroupSelectorTerms render the NodeClass's terms,
	// e.g. "tags kubernetes.io/role/pod=1"; empty when pods use the node subnets.
	PodSubnetSelectorTerms        []string `json:"podSubnetSelectorTerms,omitempty"`
	PodSecurityGroupSelectorTerms []string `json:"podSecurityGroupSelectorTerms,omitempty"`
	// PodSubnets are the known subnets in the node's zone that the pod terms select.
	PodSubnets []string `json:"podSubnets,omitempty"`
	// StaticInterfaces counts spec.advancedNetworking.networkInterfaces entries.
	StaticInterfaces int `json:"staticInterfaces,omitempty"`
}
