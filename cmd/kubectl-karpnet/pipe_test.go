package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
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
