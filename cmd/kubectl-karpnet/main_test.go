package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// childEnv makes the test binary run as kubectl-karpnet, with the same packages initialised
// in the same order as the real binary.
const childEnv = "KARPNET_MAIN_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Args = append([]string{"kubectl-karpnet"}, strings.Fields(os.Getenv(childEnv+"_ARGS"))...)
		main()
	}
	os.Exit(m.Run())
}

// openPTY opens a new pseudo-terminal and returns its master and slave sides.
func openPTY(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening a pseudo-terminal (/dev/ptmx): %v", err)
	}
	t.Cleanup(func() { _ = master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("naming the pseudo-terminal: %v", err)
	}
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening /dev/pts/%d: %v", n, err)
	}
	return master, slave
}

// runOnTerminal runs kubectl-karpnet args with a pseudo-terminal as its controlling terminal
// and its standard input, output and error, in the foreground as in an interactive shell, and
// returns everything it wrote there and how long it took.
func runOnTerminal(t *testing.T, env []string, args ...string) (string, time.Duration) {
	t.Helper()
	master, slave := openPTY(t)
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	base := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "CI=") || strings.HasPrefix(kv, "TERM=") || strings.HasPrefix(kv, "NO_COLOR=")
	})
	cmd.Env = append(append(base, childEnv+"=1", childEnv+"_ARGS="+strings.Join(args, " "), "TERM=xterm-256color"), env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting kubectl-karpnet on a pseudo-terminal: %v", err)
	}
	_ = slave.Close()
	var out bytes.Buffer
	read := make(chan error, 1)
	go func() {
		_, err := io.Copy(&out, master)
		read <- err
	}()
	err := cmd.Wait()
	took := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running kubectl-karpnet: %v", err)
	}
	select {
	case <-read: // EIO once the last writer is gone
	case <-time.After(5 * time.Second):
		t.Fatal("the pseudo-terminal stayed open after kubectl-karpnet exited")
	}
	return out.String(), took
}

// TestNoTerminalQuery runs commands whose output is a terminal that answers nothing: none
// writes the background colour query (OSC 11) or the cursor position request that follows
// it, and none waits for their answer.
func TestNoTerminalQuery(t *testing.T) {
	tests := []struct {
		name      string
		env       []string
		args      []string
		wantStart string
	}{
		{name: "json", args: []string{"demo", "check", "-o", "json"}, wantStart: "{"},
		{name: "json, colour never", args: []string{"demo", "check", "-o", "json", "--color", "never"}, wantStart: "{"},
		{name: "json, NO_COLOR", env: []string{"NO_COLOR=1"}, args: []string{"demo", "check", "-o", "json"}, wantStart: "{"},
		{name: "yaml", args: []string{"demo", "check", "-o", "yaml"}, wantStart: "apiVersion: karpnet/v1alpha1"},
		{name: "text", args: []string{"demo", "check"}, wantStart: "\x1b[2mcontext:"},
		{name: "describe", args: []string{"demo", "describe", "node", "ip-10-0-1-69.us-west-2.compute.internal"}, wantStart: "\x1b[1;4;4mn"},
		{name: "version", args: []string{"version"}, wantStart: "karpnet "},
		{name: "CI empty", env: []string{"CI="}, args: []string{"demo", "check", "-o", "json"}, wantStart: "{"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, took := runOnTerminal(t, tt.env, tt.args...)
			for _, query := range []string{"\x1b]11;?", "\x1b]10;?", "\x1b[6n"} {
				if strings.Contains(out, query) {
					t.Errorf("kubectl-karpnet %s wrote the terminal query %q", strings.Join(tt.args, " "), query)
				}
			}
			if !strings.HasPrefix(out, tt.wantStart) {
				t.Errorf("output starts %q, want %q", out[:min(len(out), 40)], tt.wantStart)
			}
			if took > 4*time.Second {
				t.Errorf("kubectl-karpnet %s took %v on a silent terminal, want no wait for an answer", strings.Join(tt.args, " "), took)
			}
		})
	}
}
