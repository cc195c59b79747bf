package diagnose

// agentChecks are the checks of what runs on the nodes besides aws-node's IPAM: Cilium, the
// startup taints of CNI agents.
func agentChecks() []Check {
	return []Check{
		nodePoolStartupTaintMissing,
	}
}
