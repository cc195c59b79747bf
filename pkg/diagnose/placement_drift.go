package diagnose

import (
	"fmt"
)

// reasonPlacementGroupDrift is the Drifted reason Karpenter gives a node whose placement group
// is not the one its EC2NodeClass selects.
const reasonPlacementGroupDrift = "PlacementGroupDrift"

// driftedFor reports whether the node's NodeClaim is Drifted=True for reason.
func driftedFor(n *NodeInfo, reason string) bool {
	if n.Claim == nil {
		return false
	}
	c := findCondition(n.Claim.Conditions, "Drifted")
	return c != nil && c.Status == "True" && c.Reason == reason
}

// withPlacementDrift completes a placement-group-missing or -mismatch finding for a node whose
// NodeClaim is already Drifted=True with reason PlacementGroupDrift: the launcher will replace
// it as drifted, but only when the NodePool's disruption budgets allow and no
// karpenter.sh/do-not-disrupt annotation (on the node, its NodeClaim or a pod without a
// terminationGracePeriod to bound it) holds it. Until then the node lacks its placement, so
// the finding stays a warning and says what it waits for.
func withPlacementDrift(n *NodeInfo, f Finding) *Finding {
	if !driftedFor(n, reasonPlacementGroupDrift) {
		return &f
	}
	pool := "its NodePool"
	if n.PoolName != "" {
		pool = "NodePool " + n.PoolName
	}
	f.Message += fmt.Sprintf("; NodeClaim %s is already Drifted=True (%s): %s will replace the node as drifted once "+
		"the disruption budgets of %s allow and no karpenter.sh/do-not-disrupt annotation holds it, and until then "+
		"it runs without its placement", n.Claim.Name, reasonPlacementGroupDrift, n.launcher(), pool)
	f.Remedy = fmt.Sprintf("nothing to do if the selector change was meant, but if the replacement waits: check "+
		"spec.disruption.budgets of %s and karpenter.sh/do-not-disrupt on the node, its NodeClaim and its pods, or %s",
		pool, replaceNodeProse(n, "now"))
	f.Commands = replaceNodeCommands(n)
	return &f
}
