package cmd

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
)

// failingWriter fails every write, as stdout does when redirected to /dev/full.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestOutputFailureIsNotAUsageError: a report that cannot be written exits 3 with one line
// saying so, never "see --help".
func TestOutputFailureIsNotAUsageError(t *testing.T) {
	for _, args := range [][]string{
		{"demo", "check"},
		{"demo", "check", "-o", "json"},
		{"demo", "describe", "node", demoWarnNode},
		{"version"},
		{"completion", "bash"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			o, _, errOut := newTestOptions()
			o.Out = failingWriter{}
			r := result{code: execute(t.Context(), o, args), stderr: errOut.String()}
			wantCode(t, r, ExitCollect)
			line := wantOneErrorLine(t, r, "writing the", "no space left on device")
			if strings.Contains(line, "--help") {
				t.Errorf("stderr: got %q, want no pointer to --help for a failed write", line)
			}
		})
	}
}

// TestRequestTimeoutIsValidated: a --request-timeout kubectl would refuse is a usage error
// (exit 2), found before anything is collected.
func TestRequestTimeoutIsValidated(t *testing.T) {
	for _, tt := range []struct {
		value string
		code  int
	}{
		{"soon", ExitUsage}, {"-5s", ExitUsage}, {"-3", ExitUsage}, {"1x", ExitUsage},
		{"30s", ExitFindings}, {"45", ExitFindings}, {"0", ExitFindings}, {"1m30s", ExitFindings},
	} {
		t.Run(tt.value, func(t *testing.T) {
			r := run(t, "demo", "check", "--request-timeout", tt.value)
			wantCode(t, r, tt.code)
			if tt.code == ExitUsage {
				wantOneErrorLine(t, r, "--request-timeout", tt.value, "30s")
			}
		})
	}
}

// TestInterruptedRunPrintsNoReport: Ctrl-C while EC2 is being read ends with exit 130 and one
// line, prints no report (the nodes not read yet would look clean) and saves no snapshot.
func TestInterruptedRunPrintsNoReport(t *testing.T) {
	c := newLiveCluster(t)
	c.sim.SetLatency(time.Minute)
	o := c.options()
	ctx, cancel := context.WithCancel(t.Context())
	inner := o.newCollector
	o.newCollector = func(ctx context.Context, o *commonOptions) (*collect.Collector, error) {
		time.AfterFunc(300*time.Millisecond, cancel) // as the first Ctrl-C does, once EC2 is being read
		return inner(ctx, o)
	}
	path := t.TempDir() + "/cluster.json"
	start := time.Now()
	code := execute(ctx, o, []string{"check", "-o", "json", "--save-snapshot", path})
	r := result{code: code, stdout: bufString(o.Out), stderr: bufString(o.ErrOut)}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the interrupted run took %v, want it to end at once", took)
	}
	wantCode(t, r, ExitInterrupted)
	wantOneErrorLine(t, r, "interrupted", "no report")
	if r.stdout != "" {
		t.Errorf("stdout: got %q, want no report", r.stdout)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a snapshot was saved (stat: %v), want none", err)
	}
}
