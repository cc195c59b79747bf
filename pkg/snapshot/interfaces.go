package snapshot

import (
	"slices"
	"strings"
)

// What holds the addresses of a subnet beyond the nodes' own interfaces. Where prefixes are
// carved (prefix delegation, an EC2NodeClass's ipPrefixCount, EKS Auto Mode's prefix mode) a
// subnet can show free addresses and still have no free aligned /28 block, so karpnet reads
// every interface in those subnets and their CIDR reservations; in every VPC of the cluster it
// also reads the interfaces left available (not attached), which is where leaked ones are.

// InterfaceRecord is what karpnet keeps of an ENI read on its own from
// DescribeNetworkInterfaces: one in a subnet prefixes are carved from that is not an
// interface of an instance the snapshot holds, or one left available in the cluster's VPCs.
type InterfaceRecord struct {
	ID       string `json:"id"`
	VpcID    string `json:"vpcID,omitempty"`
	SubnetID string `json:"subnetID"`
	Zone     string `json:"zone,omitempty"`
	// Status is available (attached to nothing), attaching, in-use or detaching.
	Status string `json:"status"`
	// InterfaceType is interface, efa, trunk, branch or a service's type (natGateway, lambda,
	// vpc_endpoint, load_balancer, ...).
	InterfaceType string `json:"interfaceType,omitempty"`
	Description   string `json:"description,omitempty"`
	// InstanceID is the instance it is attached to, if any.
	InstanceID string `json:"instanceID,omitempty"`
	// RequesterManaged marks an interface an AWS service created and manages.
	RequesterManaged bool `json:"requesterManaged,omitempty"`
	// PrivateIPs are its IPv4 addresses, the primary first; IPv4Prefixes its /28 prefixes;
	// IPv6Addresses and IPv6Prefixes the same for IPv6.
	PrivateIPs     []string   `json:"privateIPs,omitempty"`
	IPv4Prefixes   []string   `json:"ipv4Prefixes,omitempty"`
	IPv6Addresses  []string   `json:"ipv6Addresses,omitempty"`
	IPv6Prefixes   []string   `json:"ipv6Prefixes,omitempty"`
	SecurityGroups []GroupRef `json:"securityGroups,omitempty"`
	// Tags are the tags karpnet reads to tell who created it (InterfaceTagKept).
	Tags map[string]string `json:"tags,omitempty"`
}

// InterfaceOwner is an instance that an interface left available names in its
// node.k8s.amazonaws.com/instance_id tag and that the snapshot's instances do not hold (the
// search by cluster tag takes only pending and running ones), read by ID in any state: EC2
// keeps a terminated instance visible for about an hour, its stateTransitionReason dating the
// termination. State is "" when EC2 has no such instance any more.
type InterfaceOwner struct {
	ID                    string `json:"id"`
	State                 string `json:"state,omitempty"`
	StateTransitionReason string `json:"stateTransitionReason,omitempty"`
}

// The interface tags a snapshot keeps: who created the interface, for which instance and
// cluster, and when. The VPC CNI tags the ENIs it creates with the node's instance and the
// time (RFC 3339), and with CLUSTER_NAME set with the cluster and itself as owner
// (amazon-vpc-cni-k8s pkg/awsutils/awsutils.go, createENITags); the VPC resource controller
// tags the trunk and branch ENIs it creates with itself as owner, kubernetes.io/cluster/NAME
// "owned", and a branch ENI with its trunk and instance (amazon-vpc-resource-controller-k8s
// pkg/aws/ec2/api/helper.go, pkg/provider/branch/trunk/trunk.go).
const (
	TagCNIInstanceID  = "node.k8s.amazonaws.com/instance_id"
	TagCNICreatedAt   = "node.k8s.amazonaws.com/createdAt"
	TagCNIClusterName = "cluster.k8s.amazonaws.com/name"
	TagENIOwner       = "eks:eni:owner"
	TagBranchTrunk    = "vpcresources.k8s.aws/trunk-eni-id"
	// TagClusterPrefix begins the kubernetes.io/cluster/NAME tag.
	TagClusterPrefix = "kubernetes.io/cluster/"
)

// Values of the eks:eni:owner tag.
const (
	OwnerVPCCNI             = "amazon-vpc-cni"
	OwnerVPCResourceControl = "eks-vpc-resource-controller"
)

// InterfaceTagKept reports whether a snapshot keeps an interface tag.
func InterfaceTagKept(key string) bool {
	switch key {
	case TagCNIInstanceID, TagCNICreatedAt, TagCNIClusterName, TagENIOwner, TagBranchTrunk:
		return true
	}
	return strings.HasPrefix(key, TagClusterPrefix)
}

// CIDRReservation is a subnet CIDR reservation from GetSubnetCidrReservations.
type CIDRReservation struct {
	ID       string `json:"id"`
	SubnetID string `json:"subnetID"`
	CIDR     string `json:"cidr"`
	// Type is prefix (EC2 carves prefixes from it) or explicit (only addresses assigned by
	// hand).
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
}

// Reservation types.
const (
	ReservationPrefix   = "prefix"
	ReservationExplicit = "explicit"
)

// Interface statuses.
const (
	InterfaceAvailable = "available"
	InterfaceInUse     = "in-use"
)

// PrefixCarving says which subnets prefixes may be carved from, which is where collection
// reads every interface and CIDR reservation: all the subnets the snapshot refers to when
// aws-node turns prefix delegation on or an EKS Auto Mode NodeClass is in prefix mode (its
// spec.advancedNetworking.ipv4PrefixSize is not "32"), else the resolved subnets of the
// EC2NodeClasses whose launch templates ask for prefixes (spec.ipPrefixCount above 0). It
// reads the Kubernetes side only; which of those subnets a check judges is the check's own
// model.
func (s *Snapshot) PrefixCarving() (all bool, subnets []string) {
	if strings.EqualFold(strings.TrimSpace(s.AWSNode.Setting(EnvPrefixDelegation, "")), "true") {
		return true, nil
	}
	for i := range s.NodeClasses {
		c := &s.NodeClasses[i]
		switch {
		case c.AutoMode() && c.IPv4PrefixSize != "32":
			return true, nil
		case c.IPPrefixCount != nil && *c.IPPrefixCount > 0:
			for _, st := range c.StatusSubnets {
				subnets = append(subnets, st.ID)
			}
		}
	}
	slices.Sort(subnets)
	return false, slices.Compact(subnets)
}
