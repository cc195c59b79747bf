// Package view holds the plain data types of karpnet's report that carry no finding: the
// sections of a node's report (identity, lifecycle, platform, addresses, subnet, security
// groups, ENIs, capacity, Cilium, EFA, placement, Auto Mode), the subnets the report lists
// (SubnetUse) and the checks it did not run (NotRun). Their JSON is part of the report's public
// interface.
//
// It imports nothing of this module. pkg/diagnose fills them (describe.go, analyze.go) and
// package report names them in its Report and NodeReport, which carry the findings;
// pkg/printer, pkg/sheet, pkg/tui and pkg/serve read them through those.
package view
