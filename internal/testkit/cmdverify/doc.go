// Package cmdverify runs the commands of karpnet's remedies through the real tools that would
// run them, without changing anything: kubectl with --dry-run (and `kubectl patch --local`
// against the object the command is about), and the AWS CLI through its own parser against a
// local endpoint that refuses every call. The end-to-end suite feeds it every command of the
// demo clusters, of pkg/diagnose's unit tables and of its own broken worlds (docs/development.md).
//
// Nothing here changes a real cluster or AWS account: kubectl runs with --dry-run (a subcommand
// without that flag fails on it before doing anything), --local or a read-only subcommand, only
// Cluster writes, into the test's own API server, and the AWS CLI talks only to the refusing
// endpoint, with fake credentials and none of the machine's configuration.
package cmdverify
