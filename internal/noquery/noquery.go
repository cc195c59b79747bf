// Package noquery keeps karpnet from querying the terminal when it starts.
//
// bubbletea v1's init asks lipgloss whether the terminal has a dark background, and when
// standard output is a terminal that writes OSC 11 and a cursor position request (ESC]11;?
// ESC[6n) to it and waits up to five seconds for an answer: before main runs, whatever the
// command, -o json included, and whatever --color or NO_COLOR say. karpnet never uses the
// answer: its printers and the TUI build styles on renderers with the background set (dark).
//
// termenv, which sends the query, skips it when the CI environment variable is set. This
// package's init, which Go runs before termenv's and so before bubbletea's (packages are
// initialised in import-path order once their imports are, and this one imports only os), sets
// CI for that moment when it is unset or empty; Restore, the first thing main does, puts it
// back. This package must import nothing that imports termenv.
package noquery

import "os"

// The values init gives CI, saying what Restore puts back.
const (
	unset = "karpnet-noquery-unset"
	empty = "karpnet-noquery-empty"
)

func init() {
	v, ok := os.LookupEnv("CI")
	switch {
	case !ok:
		_ = os.Setenv("CI", unset)
	case v == "":
		_ = os.Setenv("CI", empty)
	}
}

// Restore gives CI back the value it had when the process started. Call it first in main,
// before anything reads the environment or starts a process.
func Restore() {
	switch os.Getenv("CI") {
	case unset:
		_ = os.Unsetenv("CI")
	case empty:
		_ = os.Setenv("CI", "")
	}
}
