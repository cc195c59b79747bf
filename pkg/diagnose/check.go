package diagnose

// Check is one networking check. Run must be pure: the same Index gives the same findings.
type Check struct {
	// ID is the stable kebab-case ID used in findings, --only and --skip, and the README.
	ID string
	// Severity is the severity the check raises (the worst one when it can raise two).
	Severity Severity
	// Title is a short description for listings and completion.
	Title string
	// Run returns the check's findings over the indexed snapshot.
	Run func(*Index) []Finding
}

// Checks returns every built-in check in catalogue order: the core checks, then each family.
func Checks() []Check {
	var all []Check
	for _, family := range [][]Check{coreChecks(), cniChecks(), efaChecks(), placementChecks(), consistencyChecks(), autoModeChecks()} {
		all = append(all, family...)
	}
	return all
}

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
		maxPodsExceedsIPCapacity,
		nodeClassNotReady,
		dataUnavailable,
	}
}

// CheckIDs returns the IDs of every built-in check, in catalogue order.
func CheckIDs() []string {
	var ids []string
	for _, c := range Checks() {
		ids = append(ids, c.ID)
	}
	return ids
}
