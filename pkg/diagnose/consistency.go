package diagnose

// consistencyChecks are the NodePool / EC2NodeClass consistency and node-to-node security
// group checks.
func consistencyChecks() []Check { return nil }
