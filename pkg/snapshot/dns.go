package snapshot

// The DNS path of the cluster's VPCs (DescribeVpcs, DescribeVpcAttribute, DescribeDhcpOptions)
// and the pods of kube-system that karpnet reads by label: CoreDNS and aws-node's network
// policy agent.

// AmazonProvidedDNS is the domain-name-servers value of a DHCP options set that hands
// instances the VPC's own resolver (the Route 53 Resolver at the VPC's base address plus two
// and 169.254.169.253).
const AmazonProvidedDNS = "AmazonProvidedDNS"

// DefaultDHCPOptions is the DhcpOptionsId of a VPC associated with no DHCP options set: its
// instances get AmazonProvidedDNS.
const DefaultDHCPOptions = "default"

// VPC is what karpnet keeps of one of the node subnets' VPCs for its DNS.
type VPC struct {
	ID string `json:"id"`
	// CIDR is the VPC's primary IPv4 CIDR: its Route 53 Resolver answers at the base address
	// plus two.
	CIDR string `json:"cidr,omitempty"`
	// DHCPOptionsID is the VPC's DHCP options set ("default" for none).
	DHCPOptionsID string `json:"dhcpOptionsID,omitempty"`
	// DNSSupport and DNSHostnames are the VPC attributes enableDnsSupport and
	// enableDnsHostnames; nil when they were not read (a gap of ec2:DescribeVpcAttribute).
	DNSSupport   *bool `json:"dnsSupport,omitempty"`
	DNSHostnames *bool `json:"dnsHostnames,omitempty"`
}

// DHCPOptions is a DHCP options set's domain-name-servers.
type DHCPOptions struct {
	ID                string   `json:"id"`
	DomainNameServers []string `json:"domainNameServers,omitempty"`
}

// The labels karpnet lists kube-system's pods by.
const (
	CoreDNSSelector = "k8s-app=kube-dns"
	AWSNodeSelector = "k8s-app=aws-node"
)

// SystemPod is a kube-system pod read by label: where it runs and whether it is ready.
type SystemPod struct {
	Name  string `json:"name"`
	Node  string `json:"node,omitempty"`
	Phase string `json:"phase,omitempty"`
	Ready bool   `json:"ready,omitempty"`
	// Agent is the aws-eks-nodeagent container's state, in an aws-node pod.
	Agent *ContainerState `json:"agent,omitempty"`
}

// ContainerState is one container's status in a pod.
type ContainerState struct {
	Ready    bool  `json:"ready,omitempty"`
	Restarts int32 `json:"restarts,omitempty"`
	// Waiting is the reason it waits (CrashLoopBackOff, ...); LastExit the reason its last
	// run ended (Error, OOMKilled, ...), with its exit code.
	Waiting  string `json:"waiting,omitempty"`
	LastExit string `json:"lastExit,omitempty"`
	ExitCode int32  `json:"exitCode,omitempty"`
}
