// Package aptinstall finds a program the tests need and, when it is missing, installs its
// Debian package with apt-get the way the e2e harness installs etcd and Prometheus: only as
// root, non-interactively, waiting for a dpkg lock another install holds, updating the
// package lists and trying again when the first install fails. It fails with the reason and
// the command to run by hand when it cannot, so `go test ./...` on a fresh machine sets up
// what it needs or says exactly what is missing.
package aptinstall

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// Tool is a program and the Debian package that brings it.
type Tool struct {
	// Binary is the program's name on PATH, e.g. xmllint.
	Binary string
	// Package is the Debian package that installs it, e.g. libxml2-utils.
	Package string
}

// Hint is the command that installs t by hand.
func (t Tool) Hint() string { return "apt-get install " + t.Package }

// system is what Find needs of the machine; tests replace it.
type system struct {
	lookPath func(string) (string, error)
	euid     func() int
	aptGet   func(ctx context.Context, args ...string) ([]byte, error)
	log      io.Writer
}

// host is the machine the tests run on.
var host = system{lookPath: exec.LookPath, euid: os.Geteuid, aptGet: aptGet, log: os.Stderr}

// found caches Find's answer per binary and PATH for the process: one install attempt,
// however many tests ask (a test that hides a program with another PATH asks apart).
var found sync.Map // binary, NUL, PATH -> *answer

type answer struct {
	once sync.Once
	path string
	err  error
}

// Find returns the path of t's binary, installing t's package first when the binary is not on
// PATH (see the package comment). Its answer is kept for the process.
func Find(ctx context.Context, t Tool) (string, error) {
	a, _ := found.LoadOrStore(t.Binary+"\x00"+os.Getenv("PATH"), &answer{})
	ans := a.(*answer)
	ans.once.Do(func() { ans.path, ans.err = host.find(ctx, t) })
	return ans.path, ans.err
}

// find is Find without the cache.
func (s system) find(ctx context.Context, t Tool) (string, error) {
	if p, err := s.lookPath(t.Binary); err == nil {
		return p, nil
	}
	if s.euid() != 0 {
		return "", fmt.Errorf("%s is not on PATH, and installing %s needs root: run %s", t.Binary, t.Package, t.Hint())
	}
	if _, err := s.lookPath("apt-get"); err != nil {
		return "", fmt.Errorf("%s is not on PATH and there is no apt-get to install %s: install it with the system's "+
			"package manager", t.Binary, t.Package)
	}
	fmt.Fprintf(s.log, "%s is not on PATH: running apt-get install -y %s\n", t.Binary, t.Package)
	install := []string{"install", "-y", "--no-install-recommends", t.Package}
	out, err := s.aptGet(ctx, install...)
	if err != nil {
		// The package lists of a fresh machine may be empty or stale.
		if upd, uerr := s.aptGet(ctx, "update"); uerr != nil {
			return "", fmt.Errorf("%s is not on PATH and apt-get update failed: %w\n%s\nrun %s", t.Binary, uerr,
				lastLines(string(upd), 20), t.Hint())
		}
		out, err = s.aptGet(ctx, install...)
	}
	if err != nil {
		return "", fmt.Errorf("%s is not on PATH and apt-get install %s failed: %w\n%s\nrun %s", t.Binary, t.Package, err,
			lastLines(string(out), 20), t.Hint())
	}
	p, err := s.lookPath(t.Binary)
	if err != nil {
		return "", fmt.Errorf("apt-get installed %s but %s is still not on PATH: %w", t.Package, t.Binary, err)
	}
	return p, nil
}

// aptGet runs apt-get non-interactively, waiting up to 5 minutes for a dpkg lock held by
// another install (test packages run in parallel and may install at the same time).
func aptGet(ctx context.Context, args ...string) ([]byte, error) {
	args = append([]string{"-o", "DPkg::Lock::Timeout=300", "-q"}, args...)
	cmd := exec.CommandContext(ctx, "apt-get", args...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	return cmd.CombinedOutput()
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
