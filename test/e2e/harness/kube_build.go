package harness

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// kubeCacheEnv names the directory that caches the built kube-apiserver.
const kubeCacheEnv = "KARPNET_E2E_CACHE"

// KubeAPIServerBinary returns the path of a kube-apiserver built from the module in
// test/e2e/kube-apiserver, at the k8s.io/kubernetes version its go.mod requires. The binary
// is cached as kube-apiserver-VERSION in $KARPNET_E2E_CACHE, or else in karpnet-e2e under
// the user cache directory, and built with the go command when missing: about five minutes
// on two cores with a cold Go build cache. A file lock keeps concurrent test processes from
// building it twice, and the binary appears only once it is complete.
func KubeAPIServerBinary(ctx context.Context) (string, error) {
	src, err := kubeAPIServerSource()
	if err != nil {
		return "", err
	}
	version, err := kubeModuleVersion(filepath.Join(src, "go.mod"), "k8s.io/kubernetes")
	if err != nil {
		return "", err
	}
	cache, err := kubeCacheDir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(cache, "kube-apiserver-"+version)
	if kubeIsExecutable(bin) {
		return bin, nil
	}
	unlock, err := kubeLockFile(ctx, bin+".lock")
	if err != nil {
		return "", err
	}
	defer unlock()
	if kubeIsExecutable(bin) { // built by another process while this one waited
		return bin, nil
	}
	if err := kubeBuildAPIServer(ctx, src, version, bin); err != nil {
		return "", err
	}
	return bin, nil
}

// kubeBuildAPIServer runs go build in src and renames the result to bin.
func kubeBuildAPIServer(ctx context.Context, src, version, bin string) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("building kube-apiserver %s: the go command is not on PATH: %w; install Go or set %s to a directory holding kube-apiserver-%s",
			version, err, kubeCacheEnv, version)
	}
	logPath := bin + ".build.log"
	logFile, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("creating the kube-apiserver build log: %w", err)
	}
	defer logFile.Close()
	tmp := fmt.Sprintf("%s.tmp-%d", bin, os.Getpid())
	defer os.Remove(tmp)

	major, minor, _ := strings.Cut(strings.TrimPrefix(version, "v"), ".")
	minor, _, _ = strings.Cut(minor, ".")
	pkg := "k8s.io/component-base/version"
	ldflags := strings.Join([]string{
		"-s", "-w",
		"-X", pkg + ".gitVersion=" + version,
		"-X", pkg + ".gitMajor=" + major,
		"-X", pkg + ".gitMinor=" + minor,
		"-X", pkg + ".gitTreeState=clean",
	}, " ")
	fmt.Fprintf(os.Stderr, "harness: building kube-apiserver %s into %s (minutes with a cold Go cache; log in %s)\n",
		version, bin, logPath)
	start := time.Now()
	cmd := exec.CommandContext(ctx, goBin, "build", "-ldflags="+ldflags, "-o", tmp, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if err := cmd.Run(); err != nil {
		data, _ := os.ReadFile(logPath)
		return fmt.Errorf("building kube-apiserver %s in %s: %w; build output:\n%s\nfix the module in %s and run the tests again",
			version, src, err, kubeLastLines(string(data), 30), src)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return fmt.Errorf("installing the built kube-apiserver: %w", err)
	}
	fmt.Fprintf(os.Stderr, "harness: built kube-apiserver %s in %s\n", version, time.Since(start).Round(time.Second))
	return nil
}

// kubeAPIServerSource finds the test/e2e/kube-apiserver module: beside this source file, or
// else above the working directory.
func kubeAPIServerSource() (string, error) {
	rel := filepath.Join("test", "e2e", "kube-apiserver")
	if _, file, _, ok := runtime.Caller(0); ok {
		dir := filepath.Join(filepath.Dir(file), "..", "kube-apiserver")
		if kubeIsFile(filepath.Join(dir, "go.mod")) {
			return filepath.Clean(dir), nil
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the kube-apiserver module: %w", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if kubeIsFile(filepath.Join(dir, rel, "go.mod")) {
			return filepath.Join(dir, rel), nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("finding the kube-apiserver module: no %s above %s; run the tests from the karpnet checkout", rel, wd)
		}
	}
}

// kubeModuleVersion returns the version of module mod required in the go.mod at path.
func kubeModuleVersion(path, mod string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "require "))
		if len(fields) >= 2 && fields[0] == mod && strings.HasPrefix(fields[1], "v") {
			return fields[1], nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return "", fmt.Errorf("%s does not require %s; add it to that go.mod", path, mod)
}

// kubeCacheDir returns, and creates, the directory that caches built binaries.
func kubeCacheDir() (string, error) {
	dir := os.Getenv(kubeCacheEnv)
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("finding a cache directory: %w; set %s", err, kubeCacheEnv)
		}
		dir = filepath.Join(base, "karpnet-e2e")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("creating the cache directory: %w; set %s to a writable directory", err, kubeCacheEnv)
	}
	return dir, nil
}

// kubeLockFile takes an exclusive lock on path, waiting until ctx is done, and returns its
// release.
func kubeLockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening lock %s: %w", path, err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for lock %s held by another build: %w", path, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// kubeIsExecutable reports whether path is a regular file with an execute bit.
func kubeIsExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// kubeIsFile reports whether path is a regular file.
func kubeIsFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// kubeLastLines returns the last n lines of s.
func kubeLastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
