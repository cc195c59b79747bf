package cmd

import (
	"bytes"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSnapshotSaveKeepsOldFileOnFailure: a --save-snapshot that cannot be written in full
// (here a file-size limit of 4 KiB, as ulimit -f sets) fails with exit 3 and leaves the old
// snapshot whole, with no temporary file beside it.
func TestSnapshotSaveKeepsOldFileOnFailure(t *testing.T) {
	if path := os.Getenv("KARPNET_TEST_FSIZE_SAVE"); path != "" {
		signal.Ignore(syscall.SIGXFSZ)
		lim := syscall.Rlimit{Cur: 4096, Max: 4096}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
			t.Fatal(err)
		}
		r := run(t, "demo", "check", "--save-snapshot", path)
		os.Stderr.WriteString(r.stderr)
		os.Exit(r.code)
	}
	dir := t.TempDir()
	for _, name := range []string{"cluster.json", "cluster.json.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			old := bytes.Repeat([]byte("old snapshot "), 1000)
			if err := os.WriteFile(path, old, 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestSnapshotSaveKeepsOldFileOnFailure$")
			cmd.Env = append(os.Environ(), "KARPNET_TEST_FSIZE_SAVE="+path)
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitCollect {
				t.Errorf("child: got %v, want exit %d; output:\n%s", err, ExitCollect, out)
			}
			if !strings.Contains(string(out), "file too large") {
				t.Errorf("child output: got %q, want the write's error", out)
			}
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, old) {
				t.Errorf("old snapshot: got %d bytes (%v), want the %d old bytes whole", len(got), err, len(old))
			}
			wantOnlyFiles(t, dir, "cluster.json", "cluster.json.gz")
		})
	}
}

// TestSnapshotSaveReplacesAtomically: a saved snapshot replaces the old file whole, mode 0600
// even when the old file was 0644, and leaves no temporary file.
func TestSnapshotSaveReplacesAtomically(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cluster.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantCode(t, run(t, "demo", "check", "--save-snapshot", path), ExitFindings)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode: got %v, want 0600", st.Mode().Perm())
	}
	wantCode(t, run(t, "check", "--snapshot", path), ExitFindings)
	wantOnlyFiles(t, dir, "cluster.json")
}

// wantOnlyFiles fails the test when dir holds other files than names (a temporary file left).
func wantOnlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("%s holds %s, want only %v", dir, e.Name(), names)
		}
	}
}

// TestSnapshotSaveRefusesNonRegular: --save-snapshot over a symlink, a directory, a FIFO or a
// device is a usage error (exit 2) that changes nothing there: neither the target's mode nor
// its content.
func TestSnapshotSaveRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, kind string }{
		{link, "a symlink"},
		{dir, "a directory"},
		{fifo, "a FIFO"},
	}
	// A character device like /dev/null, made in the test's directory: a test that failed
	// must not replace the system's own. Only root can make one.
	dev := filepath.Join(dir, "null.json")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		tests = append(tests, struct{ path, kind string }{dev, "a device"})
	} else {
		t.Logf("no device case: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			before, err := os.Lstat(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			r := run(t, "demo", "check", "--save-snapshot", tt.path)
			wantCode(t, r, ExitUsage)
			wantOneErrorLine(t, r, "--save-snapshot "+tt.path+" is "+tt.kind, "name a regular file or a new path, or - for standard output")
			after, err := os.Lstat(tt.path)
			if err != nil || after.Mode() != before.Mode() {
				t.Errorf("mode: got %v (%v), want %v unchanged", after.Mode(), err, before.Mode())
			}
		})
	}
	if got, err := os.ReadFile(target); err != nil || string(got) != "keep" {
		t.Errorf("symlink's target: got %q (%v), want it unchanged", got, err)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o644 {
		t.Errorf("symlink's target mode: got %v, want 0644 unchanged", st.Mode().Perm())
	}
}

// TestSnapshotSaveToStdout: --save-snapshot - writes the snapshot to standard output, which
// reads back as the same snapshot, ahead of the report.
func TestSnapshotSaveToStdout(t *testing.T) {
	t.Chdir(t.TempDir())
	r := run(t, "demo", "check", "-o", "json", "--save-snapshot", "-")
	wantCode(t, r, ExitFindings)
	if !strings.HasPrefix(r.stdout, "{") || !strings.Contains(r.stdout, `"kind":"Report"`) && !strings.Contains(r.stdout, `"kind": "Report"`) {
		t.Fatalf("stdout: got %.200q..., want the snapshot, then the report", r.stdout)
	}
	if strings.Contains(r.stderr, "snapshot saved") {
		t.Errorf("stderr: got %q, want no saved line for standard output", r.stderr)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Errorf("a file named - was written")
	}
}
