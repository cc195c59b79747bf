package cmd

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
)

// demoNode is a demo node without findings; demoWarnNode has one warning,
// instance-type-mismatch.
const (
	demoNode     = "ip-10-0-1-69.us-west-2.compute.internal"
	demoWarnNode = "ip-10-0-16-33.us-west-2.compute.internal"
)

// result is what one run of karpnet produced.
type result struct {
	code   int
	stdout string
	stderr string
}

// env is a fake environment for commonOptions.getenv.
type env map[string]string

func (e env) get(name string) string { return e[name] }

// errNoCluster is what the default test collector answers: tests that reach a live cluster
// must set newCollector.
var errNoCluster = errors.New("no cluster in this test")

// newTestOptions returns options over fresh test streams, with an empty environment and a
// collector that refuses to run.
func newTestOptions() (*commonOptions, *bytes.Buffer, *bytes.Buffer) {
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	o := newCommonOptions(streams)
	o.getenv = env{}.get
	o.newCollector = func(context.Context, *commonOptions) (*collect.Collector, error) {
		return nil, errNoCluster
	}
	return o, out, errOut
}

// run runs karpnet with args over fresh test options.
func run(t *testing.T, args ...string) result {
	t.Helper()
	o, _, _ := newTestOptions()
	return runWith(t, o, args...)
}

// runWith runs karpnet with args over o, whose streams must be bytes.Buffers.
func runWith(t *testing.T, o *commonOptions, args ...string) result {
	t.Helper()
	if args == nil {
		args = []string{} // cobra reads os.Args, the test binary's flags, for nil
	}
	code := execute(t.Context(), o, args)
	return result{code: code, stdout: bufString(o.Out), stderr: bufString(o.ErrOut)}
}

// bufString returns what was written to w, a buffer.
func bufString(w any) string {
	if b, ok := w.(interface{ String() string }); ok {
		return b.String()
	}
	return ""
}

// wantCode fails the test when r did not exit with want.
func wantCode(t *testing.T, r result, want int) {
	t.Helper()
	if r.code != want {
		t.Fatalf("exit code: got %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, want, r.stdout, r.stderr)
	}
}

// wantOneErrorLine fails the test unless stderr is exactly one "error: ..." line holding
// every one of parts, and returns it.
func wantOneErrorLine(t *testing.T, r result, parts ...string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(lines) != 1 || !strings.HasSuffix(r.stderr, "\n") {
		t.Fatalf("stderr: got %d lines, want exactly one:\n%s", len(lines), r.stderr)
	}
	line := lines[0]
	if !strings.HasPrefix(line, "error: ") {
		t.Errorf("stderr: got %q, want it to start with \"error: \"", line)
	}
	for _, p := range parts {
		if !strings.Contains(line, p) {
			t.Errorf("stderr: got %q, want it to contain %q", line, p)
		}
	}
	for _, bad := range []string{"panic", "goroutine ", ".go:"} {
		if strings.Contains(line, bad) {
			t.Errorf("stderr: got %q, want no %q in a user-facing error", line, bad)
		}
	}
	return line
}
