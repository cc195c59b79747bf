package diagnose

import (
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/subnetcap"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// What the subject sheets (pkg/sheet) and other views built on an Index may ask of it.

// TagRoleCNI is the subnet tag the VPC CNI's subnet discovery looks for (value "1").
const TagRoleCNI = subnetcap.TagRoleCNI

// AWSReservedIPs is the number of addresses AWS reserves in every subnet.
const AWSReservedIPs = awsReservedIPs

// ENIs returns the ENIs attached to the node's instance, nil when it is unknown.
func (n *NodeInfo) ENIs() []snapshot.ENI { return n.instanceENIs() }

// NodeClassKind is the kind of the node's class: EC2NodeClass, or NodeClass on an Auto Mode node.
func (n *NodeInfo) NodeClassKind() string { return n.classKind() }

// Zone is the node's zone: its instance's, else its topology.kubernetes.io/zone label.
func (n *NodeInfo) Zone() string { return nodeZone(n) }

// SortedClasses returns every class, EC2NodeClasses first, each kind by name.
func (x *Index) SortedClasses() []*snapshot.EC2NodeClass { return x.sortedClasses() }

// SubnetDiscoveryOn reports whether aws-node's subnet discovery is on.
func (x *Index) SubnetDiscoveryOn() bool { return x.subnetDiscoveryOn() }

// PodSubnetsOf returns the subnets an Auto Mode class's podSubnetSelectorTerms select, and
// whether the subnets could be read.
func (x *Index) PodSubnetsOf(c *snapshot.EC2NodeClass) ([]*snapshot.Subnet, bool) {
	return podSubnetsOf(x, c)
}

// ClassRef returns the resource name of class c, ec2nodeclass/NAME or nodeclass/NAME.
func ClassRef(c *snapshot.EC2NodeClass) string { return classRef(c) }

// RefersTo reports whether a NodePool's or NodeClaim's nodeClassRef points at class c.
func RefersTo(ref snapshot.NodeClassRef, c *snapshot.EC2NodeClass) bool { return refersTo(ref, c) }

// RefKind returns the class kind a nodeClassRef points at, "" for a kind karpnet does not know.
func RefKind(ref snapshot.NodeClassRef) string { return refKind(ref) }

// GroupRef returns the resource name of a placement group, placementgroup/NAME (or its ID).
func GroupRef(g *snapshot.PlacementGroup) string { return groupRef(g) }

// UsableIPs returns the addresses of an IPv4 CIDR that instances can use (all but the five AWS
// reserves), or 0 when the CIDR does not parse.
func UsableIPs(cidr string) int64 { return usableIPs(cidr) }

// SubnetWayOut is the way out of subnet s for an instance launched into it, as a node's report
// shows its own: nil when its route table is not known.
func (x *Index) SubnetWayOut(s *snapshot.Subnet) *wayout.WayOut {
	pub := wayout.PublicIPv4{Has: false, Why: "subnet " + s.ID + " gives instances no public IPv4 address"}
	if s.MapPublicIPOnLaunch {
		pub = wayout.PublicIPv4{Has: true, Why: "subnet " + s.ID + " gives instances a public IPv4 address at launch"}
	}
	return x.net.Describe(s, pub, false)
}
