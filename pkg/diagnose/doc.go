// Package diagnose runs karpnet's networking checks over a snapshot.Snapshot and returns a
// deterministic Report: findings with stable IDs, severities, messages and remedies, and one
// NodeReport per node with its whole networking picture.
//
// The package is pure: it never does I/O, never reads the clock (the snapshot's Taken time is
// "now") and never imports client-go, the EC2 client, cobra, bubbletea or lipgloss.
//
// Files that hold checks are named after the checks' catalogue family: core_, vpccni_, efa_,
// placement_, consistency_, automode_ and join_ (the family's list of checks, in catalogue
// order, is in core.go, vpccni.go, efa.go, placement.go, consistency.go, automode.go and
// join.go). Each check's Spec, its catalogue entry, sits right above the Check value that pairs
// it with its Run, in the same file. Files of machinery the families share (the index,
// lifecycle, platform, capacity math, the report) have neutral names.
package diagnose
