// Package kinds is the one table of the kinds of subject karpnet names: a finding's resource,
// a sheet's title and references, `describe`'s arguments and the terminal UI's links all write a
// subject as KIND/NAME (nodepool/default), and read the kind here. It sits below the engine
// and the views, and imports nothing of karpnet's.
package kinds

import "strings"

// The kinds, as a reference's KIND.
const (
	Node      = "node"
	NodeClaim = "nodeclaim"
	NodePool  = "nodepool"
	// EC2NodeClass is Karpenter's class on EC2; NodeClass is EKS Auto Mode's. Both are the
	// subject kind NodeClass (Kind.Subject).
	EC2NodeClass   = "ec2nodeclass"
	NodeClass      = "nodeclass"
	Subnet         = "subnet"
	SecurityGroup  = "securitygroup"
	PlacementGroup = "placementgroup"
	Instance       = "instance"
	// ENI is a network interface karpnet read on its own (eni/ID).
	ENI       = "eni"
	ENIConfig = "eniconfig"
	// DaemonSet is the aws-node DaemonSet (daemonset/kube-system/aws-node).
	DaemonSet = "daemonset"
	// ConfigMap is a ConfigMap of settings (configmap/kube-system/amazon-vpc-cni).
	ConfigMap = "configmap"
	// VPC is a VPC (vpc/vpc-0abc), the subject of its DNS settings.
	VPC = "vpc"
	// Deployment is a Deployment (deployment/kube-system/coredns).
	Deployment = "deployment"
	// Zone is an availability zone (zone/us-west-2b), the subject of what fails across one
	// zone's subnets and NodePools.
	Zone = "zone"
	// Source is a source karpnet reads (a gap's, e.g. ec2:DescribeSubnets).
	Source = "source"
)

// Kind is one kind of subject.
type Kind struct {
	// Name is the KIND of a reference KIND/NAME.
	Name string
	// Subject is the kind Spec.Examines and Finding.SubjectKind use: Name, except that both
	// class kinds are NodeClass.
	Subject string
	// Object is what the object is called in prose and sheet titles (NodePool, EC2NodeClass,
	// subnet); for a class, its Kubernetes kind.
	Object string
	// Plural and Aliases are the other words `describe` accepts for the kind, as kubectl's
	// plural and short names.
	Plural  string
	Aliases []string
	// Sheet is true for the kinds `describe` has a subject sheet of (describe subnet|nodeclass|
	// nodepool|placementgroup|eni), which the terminal UI opens; nodes and NodeClaims have sheets
	// of their own.
	Sheet bool
}

// table holds every kind, in the order a listing names them.
var table = []Kind{
	{Name: Node, Subject: Node, Object: "node", Plural: "nodes", Aliases: []string{"no"}},
	{Name: NodeClaim, Subject: NodeClaim, Object: "NodeClaim", Plural: "nodeclaims"},
	{Name: NodePool, Subject: NodePool, Object: "NodePool", Plural: "nodepools", Sheet: true},
	{Name: EC2NodeClass, Subject: NodeClass, Object: "EC2NodeClass", Plural: "ec2nodeclasses", Sheet: true},
	{Name: NodeClass, Subject: NodeClass, Object: "NodeClass", Plural: "nodeclasses", Sheet: true},
	{Name: Subnet, Subject: Subnet, Object: "subnet", Plural: "subnets", Sheet: true},
	{Name: PlacementGroup, Subject: PlacementGroup, Object: "placement group", Plural: "placementgroups", Aliases: []string{"pg"}, Sheet: true},
	{Name: ENI, Subject: ENI, Object: "ENI", Plural: "enis", Sheet: true},
	{Name: SecurityGroup, Subject: SecurityGroup, Object: "security group", Plural: "securitygroups", Aliases: []string{"sg"}},
	{Name: Instance, Subject: Instance, Object: "instance", Plural: "instances"},
	{Name: ENIConfig, Subject: ENIConfig, Object: "ENIConfig", Plural: "eniconfigs"},
	{Name: DaemonSet, Subject: DaemonSet, Object: "DaemonSet", Plural: "daemonsets", Aliases: []string{"ds"}},
	{Name: ConfigMap, Subject: ConfigMap, Object: "ConfigMap", Plural: "configmaps", Aliases: []string{"cm"}},
	{Name: VPC, Subject: VPC, Object: "VPC", Plural: "vpcs"},
	{Name: Deployment, Subject: Deployment, Object: "Deployment", Plural: "deployments", Aliases: []string{"deploy"}},
	{Name: Zone, Subject: Zone, Object: "zone", Plural: "zones"},
	{Name: Source, Subject: Source, Object: "source", Plural: "sources"},
}

// All returns every kind.
func All() []Kind { return append([]Kind(nil), table...) }

// Lookup returns the kind a word names: its Name, Plural or one of its Aliases, in any case.
func Lookup(word string) (Kind, bool) {
	for _, k := range table {
		if strings.EqualFold(word, k.Name) || strings.EqualFold(word, k.Plural) {
			return k, true
		}
		for _, a := range k.Aliases {
			if strings.EqualFold(word, a) {
				return k, true
			}
		}
	}
	return Kind{}, false
}

// Get returns the kind of Name name; the zero Kind when there is none.
func Get(name string) Kind {
	for _, k := range table {
		if k.Name == name {
			return k
		}
	}
	return Kind{}
}

// Words returns the words `describe` accepts for the kind besides its Name: its Plural and
// Aliases.
func (k Kind) Words() []string { return append([]string{k.Plural}, k.Aliases...) }

// Ref returns the reference kind/name.
func Ref(kind, name string) string { return kind + "/" + name }

// Split returns the kind and name of reference ref (kind/name; the name may hold more
// slashes); false when ref has no slash.
func Split(ref string) (kind, name string, ok bool) { return strings.Cut(ref, "/") }

// SubjectOf returns the subject kind of a reference's kind: kind itself, NodeClass for both
// class kinds, kind unchanged for one the table does not hold.
func SubjectOf(kind string) string {
	if k := Get(kind); k.Name != "" {
		return k.Subject
	}
	return kind
}

// IsClass reports whether kind is one of the two class kinds.
func IsClass(kind string) bool { return kind == EC2NodeClass || kind == NodeClass }

// Class returns the reference kind of a class of Kubernetes kind object (EC2NodeClass or
// NodeClass); "" for another.
func Class(object string) string {
	for _, k := range table {
		if IsClass(k.Name) && k.Object == object {
			return k.Name
		}
	}
	return ""
}

// ClassRef returns the reference of the class of Kubernetes kind object named name:
// ec2nodeclass/NAME, or nodeclass/NAME for an EKS Auto Mode NodeClass (autoMode, or object
// NodeClass).
func ClassRef(object, name string, autoMode bool) string {
	if autoMode || object == Get(NodeClass).Object {
		return Ref(NodeClass, name)
	}
	return Ref(EC2NodeClass, name)
}

// Arg reads an argument that names one subject: KIND/NAME, where KIND is a word Lookup knows,
// gives that kind and NAME (so `describe nodepool nodepool/default` reads what a reference
// says); anything else is a bare name, with the zero Kind.
func Arg(arg string) (Kind, string) {
	if word, rest, ok := strings.Cut(arg, "/"); ok {
		if k, known := Lookup(word); known {
			return k, rest
		}
	}
	return Kind{}, arg
}
