// Package cmd holds karpnet's cobra commands. Each command has an Options struct whose
// Complete builds what it needs, Validate checks flags without I/O, and Run collects,
// analyses, renders and decides the exit code. Nothing here writes to os.Stdout directly.
package cmd
