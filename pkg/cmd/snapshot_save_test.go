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
