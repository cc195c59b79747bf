package scale

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// BuildPeakRSS builds test/scale/cmd/peakrss into out: every process whose peak RSS is
// measured runs under it (see MeasuredCommand).
func BuildPeakRSS(ctx context.Context, out string) error {
	return goBuild(ctx, out, "./test/scale/cmd/peakrss")
}

// MeasuredCommand returns the command that runs bin with args under the peakrss binary at
// launcher, and the function that reads bin's peak RSS, in bytes, once the command has ended.
// The ru_maxrss of a child this process starts directly would be at least this process's own
// peak (os/exec starts children with vfork, and exec keeps the high-water mark of the memory it
// replaces): a harness that holds a large cluster would report its own size. The exit code
// and standard streams are bin's.
func MeasuredCommand(ctx context.Context, launcher, bin string, args ...string) (*exec.Cmd, func() (int64, error)) {
	file := filepath.Join(os.TempDir(), fmt.Sprintf("peakrss-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if f, err := os.CreateTemp("", "peakrss-*"); err == nil {
		file = f.Name()
		_ = f.Close()
	}
	cmd := exec.CommandContext(ctx, launcher, append([]string{file, bin}, args...)...)
	// When ctx ends, bin gets SIGTERM through peakrss, then peakrss and bin SIGKILL.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	return cmd, func() (int64, error) {
		defer os.Remove(file)
		b, err := os.ReadFile(file)
		var n int64
		if err == nil {
			n, err = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		}
		if err != nil {
			return 0, fmt.Errorf("reading the peak RSS of %s: %w", filepath.Base(bin), err)
		}
		return n, nil
	}
}
