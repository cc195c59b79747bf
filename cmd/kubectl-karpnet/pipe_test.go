package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestClosedPipeExits3: standard output whose reader has gone (| head that exited) ends the
// run with exit 3 and one line, as the README says, not with SIGPIPE (141 in a shell).
func TestClosedPipeExits3(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader is gone before anything is written
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1", childEnv+"_ARGS=demo check -o wide")
	cmd.Stdout = w
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	w.Close()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("run: got %v, want exit 3", err)
	}
	if code := ee.ExitCode(); code != 3 {
		t.Errorf("exit: got %d (%v), want 3; stderr: %q", code, ee, stderr.String())
	}
	if got := stderr.String(); !strings.Contains(got, "writing the report") || !strings.Contains(got, "broken pipe") ||
		strings.Count(got, "\n") != 1 {
		t.Errorf("stderr: got %q, want one line about the report and the broken pipe", got)
	}
}

// TestReaderLeavingEndsQuietly: a reader that goes away after part of the report (| head)
// ends the run with no word on standard error, and the exit code the report had: 1 for the
// demo's criticals, 0 with --fail-on never; so a pipeline that checks it still fails on the
// findings it did not read. The pipe holds less than each report.
func TestReaderLeavingEndsQuietly(t *testing.T) {
	for _, tt := range []struct {
		args string
		want int
	}{
		{"demo check -o json", 1},
		{"demo check -o json --fail-on never", 0},
		{"demo describe node ip-10-0-1-69.us-west-2.compute.internal -o json", 0},
	} {
		t.Run(tt.args, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			// The smallest pipe Linux makes (one page), so every report here is larger.
			if _, err := unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, 4096); err != nil {
				t.Fatalf("shrinking the pipe: %v", err)
			}
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"=1", childEnv+"_ARGS="+tt.args)
			cmd.Stdout = w
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			head := make([]byte, 10)
			if _, err := io.ReadFull(r, head); err != nil {
				t.Fatalf("reading the first bytes: %v", err)
			}
			r.Close() // head -c 10 had enough
			err = cmd.Wait()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.want || stderr.String() != "" {
				t.Errorf("exit %d, stderr %q: want exit %d and nothing on stderr", code, stderr.String(), tt.want)
			}
		})
	}
}
