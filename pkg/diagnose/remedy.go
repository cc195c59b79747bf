package diagnose

// replaceNodeCommands are the commands that replace node n, as replaceNodeProse describes. A
// node with a NodeClaim is replaced by deleting the NodeClaim (Karpenter or EKS Auto Mode then
// drains it, terminates its instance and launches a new node as pending pods need); a node of
// a NodePool whose NodeClaim is unknown by deleting the Node, which the termination finalizer
// turns into the same; any other node is drained and its instance terminated (when karpnet
// knows the instance), so that its node group launches a new one.
func replaceNodeCommands(n *NodeInfo) []Command {
	switch {
	case n.Claim != nil && n.Claim.Name != "":
		return []Command{{Argv: []string{"kubectl", "delete", "nodeclaim", n.Claim.Name},
			Changes: "nodeclaim/" + n.Claim.Name + " and node/" + n.Name() + ": " + n.launcher() + " drains the node and terminates its instance"}}
	case n.PoolName != "":
		return []Command{{Argv: []string{"kubectl", "delete", "node", n.Name()},
			Changes: "node/" + n.Name() + ": " + n.launcher() + " drains it and terminates its instance"}}
	}
	cmds := []Command{{Argv: []string{"kubectl", "drain", n.Name(), "--ignore-daemonsets", "--delete-emptydir-data"},
		Changes: "node/" + n.Name() + ": cordoned, its pods evicted"}}
	if n.Instance != nil && n.Instance.ID != "" {
		cmds = append(cmds, Command{Argv: []string{"aws", "ec2", "terminate-instances", "--instance-ids", n.Instance.ID},
			Changes: "instance/" + n.Instance.ID + " (node/" + n.Name() + ")"})
	}
	return cmds
}

// replaceNodeProse tells how to replace the node, and why (which may be empty), without the
// command, which replaceNodeCommands gives: "replace the node WHY by deleting its NodeClaim NAME".
func replaceNodeProse(n *NodeInfo, why string) string {
	what := "replace the node"
	if why != "" {
		what += " " + why
	}
	switch {
	case n.Claim != nil && n.Claim.Name != "":
		return what + " by deleting its NodeClaim " + n.Claim.Name
	case n.PoolName != "":
		return what + " by deleting the Node (" + n.launcher() + " drains it and terminates its instance)"
	}
	return what + ": drain it, then terminate its instance"
}
