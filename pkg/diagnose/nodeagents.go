package diagnose

// agentChecks are the checks of what runs on the nodes besides aws-node's IPAM: Cilium's ENI
// IPAM, the startup taints of CNI agents.
func agentChecks() []Check {
	return []Check{
		ciliumMaxPodsExceedsIPCapacity,
		ciliumENISelectionMismatch,
		ciliumIPAMOperatorError,
		nodePoolStartupTaintMissing,
	}
}
