package diagnose

// coreChecks are identity, addressing, subnet, security-group, capacity and data checks.
func coreChecks() []Check {
	return []Check{
		providerIDInvalid,
		instanceNotFound,
		instanceNotRunning,
		nodeTerminationStuck,
		zoneMismatch,
		instanceTypeMismatch,
		internalIPOutsideSubnet,
		internalIPNotInstanceIP,
		subnetNotSelected,
		securityGroupDrift,
		subnetIPExhaustion,
		subnetPrefixFragmented,
		maxPodsExceedsIPCapacity,
		nodeClassNotReady,
		dataUnavailable,
	}
}
