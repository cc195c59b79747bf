package diagnose

// placementChecks are the placement-group checks.
func placementChecks() []Check { return nil }
