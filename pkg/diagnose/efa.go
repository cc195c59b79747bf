package diagnose

// efaChecks are the Elastic Fabric Adapter checks.
func efaChecks() []Check { return nil }
