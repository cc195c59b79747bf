// Package cmd holds karpnet's cobra commands and what they share: check (one cluster, or
// several with --contexts), describe (node, nodeclaim, subnet, nodeclass, nodepool,
// placementgroup, eni), diff, demo (every command over the embedded demo cluster), max-pods,
// explain, serve (the Prometheus exporter of pkg/serve), tui, version and completion.
//
// Every command runs the same pipeline: commonOptions (options.go) holds the flags and streams
// all commands share and loads a snapshot.Snapshot, from --snapshot, from the demo, or live
// through pkg/collect (live.go builds the collector from kubectl's flags and the standard AWS
// configuration); diagnose.Analyze turns it into a Report; pkg/sheet builds the subject sheets
// describe asks for; pkg/printer, pkg/tui or pkg/serve shows the result. Each command's options
// struct has complete (arguments and flags, without I/O) and run (load, analyse, render, and
// decide the exit code of exit.go). Errors suggest what to run next (hints.go, suggest.go).
// Nothing here writes to os.Stdout directly; a test gives its own streams.
//
// The serve interval floor (budget.Floor) can be lowered only in a binary built with the
// karpnet_testseams tag (serve_floor_seam.go), which the end-to-end and scale suites build; a
// release build reads no test switch from the environment.
package cmd
