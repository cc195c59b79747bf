// Package snapshot holds the plain data that karpnet reads from a cluster and from EC2 at one
// moment, and loads and saves it as versioned JSON.
//
// A Snapshot is the seam between collection (pkg/collect, all I/O) and diagnosis (pkg/diagnose,
// pure). Because it is plain data it can be saved with --save-snapshot, replayed with --snapshot,
// embedded for the demo and written by hand in tests. This package does no I/O beyond the
// io.Reader and io.Writer it is given.
package snapshot
