package snapshot

// The objects that decide whether network policies are enforced.
const (
	// VPCCNIConfigMap is the VPC CNI's ConfigMap in kube-system; on EKS Auto Mode its
	// enable-network-policy-controller key turns policy enforcement on.
	VPCCNIConfigMap       = "amazon-vpc-cni"
	VPCCNIKeyPolicyEnable = "enable-network-policy-controller"
	// NodeAgentContainer is the VPC CNI's network policy agent in the aws-node DaemonSet.
	NodeAgentContainer = "aws-eks-nodeagent"
	// CalicoDaemonSet is calico-node, in calico-system (Tigera operator) or kube-system
	// (manifest); in policy-only mode it enforces policies beside the VPC CNI.
	CalicoDaemonSet = "calico-node"
)

// The EKS node monitoring agent's node condition, and its reason for a network policy agent
// that does not run (EKS Auto Mode nodes, agent v1.6.7+).
const (
	ConditionNetworkingReady = "NetworkingReady"
	ReasonNPANotRunning      = "NPANotRunning"
)

// The kinds of policy karpnet counts.
const (
	KindNetworkPolicy            = "NetworkPolicy"
	KindClusterNetworkPolicy     = "ClusterNetworkPolicy"
	KindApplicationNetworkPolicy = "ApplicationNetworkPolicy"
)

// PolicyCount is how many policies of a kind exist (at least: a list is read in one page and
// Count adds the API server's remainingItemCount when it gives one), with the first few
// names as namespace/name (name alone for cluster-scoped ones).
type PolicyCount struct {
	Kind  string   `json:"kind"`
	Count int      `json:"count"`
	Names []string `json:"names,omitempty"`
	// More is true when the list had more items than Count says (no remainingItemCount).
	More bool `json:"more,omitempty"`
}
