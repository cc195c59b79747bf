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

// SelectedChecks returns the catalogue's checks that a run with --only only and --skip skip
// runs, in catalogue order.
func SelectedChecks(only, skip []string) []Check { return selectChecks(only, skip) }
