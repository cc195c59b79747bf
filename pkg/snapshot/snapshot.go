package snapshot

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Kind, APIVersion and FormatVersion identify a saved snapshot. FormatVersion, the newest
// format this build reads, grows when a change would make an older karpnet misread a newer
// file; additive fields keep it. Write gives a snapshot the oldest format that holds it: 1
// for one cluster, 2 for several (clusters.go).
const (
	Kind          = "Snapshot"
	APIVersion    = "karpnet/v1alpha1"
	FormatVersion = formatMulti
)

// Snapshot is everything karpnet read at one moment, from Kubernetes and from EC2.
// Checks read it and never call time.Now: Taken is "now" for them.
type Snapshot struct {
	Kind          string `json:"kind"`
	APIVersion    string `json:"apiVersion"`
	FormatVersion int    `json:"formatVersion"`

	// Taken is when collection started.
	Taken time.Time `json:"taken"`
	// Context is the kubeconfig context, Cluster the API server URL or a cluster name.
	Context string `json:"context,omitempty"`
	Cluster string `json:"cluster,omitempty"`
	// Region is the AWS Region EC2 was read in; Regions lists every Region read when the
	// nodes' providerIDs name more than one (Region first).
	Region  string   `json:"region,omitempty"`
	Regions []string `json:"regions,omitempty"`
	// ClusterName is the EKS cluster's name, from --cluster-name or the cluster tags on the
	// nodes' instances; empty when neither tells it. Instances launched for the cluster are
	// found by it.
	ClusterName string `json:"clusterName,omitempty"`
	// Account is the AWS account EC2 was read in, when a run over several clusters learnt it
	// (the owner of the instances DescribeInstances returned, or the account of the profile's
	// role); empty otherwise.
	Account string `json:"account,omitempty"`
	// Notes are things collection wants the reader to know that are neither data nor gaps,
	// e.g. that the AWS configuration's Region was not the nodes' Region.
	Notes []string `json:"notes,omitempty"`

	// Kubernetes.
	Nodes       []corev1.Node  `json:"nodes"`
	NodeClaims  []NodeClaim    `json:"nodeClaims,omitempty"`
	NodePools   []NodePool     `json:"nodePools,omitempty"`
	NodeClasses []EC2NodeClass `json:"nodeClasses,omitempty"`
	ENIConfigs  []ENIConfig    `json:"eniConfigs,omitempty"`
	AWSNode     *AWSNode       `json:"awsNode,omitempty"`
	// CNINodes are read only when aws-node turns on security groups for pods.
	CNINodes []CNINode `json:"cniNodes,omitempty"`
	// SecurityGroupPolicies counts the VPC resource controller's SecurityGroupPolicies (one page,
	// the first names), read only when aws-node turns on security groups for pods; empty when
	// there are none or they were not read.
	SecurityGroupPolicies []PolicyCount `json:"securityGroupPolicies,omitempty"`
	// Cilium is its agent DaemonSet and settings when it runs; CiliumNodes are read only when
	// it allocates pod addresses from ENIs (cilium-config ipam: eni).
	Cilium          *Cilium          `json:"cilium,omitempty"`
	CiliumNodes     []CiliumNode     `json:"ciliumNodes,omitempty"`
	SandboxFailures []SandboxFailure `json:"sandboxFailures,omitempty"`
	// NetworkPolicies counts the policies of each kind, read where nothing may enforce them
	// (policy.go), and one NetworkPolicy where aws-node's agent enforces them, to tell whether any
	// exists (dns.go); VPCCNIConfig holds the amazon-vpc-cni ConfigMap's keys karpnet reads,
	// read when EKS Auto Mode nodes run or aws-node's network policy agent is on, and
	// VPCCNIConfigState says whether karpnet read it and found it (ConfigMapFound,
	// ConfigMapNotFound; empty when it was not read, as in snapshots of older versions).
	NetworkPolicies   []PolicyCount     `json:"networkPolicies,omitempty"`
	VPCCNIConfig      map[string]string `json:"vpcCNIConfig,omitempty"`
	VPCCNIConfigState string            `json:"vpcCNIConfigState,omitempty"`
	// Calico is the namespace of the calico-node DaemonSet when karpnet looked for one (beside
	// the policies) and found it: Calico then enforces the policies beside the VPC CNI.
	Calico string `json:"calico,omitempty"`
	// CoreDNS are the kube-system pods labelled k8s-app=kube-dns; PolicyAgentPods the aws-node
	// pods, read only when aws-node's network policy agent is on and policies exist (dns.go).
	CoreDNS         []SystemPod `json:"coreDNS,omitempty"`
	PolicyAgentPods []SystemPod `json:"policyAgentPods,omitempty"`
	// Agents are the node agent DaemonSets of kube-system found (AgentNames), with the pods of
	// those whose status says some pod is not ready; AgentsRead is true when kube-system's
	// DaemonSets were listed (a gap says why when they could not be).
	Agents     []Agent `json:"agents,omitempty"`
	AgentsRead bool    `json:"agentsRead,omitempty"`
	// IMDSPods are the pods that need the instance metadata service from off the host network
	// (agents.go); IMDSPodsRead is true when the pods were listed.
	IMDSPods     []IMDSPod `json:"imdsPods,omitempty"`
	IMDSPodsRead bool      `json:"imdsPodsRead,omitempty"`
	// Events are the Events about NodeClaims and NodePools.
	Events []KubeEvent `json:"events,omitempty"`
	// NodeEvents are the EKS node monitoring agent's Events about nodes whose instance went
	// over a network allowance (policy.go, AllowanceReasons).
	NodeEvents []KubeEvent `json:"nodeEvents,omitempty"`

	// EC2.
	Instances       []Instance       `json:"instances,omitempty"`
	Subnets         []Subnet         `json:"subnets,omitempty"`
	SecurityGroups  []SecurityGroup  `json:"securityGroups,omitempty"`
	PlacementGroups []PlacementGroup `json:"placementGroups,omitempty"`
	InstanceTypes   []InstanceType   `json:"instanceTypes,omitempty"`
	// The way out of the node subnets' VPCs (network.go).
	RouteTables  []RouteTable  `json:"routeTables,omitempty"`
	NATGateways  []NATGateway  `json:"natGateways,omitempty"`
	VPCEndpoints []VPCEndpoint `json:"vpcEndpoints,omitempty"`
	NetworkACLs  []NetworkACL  `json:"networkACLs,omitempty"`
	// The DNS of the cluster's VPCs (dns.go): each VPC's DNS attributes and DHCP options set.
	VPCs        []VPC         `json:"vpcs,omitempty"`
	DHCPOptions []DHCPOptions `json:"dhcpOptions,omitempty"`
	// What else holds addresses (interfaces.go): the interfaces of the subnets prefixes are
	// carved from (AddressSubnets lists the subnets whose every interface and CIDR reservation
	// was read) that are not the instances' own, and the interfaces left available in the
	// cluster's VPCs (AvailableVPCs lists the VPCs read for them).
	Interfaces       []InterfaceRecord `json:"networkInterfaces,omitempty"`
	AddressSubnets   []string          `json:"addressSubnets,omitempty"`
	CIDRReservations []CIDRReservation `json:"cidrReservations,omitempty"`
	AvailableVPCs    []string          `json:"availableVPCs,omitempty"`
	// InterfaceOwners are the instances the interfaces left available name that the snapshot's
	// Instances do not hold, read by ID in any state (interfaces.go).
	InterfaceOwners []InterfaceOwner `json:"interfaceOwners,omitempty"`

	// Gaps lists every source that could not be read.
	Gaps []Gap `json:"gaps,omitempty"`

	// Clusters holds one snapshot per kubeconfig context when a run read several (--contexts,
	// --all-contexts); the top level then holds only Taken and the format fields.
	Clusters []Snapshot `json:"clusters,omitempty"`
}

// New returns an empty Snapshot stamped with the current kind, API version and format version.
func New(taken time.Time) *Snapshot {
	return &Snapshot{Kind: Kind, APIVersion: APIVersion, FormatVersion: formatSingle, Taken: taken}
}

// Gap records a source that could not be read. It is reported, not fatal.
type Gap struct {
	// Source names what was not read, e.g. "ec2:DescribeSubnets" or "karpenter.sh/v1 nodepools".
	Source string `json:"source"`
	// Reason is why, e.g. "UnauthorizedOperation", "forbidden", "CRD not installed".
	Reason string `json:"reason"`
	// Remedy is the permission, flag or setting that would let karpnet read it.
	Remedy string `json:"remedy"`
	// Context is the kubeconfig context of the cluster the gap is in, in a report over several
	// clusters; empty otherwise.
	Context string `json:"context,omitempty"`
	// Region is set when the gap covers the EC2 reads of one Region only: that Region's nodes
	// and NodeClaims were not checked against EC2, every other Region's were. Source is then
	// "ec2".
	Region string `json:"region,omitempty"`
}
