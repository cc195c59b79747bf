package report

import (
	"strings"
)

// Command is one action a finding's remedy proposes, as the argument vector a shell passes to
// the program: never a string built by concatenation, so no name, tag, ConfigMap value or taint
// key read from the cluster can end an argument or start another command.
type Command struct {
	// Argv is the program and its arguments, one element each.
	Argv []string `json:"argv"`
	// Changes names the objects the command changes, e.g. "nodepool/default"; "" when ReadOnly.
	Changes string `json:"changes,omitempty"`
	// Affects says what the change reaches when it changes a shared object (a NodePool, a
	// security group, an add-on): how many nodes, and of which instance types.
	Affects string `json:"affects,omitempty"`
	// ReadOnly is true when the command changes nothing (a get, a describe, logs).
	ReadOnly bool `json:"readOnly,omitempty"`
}

// String renders the command for a POSIX shell: each argument quoted by ShellQuote, separated
// by one space, on one line (an argument holding a newline stays inside its quotes).
func (c Command) String() string { return ShellJoin(c.Argv) }

// ShellJoin renders argv for a POSIX shell, each argument quoted by ShellQuote.
func ShellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = ShellQuote(a)
	}
	return strings.Join(q, " ")
}

// ShellQuote quotes s for a POSIX shell: bare when it is made only of letters, digits and
// @%+=:,./_- (and is not empty), else in single quotes, inside which a shell expands nothing;
// a single quote in s ends the quotes, is escaped with a backslash, and the quotes open again.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !shellBare(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellBare reports whether r needs no quoting in a POSIX shell word.
func shellBare(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return true
	}
	return strings.ContainsRune("@%+=:,./_-", r)
}
