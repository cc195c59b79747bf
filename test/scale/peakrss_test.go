package scale

import (
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestMeasuredCommandReportsTheChildsOwnPeak holds 256 MiB in this process and starts a small
// command twice: directly, whose ru_maxrss is this process's peak (the reason peakrss exists),
// and under peakrss, which reports the command's own. Exit codes and signals pass through.
func TestMeasuredCommandReportsTheChildsOwnPeak(t *testing.T) {
	launcher := filepath.Join(t.TempDir(), "peakrss")
	if err := BuildPeakRSS(t.Context(), launcher); err != nil {
		t.Fatal(err)
	}
	held := make([]byte, 256<<20)
	for i := range held {
		held[i] = 1
	}

	direct := exec.Command("true")
	if err := direct.Run(); err != nil {
		t.Fatal(err)
	}
	directRSS := direct.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024

	cmd, peak := MeasuredCommand(t.Context(), launcher, "true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	rss, err := peak()
	if err != nil {
		t.Fatal(err)
	}
	if directRSS < 256<<20 {
		t.Logf("started directly, true reported %d MiB: this kernel does not carry the parent's peak over", directRSS>>20)
	}
	if rss <= 0 || rss > 64<<20 {
		t.Errorf("under peakrss, true reported %d bytes of peak RSS, want its own (a few MiB; directly: %d MiB)", rss, directRSS>>20)
	}
	runtime.KeepAlive(held)

	cmd, peak = MeasuredCommand(t.Context(), launcher, "sh", "-c", "exit 3")
	var exit *exec.ExitError
	if err := cmd.Run(); !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("sh -c 'exit 3' under peakrss: %v, want exit code 3", err)
	}
	if _, err := peak(); err != nil {
		t.Errorf("peak RSS of a command that failed: %v", err)
	}

	cmd, peak = MeasuredCommand(t.Context(), launcher, "sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Wait(); !errors.As(err, &exit) || exit.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Errorf("sleep 30 sent SIGTERM under peakrss: %v, want exit code %d", err, 128+int(syscall.SIGTERM))
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("SIGTERM took %v to end the command: not passed on", d)
	}
	if _, err := peak(); err != nil {
		t.Errorf("peak RSS of a command ended by a signal: %v", err)
	}
}
