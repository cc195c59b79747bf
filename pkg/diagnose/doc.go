// Package diagnose runs karpnet's networking checks over a snapshot.Snapshot and returns a
// deterministic Report: findings with stable IDs, severities, messages, remedies and subjects,
// one NodeReport per node with its whole networking picture, and the summary.
//
// The package is pure: it never does I/O, never reads the clock (the snapshot's Taken time is
// "now") and never imports client-go, the EC2 client, cobra, bubbletea or lipgloss
// (TestPurePackagesStayPure holds it to that).
//
// The engine. Analyze (analyze.go) builds an Index over the snapshot (index.go: nodes joined to
// their NodeClaim, NodePool, class, instance and subnets), runs the selected checks (check.go),
// derives each finding's Subjects once from how subjects hang together (relate.go), and builds
// the node reports (describe.go) and the Summary (package report). A check is a Spec (spec.go),
// its catalogue entry, paired with a Run over the Index; findings carry Commands (built in
// command.go) next to their Remedy prose.
//
// The checks. Files that hold checks are named after the checks' catalogue family: core_,
// vpccni_, nodeagents_ (Cilium's ENI IPAM, the CNI agents' startup taints, the network policy
// agent, the EKS node monitoring agent), efa_, placement_, consistency_, automode_ and join_.
// Each family's list of checks, in catalogue order, is in core.go, vpccni.go, nodeagents.go,
// efa.go, placement.go, consistency.go, automode.go and join.go; Checks joins them. Each check's
// Spec sits right above the Check value that pairs it with its Run, in the same file
// (layout_test.go holds files to that). Files of machinery every family shares (the index,
// lifecycle, platform, capacity math, the report) have neutral names.
//
// The models. What several checks and the views share, and that reads the snapshot only, lives
// in packages below this one, which never import it (TestPurePackagesStayPure): wayout (a
// subnet's way out: route tables, NAT gateways, VPC endpoints, network ACLs, and the changes
// that repair them), blocks (a subnet's /28 block map), subnetcap (what the next node takes of a
// subnet and the pool of subnets it draws from), view (the report's data types that carry no
// finding: a node's sections, the subnets listed, the checks not run) and report (the Report,
// its NodeReports, NodeClaimReports, ClusterReports and Summary, the Finding and Severity they
// carry and count, and a remedy's Command). The Index builds the
// wayout and blocks indexes once per analysis; the checks read them through it, and turn the
// models' answers into findings: the join checks build a way out's commands with the nodes each
// change reaches (join_path_fix.go) and pick its subjects (join_path_subjects.go), the subnet
// checks assemble the capacity pools from the Index's nodes, classes and NodePools
// (core_subnetcap*.go). The report's and the view's types keep their names here as aliases,
// so the checks and the views name them as diagnose.Finding, diagnose.Report and so on; the
// engine fills them (analyze.go, describe.go) and builds a remedy's commands (command.go).
//
// Remedies. A finding's Remedy is prose; the commands it proposes are Commands, one argument
// vector each (Command.Argv), with the objects a command Changes, whom a change to a shared
// object Affects, and ReadOnly for the ones that only read. The Spec's Scope says why a check
// proposes the change it does on a shared object. remedy.go holds the builders every check
// uses for the same action (replacing a node). The end-to-end suite runs every command through
// kubectl and the AWS CLI (test/e2e, TestRemedyCommandsRunInTheRealTools).
//
// The ledger. ledger.go pins one version of each upstream project the checks encode (Ledger),
// and each Spec's Verified entries name the file, at that version, each fact was read in;
// ledger_stale.go tells which checks a cluster running a newer version may have outgrown.
//
// The views. views.go is what the views built on an analysed Index (pkg/sheet and pkg/tui)
// may ask of it; pkg/printer reads the Report only, and the model types it renders (a WayOut,
// a block map) from their packages.
package diagnose
