package harness

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// procStopGrace is how long a stopped process group has between SIGTERM and SIGKILL.
const procStopGrace = 3 * time.Second

// freePorts returns n distinct free TCP ports on 127.0.0.1. It holds every listener until all
// are chosen, so the ports differ; another process may still take one before it is used,
// which is why startup is retried once on a port clash.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port on 127.0.0.1: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// proc is a child process that runs in its own process group with its output in a log file.
type proc struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	done    chan struct{} // closed once the process has exited and waitErr is set
	waitErr error
	stopMu  sync.Mutex
	stopped bool // stop has ended the group, so its id must not be signalled again
}

// startProc starts bin with args in a new process group, stdout and stderr appended to
// logPath, and env added to the current environment. The group is killed when ctx is done;
// on Linux the child also gets SIGKILL if the thread that started it dies.
func startProc(ctx context.Context, name, logPath string, env []string, bin string, args ...string) (*proc, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the %s log: %w", name, err)
	}
	defer logFile.Close()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s (%s): %w", name, bin, err)
	}
	p := &proc{name: name, logPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	go func() {
		select {
		case <-ctx.Done():
			p.signal(syscall.SIGKILL)
		case <-p.done:
		}
	}()
	return p, nil
}

// pid returns the process id, which is also its process group id.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// signal sends sig to the whole process group; a group that is already gone is not an error.
func (p *proc) signal(sig syscall.Signal) error {
	if err := syscall.Kill(-p.pid(), sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("sending %s to %s (group %d): %w", sig, p.name, p.pid(), err)
	}
	return nil
}

// stop ends the process group: SIGTERM, then SIGKILL after procStopGrace, and waits for the
// process to exit. Calling it again does nothing more.
func (p *proc) stop() error {
	p.stopMu.Lock()
	defer p.stopMu.Unlock()
	if p.stopped {
		return nil
	}
	if err := p.signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-p.done:
	case <-time.After(procStopGrace):
	}
	// Kill the group even after the leader exited, so no child of it stays behind.
	if err := p.signal(syscall.SIGKILL); err != nil {
		return err
	}
	select {
	case <-p.done:
		p.stopped = true
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("%s (pid %d) did not exit after SIGKILL", p.name, p.pid())
	}
}

// logTail returns the last n lines of the process log.
func (p *proc) logTail(n int) string {
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(reading %s: %v)", p.logPath, err)
	}
	return kubeLastLines(string(data), n)
}

// portClash reports whether the process log says that a port it wanted was taken.
func (p *proc) portClash() bool {
	data, err := os.ReadFile(p.logPath)
	return err == nil && strings.Contains(string(data), "address already in use")
}

// waitReady calls probe every 100 ms until it succeeds, the process exits, or timeout passes.
// Its errors carry the last lines of the process log.
func (p *proc) waitReady(ctx context.Context, timeout time.Duration, probe func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// A probe in flight ends as soon as the process exits.
	probeCtx, endProbe := context.WithCancel(ctx)
	defer endProbe()
	go func() {
		select {
		case <-p.done:
			endProbe()
		case <-probeCtx.Done():
		}
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		err := probe(probeCtx)
		if err == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited before it was ready (%v); last lines of %s:\n%s",
				p.name, p.waitErr, p.logPath, p.logTail(30))
		case <-ctx.Done():
			return fmt.Errorf("%s not ready after %s (last probe: %v); last lines of %s:\n%s",
				p.name, timeout, err, p.logPath, p.logTail(30))
		case <-tick.C:
		}
	}
}

// ProcMemory is a process's resident memory now and at its peak, in bytes.
type ProcMemory struct{ RSS, Peak int64 }

// memory reads p's VmRSS and VmHWM from /proc (Linux).
func (p *proc) memory() (ProcMemory, error) {
	if p == nil || p.cmd == nil || p.cmd.Process == nil {
		return ProcMemory{}, errors.New("the process is not running")
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return ProcMemory{}, fmt.Errorf("reading the memory of %s: %w", p.name, err)
	}
	var m ProcMemory
	for line := range strings.Lines(string(data)) {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		switch {
		case err != nil:
		case name == "VmRSS":
			m.RSS = kib << 10
		case name == "VmHWM":
			m.Peak = kib << 10
		}
	}
	return m, nil
}
