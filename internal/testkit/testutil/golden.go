package testutil

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// update is the -update flag of every test binary that imports this package.
var update = flag.Bool("update", false, "rewrite the golden files from the output of the tests")

// Update reports whether the test binary runs with -update, for tests that rewrite
// something other than a golden file given to Assert.
func Update() bool { return *update }

// Assert compares got with the golden file at path (relative to the package directory). With
// -update it writes got to path instead, creating its directory. A difference fails the test
// with a diff and the command that rewrites the file.
func Assert(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("creating the directory of %s: %v", path, err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatalf("writing golden %s: %v", path, err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden %s: %v (run %s to create it)", path, err, RegenerateCommand(t))
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("output differs from %s (-want +got); if the change is intended, run %s:\n%s",
			path, RegenerateCommand(t), diff)
	}
}

// RegenerateCommand returns the go test command that reruns t's top-level test with -update,
// from the module root.
func RegenerateCommand(t testing.TB) string {
	test, _, _ := strings.Cut(t.Name(), "/")
	return "go test " + packageDir() + " -run '^" + test + "$' -update"
}

// packageDir returns the current directory relative to the module root, as "./pkg/x", or "."
// when there is no go.mod above it.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		if filepath.Dir(dir) == dir {
			return "."
		}
	}
}
