// Command peakrss runs a command and writes its peak resident set size, in bytes, to a file:
//
//	peakrss FILE COMMAND [ARG...]
//
// The command gets peakrss's standard streams, environment and signals (SIGINT, SIGTERM), and
// peakrss exits with its exit code (128 + the signal's number when a signal ended it). If
// peakrss is killed, so is the command.
//
// It exists because the peak RSS a Go program reads for a child it started is not the child's:
// os/exec starts children with vfork (CLONE_VM), so the child runs in its parent's memory until
// it calls exec, and Linux keeps the high-water mark of the memory exec leaves behind in the
// child's ru_maxrss. A harness holding a 100,000-node cluster's objects would so report its own
// peak as every child's. peakrss is small, so a command started by it reports its own.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: peakrss FILE COMMAND [ARG...]")
		os.Exit(2)
	}
	file := os.Args[1]
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // not left running if peakrss is killed
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(127)
	}
	go func() {
		for s := range signals {
			_ = cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	case err != nil:
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(127)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		if err := os.WriteFile(file, []byte(strconv.FormatInt(ru.Maxrss*1024, 10)), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "peakrss:", err)
			os.Exit(127)
		}
	}
	os.Exit(code)
}
