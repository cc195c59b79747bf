package snapshot

import "time"

// Instance is what karpnet keeps of an EC2 instance from DescribeInstances.
type Instance struct {
	ID             string            `json:"id"`
	Type           string            `json:"type"`
	State          string            `json:"state"`
	Zone           string            `json:"zone"`
	ZoneID         string            `json:"zoneID,omitempty"`
	VpcID          string            `json:"vpcID,omitempty"`
	SubnetID       string            `json:"subnetID,omitempty"`
	PrivateIP      string            `json:"privateIP,omitempty"`
	PublicIP       string            `json:"publicIP,omitempty"`
	SecurityGroups []GroupRef        `json:"securityGroups,omitempty"`
	ENIs           []ENI             `json:"enis,omitempty"`
	Placement      Placement         `json:"placement,omitzero"`
	LaunchTime     time.Time         `json:"launchTime,omitzero"`
	Tags           map[string]string `json:"tags,omitempty"`
	// Lifecycle is InstanceLifecycle: spot, scheduled or capacity-block; empty for on-demand.
	Lifecycle string `json:"lifecycle,omitempty"`
	// CapacityReservationID is the capacity reservation (or Capacity Block) the instance runs in.
	CapacityReservationID string `json:"capacityReservationID,omitempty"`
	// StateTransitionReason is EC2's text for the instance's last state change (DescribeInstances
	// stateTransitionReason, "This might be an empty string"); on a terminated instance EC2 writes
	// it as "User initiated (2026-12-07 15:04:05 GMT)", the time the termination was asked for.
	StateTransitionReason string `json:"stateTransitionReason,omitempty"`
	// MetadataOptions are the instance's IMDS settings (DescribeInstances metadataOptions);
	// zero when EC2 gave none, as in snapshots written before karpnet read them.
	MetadataOptions MetadataOptions `json:"metadataOptions,omitzero"`
}

// MetadataOptions are an instance's, or an EC2NodeClass's spec.metadataOptions', settings of
// the instance metadata service. Empty strings and a zero hop limit are unknown (EC2 gave none,
// or the class does not set it).
type MetadataOptions struct {
	// HTTPEndpoint is enabled or disabled.
	HTTPEndpoint string `json:"httpEndpoint,omitempty"`
	// HTTPTokens is required (IMDSv2 only) or optional.
	HTTPTokens string `json:"httpTokens,omitempty"`
	// HTTPPutResponseHopLimit is how many network hops the IMDSv2 token's PUT response may
	// travel: 1 reaches the host's network namespace only, not a container's behind it.
	HTTPPutResponseHopLimit int32 `json:"httpPutResponseHopLimit,omitempty"`
}

// GroupRef names a security group by ID and name.
type GroupRef struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// ENI is a network interface attached to an instance.
type ENI struct {
	ID string `json:"id"`
	// InterfaceType is interface, efa, efa-only, trunk or branch.
	InterfaceType    string   `json:"interfaceType"`
	NetworkCardIndex int32    `json:"networkCardIndex"`
	DeviceIndex      int32    `json:"deviceIndex"`
	SubnetID         string   `json:"subnetID,omitempty"`
	PrimaryIP        string   `json:"primaryIP,omitempty"`
	PrivateIPs       []string `json:"privateIPs,omitempty"`
	IPv4Prefixes     []string `json:"ipv4Prefixes,omitempty"`
	IPv6Prefixes     []string `json:"ipv6Prefixes,omitempty"`
	// IPv6Addresses are the interface's own IPv6 addresses (not those of its prefixes).
	IPv6Addresses  []string   `json:"ipv6Addresses,omitempty"`
	SecurityGroups []GroupRef `json:"securityGroups,omitempty"`
	Description    string     `json:"description,omitempty"`
	Status         string     `json:"status,omitempty"`
	// ConnectionTracking is the interface's connectionTrackingConfiguration; zero when EC2
	// gives none.
	ConnectionTracking ConnectionTracking `json:"connectionTracking,omitzero"`
}

// ConnectionTracking is the connection-tracking timeouts, in seconds, of an interface or of an
// EC2NodeClass's spec.connectionTracking; 0 is EC2's default (no timeout EC2 accepts is 0).
type ConnectionTracking struct {
	TCPEstablishedTimeout int32 `json:"tcpEstablishedTimeout,omitempty"`
	UDPStreamTimeout      int32 `json:"udpStreamTimeout,omitempty"`
	UDPTimeout            int32 `json:"udpTimeout,omitempty"`
}

// Placement is where an instance was placed.
type Placement struct {
	GroupName       string `json:"groupName,omitempty"`
	GroupID         string `json:"groupID,omitempty"`
	PartitionNumber int32  `json:"partitionNumber,omitempty"`
	Tenancy         string `json:"tenancy,omitempty"`
}

// Subnet is what karpnet keeps of an EC2 subnet from DescribeSubnets.
type Subnet struct {
	ID           string            `json:"id"`
	VpcID        string            `json:"vpcID,omitempty"`
	CIDR         string            `json:"cidr"`
	Zone         string            `json:"zone"`
	ZoneID       string            `json:"zoneID,omitempty"`
	AvailableIPs int32             `json:"availableIPs"`
	Tags         map[string]string `json:"tags,omitempty"`
	// IPv6CIDRs are the subnet's associated IPv6 CIDR blocks.
	IPv6CIDRs []string `json:"ipv6CIDRs,omitempty"`
	// MapPublicIPOnLaunch gives instances launched into the subnet a public IPv4 address.
	MapPublicIPOnLaunch bool `json:"mapPublicIPOnLaunch,omitempty"`
}

// SecurityGroup is what karpnet keeps of a security group from DescribeSecurityGroups.
type SecurityGroup struct {
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	VpcID    string            `json:"vpcID,omitempty"`
	Inbound  []Rule            `json:"inbound,omitempty"`
	Outbound []Rule            `json:"outbound,omitempty"`
	Tags     map[string]string `json:"tags,omitempty"`
}

// Rule is one security-group permission. Protocol "-1" means all traffic.
type Rule struct {
	Protocol      string   `json:"protocol"`
	FromPort      int32    `json:"fromPort,omitempty"`
	ToPort        int32    `json:"toPort,omitempty"`
	CIDRs         []string `json:"cidrs,omitempty"`
	IPv6CIDRs     []string `json:"ipv6CIDRs,omitempty"`
	GroupIDs      []string `json:"groupIDs,omitempty"`
	PrefixListIDs []string `json:"prefixListIDs,omitempty"`
}

// PlacementGroup is what karpnet keeps of a placement group from DescribePlacementGroups.
type PlacementGroup struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	Strategy       string `json:"strategy"`
	PartitionCount int32  `json:"partitionCount,omitempty"`
	SpreadLevel    string `json:"spreadLevel,omitempty"`
	State          string `json:"state,omitempty"`
}

// InstanceType holds the network limits of an instance type from DescribeInstanceTypes.
type InstanceType struct {
	Name string `json:"name"`
	// Hypervisor is nitro or xen; empty for bare metal.
	Hypervisor string `json:"hypervisor,omitempty"`
	BareMetal  bool   `json:"bareMetal,omitempty"`
	VCPUs      int32  `json:"vcpus,omitempty"`
	// MaxENIs is NetworkInfo.MaximumNetworkInterfaces, over all network cards.
	MaxENIs                 int32         `json:"maxENIs"`
	DefaultNetworkCardIndex int32         `json:"defaultNetworkCardIndex"`
	NetworkCards            []NetworkCard `json:"networkCards,omitempty"`
	IPv4PerENI              int32         `json:"ipv4PerENI"`
	IPv6PerENI              int32         `json:"ipv6PerENI,omitempty"`
	EFASupported            bool          `json:"efaSupported,omitempty"`
	MaxEFAInterfaces        int32         `json:"maxEFAInterfaces,omitempty"`
	NetworkPerformance      string        `json:"networkPerformance,omitempty"`
	// BaselineGbps and PeakGbps are the default network card's bandwidth; ENAExpress is
	// NetworkInfo.EnaSrdSupported.
	BaselineGbps float64 `json:"baselineGbps,omitempty"`
	PeakGbps     float64 `json:"peakGbps,omitempty"`
	ENAExpress   bool    `json:"enaExpress,omitempty"`
}

// NetworkCard is one network card of an instance type.
type NetworkCard struct {
	Index   int32 `json:"index"`
	MaxENIs int32 `json:"maxENIs"`
}

// DefaultCardENIs returns the number of ENIs the default network card takes, which is what
// Karpenter, nodeadm and the VPC CNI use for max pods. Without card data it is MaxENIs.
func (t *InstanceType) DefaultCardENIs() int32 {
	for _, c := range t.NetworkCards {
		if c.Index == t.DefaultNetworkCardIndex {
			return c.MaxENIs
		}
	}
	return t.MaxENIs
}

// Nitro reports whether the type runs on the Nitro system: a nitro hypervisor, or bare metal
// (which reports none). Prefix delegation works only there.
func (t *InstanceType) Nitro() bool { return t.Hypervisor == "nitro" || t.BareMetal }
