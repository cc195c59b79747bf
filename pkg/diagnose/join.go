package diagnose

// joinChecks are the checks of nodes that never joined: NodeClaims without a Node, the way out
// of the subnets new nodes launch into (routes, VPC endpoints, security-group egress, network
// ACLs), and instances Karpenter launched for the cluster that no NodeClaim names.
func joinChecks() []Check {
	return []Check{
		nodeClaimLaunchFailed,
		launchFailuresByZone,
		nodeClaimNotRegistered,
		nodePoolRegistrationUnhealthy,
		subnetNoEgressRoute,
		securityGroupEgressBlocked,
		networkACLBlocksNodeTraffic,
		vpcDNSDisabled,
		dhcpOptionsCustomDNS,
		instanceOrphaned,
	}
}
