package cmd

import (
	"strings"
	"syscall"
	"testing"
)

// brokenPipe is standard output whose reader went away: every write fails with EPIPE.
type brokenPipe struct{}

func (brokenPipe) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// TestOutputErrorSaysItOnce: a report that cannot be written exits 3 with one line that says
// "writing the report" once, in every format.
func TestOutputErrorSaysItOnce(t *testing.T) {
	for _, format := range []string{"", "wide", "json", "yaml"} {
		t.Run("-o "+format, func(t *testing.T) {
			o, _, errOut := newTestOptions()
			o.Out = brokenPipe{}
			args := []string{"demo", "check"}
			if format != "" {
				args = append(args, "-o", format)
			}
			code := execute(t.Context(), o, args)
			r := result{code: code, stderr: errOut.String()}
			wantCode(t, r, ExitCollect)
			line := wantOneErrorLine(t, r, "writing the report", "broken pipe")
			if n := strings.Count(line, "writing the report"); n != 1 {
				t.Errorf("stderr: got %q, want \"writing the report\" once", line)
			}
		})
	}
}
