package ec2sim

import "encoding/xml"

// The types below mirror the element names of EC2's 2016-11-15 query API, as the
// aws-sdk-go-v2 EC2 deserializers read them. Lists are <name><item>...</item></name>.

const xmlns = "http://ec2.amazonaws.com/doc/2016-11-15/"

type set[T any] struct {
	Items []T `xml:"item"`
}

func setOf[T any](items []T) *set[T] {
	if len(items) == 0 {
		return nil
	}
	return &set[T]{Items: items}
}

type xmlTag struct {
	Key   string `xml:"key"`
	Value string `xml:"value"`
}

type xmlGroup struct {
	GroupID   string `xml:"groupId"`
	GroupName string `xml:"groupName,omitempty"`
}

type describeInstancesResponse struct {
	XMLName      xml.Name             `xml:"DescribeInstancesResponse"`
	Xmlns        string               `xml:"xmlns,attr"`
	RequestID    string               `xml:"requestId"`
	Reservations *set[xmlReservation] `xml:"reservationSet"`
	NextToken    string               `xml:"nextToken,omitempty"`
}

// xmlMetadata is an instance's metadataOptions, in EC2's order.
type xmlMetadata struct {
	State        string `xml:"state"`
	HTTPTokens   string `xml:"httpTokens,omitempty"`
	HopLimit     int32  `xml:"httpPutResponseHopLimit,omitempty"`
	HTTPEndpoint string `xml:"httpEndpoint,omitempty"`
}

type xmlReservation struct {
	ReservationID string            `xml:"reservationId"`
	OwnerID       string            `xml:"ownerId"`
	Instances     *set[xmlInstance] `xml:"instancesSet"`
}

type xmlInstance struct {
	InstanceID        string         `xml:"instanceId"`
	InstanceType      string         `xml:"instanceType"`
	State             xmlState       `xml:"instanceState"`
	Reason            string         `xml:"reason,omitempty"`
	PrivateIPAddress  string         `xml:"privateIpAddress,omitempty"`
	IPAddress         string         `xml:"ipAddress,omitempty"`
	SubnetID          string         `xml:"subnetId,omitempty"`
	VpcID             string         `xml:"vpcId,omitempty"`
	LaunchTime        string         `xml:"launchTime,omitempty"`
	Placement         xmlPlacement   `xml:"placement"`
	Groups            *set[xmlGroup] `xml:"groupSet"`
	NetworkInterfaces *set[xmlENI]   `xml:"networkInterfaceSet"`
	Tags              *set[xmlTag]   `xml:"tagSet"`
	Lifecycle         string         `xml:"instanceLifecycle,omitempty"`
	CapacityRes       string         `xml:"capacityReservationId,omitempty"`
	MetadataOptions   *xmlMetadata   `xml:"metadataOptions,omitempty"`
}

type xmlState struct {
	Code int    `xml:"code"`
	Name string `xml:"name"`
}

type xmlPlacement struct {
	AvailabilityZone   string `xml:"availabilityZone,omitempty"`
	AvailabilityZoneID string `xml:"availabilityZoneId,omitempty"`
	GroupName          string `xml:"groupName,omitempty"`
	GroupID            string `xml:"groupId,omitempty"`
	PartitionNumber    *int32 `xml:"partitionNumber,omitempty"`
	Tenancy            string `xml:"tenancy,omitempty"`
}

type xmlENI struct {
	NetworkInterfaceID string                 `xml:"networkInterfaceId"`
	InterfaceType      string                 `xml:"interfaceType,omitempty"`
	SubnetID           string                 `xml:"subnetId,omitempty"`
	Description        string                 `xml:"description,omitempty"`
	Status             string                 `xml:"status,omitempty"`
	PrivateIPAddress   string                 `xml:"privateIpAddress,omitempty"`
	Attachment         xmlAttachment          `xml:"attachment"`
	Groups             *set[xmlGroup]         `xml:"groupSet"`
	PrivateIPs         *set[xmlPrivateIP]     `xml:"privateIpAddressesSet"`
	IPv4Prefixes       *set[xmlIPv4Prefix]    `xml:"ipv4PrefixSet"`
	IPv6Prefixes       *set[xmlIPv6Prefix]    `xml:"ipv6PrefixSet"`
	IPv6Addresses      *set[xmlIPv6Addr]      `xml:"ipv6AddressesSet"`
	ConnectionTracking *xmlConnectionTracking `xml:"connectionTrackingConfiguration"`
}

type xmlConnectionTracking struct {
	TCPEstablishedTimeout int32 `xml:"tcpEstablishedTimeout,omitempty"`
	UDPStreamTimeout      int32 `xml:"udpStreamTimeout,omitempty"`
	UDPTimeout            int32 `xml:"udpTimeout,omitempty"`
}

type xmlIPv6Addr struct {
	Address string `xml:"ipv6Address"`
}

type xmlAttachment struct {
	DeviceIndex      int32  `xml:"deviceIndex"`
	NetworkCardIndex int32  `xml:"networkCardIndex"`
	Status           string `xml:"status"`
}

type xmlPrivateIP struct {
	PrivateIPAddress string `xml:"privateIpAddress"`
	Primary          bool   `xml:"primary"`
}

type xmlIPv4Prefix struct {
	Prefix string `xml:"ipv4Prefix"`
}

type xmlIPv6Prefix struct {
	Prefix string `xml:"ipv6Prefix"`
}

type describeSubnetsResponse struct {
	XMLName   xml.Name        `xml:"DescribeSubnetsResponse"`
	Xmlns     string          `xml:"xmlns,attr"`
	RequestID string          `xml:"requestId"`
	Subnets   *set[xmlSubnet] `xml:"subnetSet"`
	NextToken string          `xml:"nextToken,omitempty"`
}

type xmlSubnet struct {
	SubnetID                string            `xml:"subnetId"`
	State                   string            `xml:"state"`
	VpcID                   string            `xml:"vpcId,omitempty"`
	CidrBlock               string            `xml:"cidrBlock"`
	AvailableIPAddressCount int32             `xml:"availableIpAddressCount"`
	AvailabilityZone        string            `xml:"availabilityZone"`
	AvailabilityZoneID      string            `xml:"availabilityZoneId,omitempty"`
	MapPublicIPOnLaunch     bool              `xml:"mapPublicIpOnLaunch"`
	Tags                    *set[xmlTag]      `xml:"tagSet"`
	IPv6CIDRs               *set[xmlIPv6CIDR] `xml:"ipv6CidrBlockAssociationSet"`
}

type xmlIPv6CIDR struct {
	AssociationID string       `xml:"associationId"`
	CIDR          string       `xml:"ipv6CidrBlock"`
	State         xmlCIDRState `xml:"ipv6CidrBlockState"`
}

type xmlCIDRState struct {
	State string `xml:"state"`
}

type describeSecurityGroupsResponse struct {
	XMLName   xml.Name               `xml:"DescribeSecurityGroupsResponse"`
	Xmlns     string                 `xml:"xmlns,attr"`
	RequestID string                 `xml:"requestId"`
	Groups    *set[xmlSecurityGroup] `xml:"securityGroupInfo"`
	NextToken string                 `xml:"nextToken,omitempty"`
}

type xmlSecurityGroup struct {
	GroupID     string              `xml:"groupId"`
	GroupName   string              `xml:"groupName"`
	Description string              `xml:"groupDescription"`
	VpcID       string              `xml:"vpcId,omitempty"`
	Ingress     *set[xmlPermission] `xml:"ipPermissions"`
	Egress      *set[xmlPermission] `xml:"ipPermissionsEgress"`
	Tags        *set[xmlTag]        `xml:"tagSet"`
}

type xmlPermission struct {
	IPProtocol  string                 `xml:"ipProtocol"`
	FromPort    *int32                 `xml:"fromPort,omitempty"`
	ToPort      *int32                 `xml:"toPort,omitempty"`
	Groups      *set[xmlGroup]         `xml:"groups"`
	IPRanges    *set[xmlIPRange]       `xml:"ipRanges"`
	IPv6Ranges  *set[xmlIPv6Range]     `xml:"ipv6Ranges"`
	PrefixLists *set[xmlPrefixListRef] `xml:"prefixListIds"`
}

type xmlIPRange struct {
	CidrIP string `xml:"cidrIp"`
}

type xmlIPv6Range struct {
	CidrIPv6 string `xml:"cidrIpv6"`
}

type xmlPrefixListRef struct {
	PrefixListID string `xml:"prefixListId"`
}

type describePlacementGroupsResponse struct {
	XMLName   xml.Name                `xml:"DescribePlacementGroupsResponse"`
	Xmlns     string                  `xml:"xmlns,attr"`
	RequestID string                  `xml:"requestId"`
	Groups    *set[xmlPlacementGroup] `xml:"placementGroupSet"`
}

type xmlPlacementGroup struct {
	GroupName      string `xml:"groupName"`
	GroupID        string `xml:"groupId"`
	Strategy       string `xml:"strategy"`
	PartitionCount int32  `xml:"partitionCount,omitempty"`
	SpreadLevel    string `xml:"spreadLevel,omitempty"`
	State          string `xml:"state"`
}

type describeInstanceTypesResponse struct {
	XMLName   xml.Name              `xml:"DescribeInstanceTypesResponse"`
	Xmlns     string                `xml:"xmlns,attr"`
	RequestID string                `xml:"requestId"`
	Types     *set[xmlInstanceType] `xml:"instanceTypeSet"`
	NextToken string                `xml:"nextToken,omitempty"`
}

type xmlInstanceType struct {
	InstanceType string         `xml:"instanceType"`
	Hypervisor   string         `xml:"hypervisor,omitempty"`
	BareMetal    bool           `xml:"bareMetal"`
	VCPUInfo     xmlVCPUInfo    `xml:"vCpuInfo"`
	NetworkInfo  xmlNetworkInfo `xml:"networkInfo"`
}

type xmlVCPUInfo struct {
	DefaultVCPUs int32 `xml:"defaultVCpus"`
}

type xmlNetworkInfo struct {
	NetworkPerformance       string               `xml:"networkPerformance,omitempty"`
	MaximumNetworkInterfaces int32                `xml:"maximumNetworkInterfaces"`
	MaximumNetworkCards      int32                `xml:"maximumNetworkCards,omitempty"`
	DefaultNetworkCardIndex  int32                `xml:"defaultNetworkCardIndex"`
	NetworkCards             *set[xmlNetworkCard] `xml:"networkCards"`
	IPv4PerInterface         int32                `xml:"ipv4AddressesPerInterface"`
	IPv6PerInterface         int32                `xml:"ipv6AddressesPerInterface"`
	IPv6Supported            bool                 `xml:"ipv6Supported"`
	EfaSupported             bool                 `xml:"efaSupported"`
	EfaInfo                  *xmlEfaInfo          `xml:"efaInfo"`
	EnaSrdSupported          bool                 `xml:"enaSrdSupported"`
}

type xmlNetworkCard struct {
	NetworkCardIndex         int32   `xml:"networkCardIndex"`
	MaximumNetworkInterfaces int32   `xml:"maximumNetworkInterfaces"`
	BaselineBandwidthInGbps  float64 `xml:"baselineBandwidthInGbps,omitempty"`
	PeakBandwidthInGbps      float64 `xml:"peakBandwidthInGbps,omitempty"`
}

type xmlEfaInfo struct {
	MaximumEfaInterfaces int32 `xml:"maximumEfaInterfaces"`
}
