package snapshot

import "strings"

// The objects that decide whether network policies are enforced.
const (
	// VPCCNIConfigMap is the VPC CNI's ConfigMap in kube-system; on EKS Auto Mode its
	// enable-network-policy-controller key turns policy enforcement on.
	VPCCNIConfigMap       = "amazon-vpc-cni"
	VPCCNIKeyPolicyEnable = "enable-network-policy-controller"
	// VPCCNIPolicyEnabled is the one value of enable-network-policy-controller that turns the
	// network policy controller on: it compares the value exactly, so "True" or " true" leave
	// it off.
	VPCCNIPolicyEnabled = "true"
	// NodeAgentContainer is the VPC CNI's network policy agent in the aws-node DaemonSet.
	NodeAgentContainer = "aws-eks-nodeagent"
	// CalicoDaemonSet is calico-node, in calico-system (Tigera operator) or kube-system
	// (manifest); in policy-only mode it enforces policies beside the VPC CNI.
	CalicoDaemonSet = "calico-node"
)

// What karpnet found of a ConfigMap it read (Snapshot.VPCCNIConfigState).
const (
	ConfigMapFound    = "found"
	ConfigMapNotFound = "not-found"
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
	// KindSecurityGroupPolicy is the VPC resource controller's policy of security groups for
	// pods (vpcresources.k8s.aws/v1beta1); it is counted in Snapshot.SecurityGroupPolicies.
	KindSecurityGroupPolicy = "SecurityGroupPolicy"
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

// The EKS node monitoring agent reports a Warning Event about the Node, with reason
// NetworkingReady and a message that starts with one of these and a colon, when an interface's
// ENA counter of packets dropped for going over an instance allowance grows
// (monitors/networking: bw_in, bw_out, pps, conntrack and linklocal allowance_exceeded).
const (
	AllowanceBandwidthIn  = "BandwidthInExceeded"
	AllowanceBandwidthOut = "BandwidthOutExceeded"
	AllowancePPS          = "PPSExceeded"
	AllowanceConntrack    = "ConntrackExceeded"
	AllowanceLinkLocal    = "LinkLocalExceeded"
)

// AllowanceReasons returns the allowance prefixes of the node monitoring agent's messages.
func AllowanceReasons() []string {
	return []string{AllowanceBandwidthIn, AllowanceBandwidthOut, AllowanceConntrack, AllowanceLinkLocal, AllowancePPS}
}

// CombinedPrefix starts the message of an event that client-go's event correlator made of
// similar ones: once 10 events about an object that differ only in their message come within
// 600 s of each other, it writes them into one event whose message is this prefix and the
// latest message, and whose count counts them all.
const CombinedPrefix = "(combined from similar events): "

// Combined reports whether an event's message is client-go's combination of similar events.
func Combined(message string) bool {
	return strings.HasPrefix(message, CombinedPrefix)
}

// Allowance returns the allowance an agent's message names ("" for another message), looking
// through client-go's "(combined from similar events): " prefix.
func Allowance(message string) string {
	message = strings.TrimPrefix(message, CombinedPrefix)
	for _, a := range AllowanceReasons() {
		if len(message) > len(a) && message[:len(a)] == a && message[len(a)] == ':' {
			return a
		}
	}
	return ""
}
