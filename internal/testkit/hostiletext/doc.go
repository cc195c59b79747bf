// Package hostiletext holds what karpnet's tests and fuzzers feed the printers and the TUI to prove
// that text read from a cluster or EC2 never reaches a terminal raw: a string of escape
// sequences and control characters, a way to put it in every string of a value, and a check
// that finds any that got through.
package hostiletext
