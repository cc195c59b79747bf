package snapshot

import "time"

// The networking and credential agents of kube-system whose pods each node needs: the VPC CNI
// (aws-node), kube-proxy, the EKS Pod Identity agent and Cilium's agent.
const (
	AgentNamespace   = "kube-system"
	AgentAWSNode     = "aws-node"
	AgentKubeProxy   = "kube-proxy"
	AgentPodIdentity = "eks-pod-identity-agent"
	AgentCilium      = "cilium"
)

// AgentNames returns the DaemonSets of AgentNamespace karpnet reads as node agents, sorted.
func AgentNames() []string {
	return []string{AgentAWSNode, AgentCilium, AgentPodIdentity, AgentKubeProxy}
}

// Agent is one node agent DaemonSet of AgentNamespace.
type Agent struct {
	Name       string      `json:"name"`
	Scheduling *Scheduling `json:"scheduling,omitempty"`
	// Desired and Ready are status.desiredNumberScheduled and status.numberReady, kept when the
	// DaemonSet controller has observed the current spec (status.observedGeneration >=
	// metadata.generation); nil otherwise.
	Desired *int32 `json:"desired,omitempty"`
	Ready   *int32 `json:"ready,omitempty"`
	// PodsRead is true when the DaemonSet's pods were listed (by its selector), which karpnet
	// does only when its status is current and counts fewer pods ready than scheduled; Pods
	// are then those pods, in node order.
	PodsRead bool       `json:"podsRead,omitempty"`
	Pods     []AgentPod `json:"pods,omitempty"`
}

// AgentPod is one pod of a node agent DaemonSet.
type AgentPod struct {
	Name string `json:"name"`
	// Node is spec.nodeName; empty while the pod is not scheduled.
	Node    string    `json:"node,omitempty"`
	Phase   string    `json:"phase,omitempty"`
	Ready   bool      `json:"ready,omitempty"`
	Created time.Time `json:"created,omitzero"`
	// Reason is the first not-ready container's waiting or last termination reason (e.g.
	// CrashLoopBackOff, ImagePullBackOff), or the PodScheduled condition's reason; empty when
	// the pod is ready or says nothing.
	Reason string `json:"reason,omitempty"`
}

// IMDSPod is a pod off the host network, bound to a node, that karpnet takes to need the
// instance metadata service: it runs the image of an AWS component that reads the node's
// credentials or metadata, or sets AWS_REGION or AWS_DEFAULT_REGION for an AWS SDK, and no
// container has IRSA, EKS Pod Identity or static credentials in its env.
type IMDSPod struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Node      string `json:"node"`
	// Why is what makes karpnet take the pod to need IMDS: "image NAME" (the image's
	// repository) or "AWS_REGION set" (the variable set).
	Why string `json:"why"`
	// Scheduling is the pod's nodeSelector, node affinity and tolerations: where else it may
	// be scheduled.
	Scheduling *Scheduling `json:"scheduling,omitempty"`
}
