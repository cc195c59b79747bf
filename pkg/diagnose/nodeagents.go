package diagnose

// agentChecks are the checks of what runs on the nodes besides aws-node's IPAM: Cilium's ENI
// IPAM, the startup taints of CNI agents, network policy enforcement and the EKS node
// monitoring agent's allowance events.
func agentChecks() []Check {
	return []Check{
		ciliumMaxPodsExceedsIPCapacity,
		ciliumENISelectionMismatch,
		ciliumIPAMOperatorError,
		nodePoolStartupTaintMissing,
		networkPolicyNotEnforced,
		policyAgentVersionMismatch,
		policyAgentUnhealthy,
		coreDNSConcentrated,
		instanceNetworkAllowanceExceeded,
		connectionTrackingNotInherited,
		imdsHopLimitBlocksPods,
		nodePoolAgentExcluded,
		nodeAgentNotRunning,
	}
}
