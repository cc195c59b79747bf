package diagnose

// replaceNodeRemedy tells how to replace the node, and why: "replace the node WHY: COMMAND". A
// node with a NodeClaim is replaced by deleting the NodeClaim (Karpenter or EKS Auto Mode then
// drains it, terminates its instance and launches a new node as pending pods need); a node of
// a NodePool whose NodeClaim is unknown by deleting the Node, which the termination finalizer
// turns into the same; any other node is drained and its instance terminated, so that its node
// group launches a new one. why may be empty.
func replaceNodeRemedy(n *NodeInfo, why string) string {
	what := "replace the node"
	if why != "" {
		what += " " + why
	}
	switch {
	case n.Claim != nil && n.Claim.Name != "":
		return what + ": kubectl delete nodeclaim " + n.Claim.Name
	case n.PoolName != "":
		return what + ": kubectl delete node " + n.Name() + " (" + n.launcher() + " drains it and terminates its instance)"
	}
	return what + ": kubectl drain " + n.Name() + " --ignore-daemonsets --delete-emptydir-data, then terminate its instance"
}
