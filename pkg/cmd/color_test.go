package cmd

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// ansi starts every ANSI escape sequence.
const ansi = "\x1b["

// ttyBuffer collects output in a buffer but reports the descriptor of a terminal, so colour
// policy treats it as a terminal.
type ttyBuffer struct {
	bytes.Buffer
	tty *os.File
}

// Fd returns the terminal's descriptor.
func (b *ttyBuffer) Fd() uintptr { return b.tty.Fd() }

// newTTYBuffer returns a ttyBuffer over the master side of a new pseudo-terminal, or skips
// the test where none can be opened.
func newTTYBuffer(t *testing.T) *ttyBuffer {
	t.Helper()
	f, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("opening a pseudo-terminal (/dev/ptmx) to test colour on a terminal: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return &ttyBuffer{tty: f}
}

func TestColor(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		env      env
		terminal bool
		want     bool
	}{
		{name: "auto, not a terminal", want: false},
		{name: "auto, not a terminal, wide", args: []string{"-o", "wide"}, want: false},
		{name: "always", args: []string{"--color", "always"}, want: true},
		{name: "always beats NO_COLOR", args: []string{"--color", "always"}, env: env{"NO_COLOR": "1"}, want: true},
		{name: "never on a terminal", args: []string{"--color", "never"}, terminal: true, want: false},
		{name: "auto on a terminal", terminal: true, want: true},
		{name: "auto on a terminal with NO_COLOR", env: env{"NO_COLOR": "1"}, terminal: true, want: false},
		{name: "auto on a dumb terminal", env: env{"TERM": "dumb"}, terminal: true, want: false},
		{name: "always never colours JSON", args: []string{"--color", "always", "-o", "json"}, want: false},
		{name: "always never colours YAML", args: []string{"--color", "always", "-o", "yaml"}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, _, _ := newTestOptions()
			if tt.env != nil {
				o.getenv = tt.env.get
			}
			if tt.terminal {
				o.Out = newTTYBuffer(t)
			}
			r := runWith(t, o, append([]string{"demo", "check"}, tt.args...)...)
			wantCode(t, r, ExitFindings)
			if got := strings.Contains(r.stdout, ansi); got != tt.want {
				t.Errorf("ANSI escapes in stdout: got %v, want %v\n%q", got, tt.want, firstLines(r.stdout, 4))
			}
			if r.stdout == "" {
				t.Error("stdout: got nothing, want the report")
			}
		})
	}
}

// TestColorDescribe checks that the node sheet follows --color too.
func TestColorDescribe(t *testing.T) {
	for _, c := range []struct {
		mode string
		want bool
	}{{"always", true}, {"never", false}, {"auto", false}} {
		t.Run(c.mode, func(t *testing.T) {
			r := run(t, "demo", "describe", "node", demoWarnNode, "--color", c.mode)
			wantCode(t, r, ExitOK)
			if got := strings.Contains(r.stdout, ansi); got != c.want {
				t.Errorf("ANSI escapes with --color %s: got %v, want %v", c.mode, got, c.want)
			}
		})
	}
}

// TestColorKeepsText checks that colour adds escapes only: without them the text is the same.
func TestColorKeepsText(t *testing.T) {
	plain := run(t, "demo", "check", "-o", "wide")
	colored := run(t, "demo", "check", "-o", "wide", "--color", "always")
	if got := stripANSI(colored.stdout); got != plain.stdout {
		t.Errorf("--color always without escapes differs from plain output:\n%s\nwant\n%s", firstLines(got, 6), firstLines(plain.stdout, 6))
	}
}

// stripANSI removes CSI escape sequences (ESC [ ... final byte) from s.
func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
