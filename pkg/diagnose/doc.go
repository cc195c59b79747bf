// Package diagnose runs karpnet's networking checks over a snapshot.Snapshot and returns a
// deterministic Report: findings with stable IDs, severities, messages and remedies, and one
// NodeReport per node with its whole networking picture.
//
// The package is pure: it never does I/O, never reads the clock (the snapshot's Taken time is
// "now") and never imports client-go, the EC2 client, cobra, bubbletea or lipgloss.
package diagnose
