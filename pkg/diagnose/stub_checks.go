package diagnose

// Placeholder check values so the package builds while checks are written; each is replaced by
// its family file.
var (
	providerIDInvalid        = Check{ID: "provider-id-invalid", Severity: Warning}
	instanceNotFound         = Check{ID: "instance-not-found", Severity: Critical}
	instanceNotRunning       = Check{ID: "instance-not-running", Severity: Critical}
	zoneMismatch             = Check{ID: "zone-mismatch", Severity: Warning}
	instanceTypeMismatch     = Check{ID: "instance-type-mismatch", Severity: Warning}
	internalIPOutsideSubnet  = Check{ID: "internal-ip-outside-subnet", Severity: Critical}
	internalIPNotInstanceIP  = Check{ID: "internal-ip-not-instance-ip", Severity: Critical}
	subnetNotSelected        = Check{ID: "subnet-not-selected", Severity: Warning}
	securityGroupDrift       = Check{ID: "security-group-drift", Severity: Warning}
	subnetIPExhaustion       = Check{ID: "subnet-ip-exhaustion", Severity: Critical}
	maxPodsExceedsIPCapacity = Check{ID: "max-pods-exceeds-ip-capacity", Severity: Critical}
	nodeClassNotReady        = Check{ID: "nodeclass-not-ready", Severity: Critical}
	dataUnavailable          = Check{ID: "data-unavailable", Severity: Warning}
)
