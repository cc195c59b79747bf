package diagnose

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// NodeState is where a node is in its life. The index decides it once per node, before any
// check runs; checks that do not apply to a state are silent on it.
type NodeState string

// The node states.
const (
	// StateRunning is a node past its start-up: every check applies.
	StateRunning NodeState = "running"
	// StateInitialising is a node created less than bootGrace ago whose NodeClaim (if any) is
	// not Initialized yet: what is still being set up (the CNI, device plugins, events of
	// the first pods) is at most info.
	StateInitialising NodeState = "initialising"
	// StateTerminating is a node being deleted (deletionTimestamp set) whose deletion is
	// progressing: it raises nothing.
	StateTerminating NodeState = "terminating"
	// StateTerminationStuck is a node deleted more than terminationStuckAfter ago whose
	// instance is already terminated or gone: only node-termination-stuck reports it.
	StateTerminationStuck NodeState = "termination-stuck"
	// StateSkipped is a node that is not an EC2 instance: Fargate, EKS hybrid nodes, other
	// providers.
	StateSkipped NodeState = "skipped"
)

// bootGrace is how long after its creation a node counts as initialising. aws-node starts
// ipamd, which attaches the node's first warm ENI or prefix and only then writes the CNI
// configuration, so kubelet reports NetworkPluginNotReady ("cni plugin not initialized")
// until then: usually 30 to 90 seconds after registration, longer when the aws-node image
// is pulled cold. Five minutes covers a slow pull with room to spare and stays well inside
// Karpenter's 15-minute registration TTL, after which Karpenter deletes a NodeClaim whose
// node never registered. A NodeClaim that is already Initialized ends the grace early.
const bootGrace = 5 * time.Minute

// terminationStuckAfter is how long a node may stay in deletion once its instance is gone.
// Karpenter drains the node, terminates the instance and removes its karpenter.sh/termination
// finalizer as soon as EC2 no longer reports the instance (shutting-down counts as still
// there); that takes seconds to a few minutes after the drain. A Node still deleting 15
// minutes after its deletionTimestamp with its instance terminated or gone is stuck, most
// often on a finalizer whose controller is not running.
const terminationStuckAfter = 15 * time.Minute

// Compute kinds of a node, from its providerID and labels.
const (
	ComputeEC2     = "ec2"
	ComputeFargate = "fargate"
	ComputeHybrid  = "hybrid"
	ComputeOther   = "other"
)

// SkippedUnread is the kind Summary.SkippedBy counts the EC2 nodes of a Region EC2 could not be
// read in under.
const SkippedUnread = "ec2-unread"

// computeTypeHybrid is the eks.amazonaws.com/compute-type value of EKS hybrid nodes.
const computeTypeHybrid = "hybrid"

// computeKind tells what a node runs on: EKS Fargate, an EKS hybrid node, EC2 (an aws
// providerID, or none at all on a node carrying EC2 or Karpenter labels), or another provider.
func computeKind(node *corev1.Node) string {
	id := node.Spec.ProviderID
	switch {
	case fargateNode(node):
		return ComputeFargate
	case node.Labels[snapshot.LabelComputeType] == computeTypeHybrid || strings.HasPrefix(id, "eks-hybrid:"):
		return ComputeHybrid
	case isEC2ProviderID(id) || id == "" && looksLikeEC2(node):
		return ComputeEC2
	}
	return ComputeOther
}

// decideLifecycle sets the node's state and the reason for it.
func (x *Index) decideLifecycle(n *NodeInfo) {
	node := n.Node
	taken := x.Snapshot.Taken
	switch n.Compute {
	case ComputeFargate:
		n.State, n.StateReason = StateSkipped, "Fargate node: AWS runs its network and there is no EC2 instance of the account to check"
		return
	case ComputeHybrid:
		n.State, n.StateReason = StateSkipped, "EKS hybrid node: it runs outside EC2"
		return
	case ComputeOther:
		n.State, n.StateReason = StateSkipped, "not an EC2 node"
		return
	}
	if g := n.Unread; g != nil {
		n.State, n.StateReason = StateSkipped, unreadText(g)
		return
	}
	if del := node.DeletionTimestamp; del != nil {
		age := taken.Sub(del.Time)
		gone, what := x.instanceGone(n)
		n.State = StateTerminating
		n.StateReason = fmt.Sprintf("deleted %s ago (deletionTimestamp %s); %s", ago(age),
			del.UTC().Format(time.RFC3339), what)
		if fin := node.Finalizers; len(fin) > 0 {
			n.StateReason += "; finalizers " + strings.Join(fin, ", ")
		}
		if gone && age >= terminationStuckAfter {
			n.State = StateTerminationStuck
		}
		return
	}
	n.State = StateRunning
	created := node.CreationTimestamp.Time
	if created.IsZero() {
		return
	}
	age := taken.Sub(created)
	if age >= bootGrace || claimInitialized(n.Claim) {
		return
	}
	n.State = StateInitialising
	n.StateReason = fmt.Sprintf("created %s ago", ago(age))
	if n.Claim != nil {
		n.StateReason += fmt.Sprintf(" and NodeClaim %s is not Initialized yet", n.Claim.Name)
	}
}

// instanceGone reports whether the node's instance is known to be terminated or gone, and
// describes the instance for the node's state reason.
func (x *Index) instanceGone(n *NodeInfo) (bool, string) {
	switch {
	case n.Instance != nil && n.Instance.State == "terminated":
		return true, "instance " + n.Instance.ID + " is terminated"
	case n.Instance != nil:
		return false, fmt.Sprintf("instance %s is %s", n.Instance.ID, cmp.Or(n.Instance.State, "in an unknown state"))
	case !n.Checked() || x.Unavailable(snapshot.SourceDescribeInstances):
		return false, "instance unknown"
	}
	return true, fmt.Sprintf("DescribeInstances returns no instance %s", n.Provider.InstanceID)
}

// fargateNode reports whether node is an EKS Fargate node: the compute-type label, or a
// providerID whose last part is the Fargate name (aws:///ZONE/.../fargate-ip-... or
// aws:///ZONE/fargate-IP).
func fargateNode(node *corev1.Node) bool {
	if node.Labels[snapshot.LabelComputeType] == ComputeFargate {
		return true
	}
	id, ok := strings.CutPrefix(node.Spec.ProviderID, "aws:///")
	if !ok {
		return false
	}
	last := id[strings.LastIndex(id, "/")+1:]
	return strings.HasPrefix(last, "fargate-")
}

// claimInitialized reports whether the NodeClaim's Initialized condition is True.
func claimInitialized(c *snapshot.NodeClaim) bool {
	if c == nil {
		return false
	}
	cond := findCondition(c.Conditions, "Initialized")
	return cond != nil && cond.Status == "True"
}

// Terminating reports whether the node is being deleted, stuck or not.
func (n *NodeInfo) Terminating() bool {
	return n.State == StateTerminating || n.State == StateTerminationStuck
}

// Initialising reports whether the node is inside its start-up grace period.
func (n *NodeInfo) Initialising() bool { return n.State == StateInitialising }

// ago renders a duration for messages, rounded: "45s", "3m", "2h5m".
func ago(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return d.Round(time.Second).String()
	}
	return strings.TrimSuffix(d.Round(time.Minute).String(), "0s")
}

// unreadText says that EC2 was not read in a Region, and why.
func unreadText(g *snapshot.Gap) string {
	return fmt.Sprintf("EC2 was not read in Region %s (%s)", g.Region, g.Reason)
}
