package diagnose

import "github.com/karpnet/kubectl-karpnet/pkg/kinds"

// The kinds of subject a check examines (Spec.Examines), from the one table of kinds (package
// kinds). A finding's subject is its node when it names one, else its resource; the kind is
// the resource's kind, with EC2NodeClasses and Auto Mode NodeClasses both SubjectNodeClass.
const (
	SubjectNode           = kinds.Node
	SubjectSubnet         = kinds.Subnet
	SubjectNodeClass      = kinds.NodeClass
	SubjectNodePool       = kinds.NodePool
	SubjectNodeClaim      = kinds.NodeClaim
	SubjectPlacementGroup = kinds.PlacementGroup
	SubjectInstance       = kinds.Instance
	SubjectENIConfig      = kinds.ENIConfig
	// SubjectENI is a network interface karpnet read on its own (eni/ID).
	SubjectENI = kinds.ENI
	// SubjectDaemonSet is the aws-node DaemonSet (daemonset/kube-system/aws-node).
	SubjectDaemonSet = kinds.DaemonSet
	// SubjectConfigMap is a ConfigMap of settings (configmap/kube-system/amazon-vpc-cni).
	SubjectConfigMap = kinds.ConfigMap
	// SubjectZone is an availability zone (zone/us-west-2b): the subject of findings about what
	// fails in one zone across its subnets and NodePools.
	SubjectZone = kinds.Zone
	// SubjectSource is a source karpnet reads (a Gap's Source, e.g. ec2:DescribeSubnets): the
	// subject of data-unavailable.
	SubjectSource = kinds.Source
)

// DataUnavailableID is the ID of the check that turns every Gap into a finding.
const DataUnavailableID = "data-unavailable"

// Subject names what the finding is about: node/NAME when it concerns one node, else its
// resource (kind/name, or the source for data-unavailable).
func (f Finding) Subject() string {
	if f.Node != "" {
		return nodeRef(f.Node)
	}
	return f.Resource
}

// SubjectKind returns the kind of the finding's subject, one of the Subject constants (or the
// resource's own kind for a resource karpnet does not know).
func (f Finding) SubjectKind() string {
	switch {
	case f.ID == DataUnavailableID:
		return SubjectSource
	case f.Node != "":
		return SubjectNode
	}
	kind, _, _ := kinds.Split(f.Resource)
	return kinds.SubjectOf(kind)
}

// SelectedChecks returns the catalogue's checks that a run with --only only and --skip skip
// runs, in catalogue order.
func SelectedChecks(only, skip []string) []Check { return selectChecks(only, skip) }
