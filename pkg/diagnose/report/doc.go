// Package report holds karpnet's report and its findings: the Report Analyze returns, a node's
// NodeReport, a NodeClaim's without a Node (NodeClaimReport), a cluster's of a report over
// several (ClusterReport), the Summary every view prints, the Finding with its Severity,
// subjects and remedy Commands, and what a view asks of them (Report.About, Report.OnWhatUses,
// Finding.Concerns, Summary.ByStatus). Their JSON is part of the report's public interface.
//
// It reads the snapshot's types and the table of kinds only, with the node report's sections
// (package view) and the way out (package wayout); it never imports pkg/diagnose. pkg/diagnose
// names every type here under its own name (diagnose.Finding is report.Finding), fills them and
// sorts them; the checks make the findings and the views read them through those names.
package report
