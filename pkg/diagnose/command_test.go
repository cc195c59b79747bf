package diagnose

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// shellParse has a POSIX shell parse rendered as the arguments of printf, and returns the
// words it produced, so that a test compares them with the argument vector that was rendered.
// The shell runs in dir, so that a test can see whether anything else ran there.
func shellParse(t *testing.T, dir, rendered string) []string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "/bin/sh", "-c", `printf '%s\0' `+rendered)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh -c printf %s: %v", rendered, err)
	}
	words := strings.Split(string(out), "\x00")
	return words[:len(words)-1]
}

// hostileValues are strings that would end an argument or run a command if pasted unquoted.
var hostileValues = []string{
	`x"}}]' ; touch PWNED ; echo '`,
	"a'b", `$(touch PWNED)`, "`touch PWNED`", "a;touch PWNED", "a\ntouch PWNED", "\x1b]0;title\x07\x1b[31mred",
	`a\'b`, "''", `"`, "a b", "*", "~root", "#x", "a&&touch PWNED", "a|touch PWNED", ">PWNED", "",
}

func TestShellQuoteRoundTrips(t *testing.T) {
	dir := t.TempDir()
	argv := append([]string{"kubectl", "a-b_c.d/e:f,g@h%i+j=k"}, hostileValues...)
	got := shellParse(t, dir, ShellJoin(argv))
	if !slices.Equal(got, argv) {
		t.Errorf("the shell parsed %q back as %q", ShellJoin(argv), got)
	}
	if ShellQuote("node.cilium.io/agent-not-ready") != "node.cilium.io/agent-not-ready" {
		t.Errorf("a plain word is quoted: %s", ShellQuote("node.cilium.io/agent-not-ready"))
	}
	if ShellQuote("") != "''" || ShellQuote("a'b") != `'a'\''b'` {
		t.Errorf("ShellQuote(\"\") = %s, ShellQuote(a'b) = %s", ShellQuote(""), ShellQuote("a'b"))
	}
	assertNothingRan(t, dir)
}

// assertNothingRan fails when a file appeared in dir.
func assertNothingRan(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("a rendered command ran something: %s holds %s", dir, e.Name())
	}
}
