package diagnose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// worldsDir holds the checks' cases kept as snapshot files, as `--save-snapshot` writes them:
// testdata/worlds/CHECK-ID/CASE.json (or .json.gz), each beside CASE.golden, the findings
// karpnet makes of it. A case whose name begins with "healthy" is a shape that must raise
// nothing above info from any check; any other case must raise CHECK-ID. `-update` writes the
// golden files; CONTRIBUTING.md says how a saved snapshot becomes a case.
const worldsDir = "testdata/worlds"

// worldGolden is what a world's golden file holds: every finding of every check as a
// "severity id subject" line, and the findings of the world's own check in full.
type worldGolden struct {
	All      []string  `json:"all"`
	Findings []Finding `json:"findings"`
}

// TestWorlds analyses every snapshot file under testdata/worlds with every check, as `check
// --snapshot` does, and holds the findings to the case's golden file and to its name.
func TestWorlds(t *testing.T) {
	paths := worldFiles(t)
	if len(paths) == 0 {
		t.Fatalf("no snapshot files under %s", worldsDir)
	}
	for _, path := range paths {
		rel, _ := filepath.Rel(worldsDir, path)
		t.Run(rel, func(t *testing.T) {
			id, name := filepath.Dir(rel), worldCase(filepath.Base(rel))
			c, ok := checkByID(id)
			if !ok {
				t.Fatalf("%s: the directory names no check (%q); the directory of a case is the ID of the check it is about", path, id)
			}
			s := readWorld(t, path)
			r := Analyze(s, Options{})
			for _, nr := range r.NotRun {
				if nr.ID == id {
					t.Fatalf("%s did not run on %s: it needs %s", id, path, strings.Join(nr.Needs, ", "))
				}
			}
			got := worldGolden{All: worldKeys(r.Findings), Findings: []Finding{}}
			for _, f := range r.Findings {
				if f.ID == id {
					got.Findings = append(got.Findings, f)
				}
			}
			assertCommandScope(t, c, got.Findings)
			if strings.HasPrefix(name, "healthy") {
				for _, f := range r.Findings {
					if f.Severity > Info {
						t.Errorf("%s is a healthy shape but %s raised %s on %s: %s", path, f.ID, f.Severity, f.Subject(), f.Message)
					}
				}
			} else if len(got.Findings) == 0 {
				t.Errorf("%s is a broken case of %s, which raised nothing on it (name the file healthy-... if the shape is healthy)", path, id)
			}
			assertWorldGolden(t, strings.TrimSuffix(strings.TrimSuffix(path, ".gz"), ".json")+".golden", got)
		})
	}
}

// worldFiles lists the snapshot files under worldsDir, sorted.
func worldFiles(t *testing.T) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(worldsDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".json.gz")) {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read %s: %v", worldsDir, err)
	}
	slices.Sort(paths)
	return paths
}

// worldName names a table case's file: healthy-... when it raises nothing above info, else
// broken-..., then the case's name in lower case with dashes.
func worldName(tc checkCase) string {
	kind := "healthy-"
	for _, f := range tc.want {
		if f.Severity > Info {
			kind = "broken-"
		}
	}
	name := strings.Trim(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, strings.ToLower(tc.name)), "-")
	for strings.Contains(name, "--") {
		name = strings.ReplaceAll(name, "--", "-")
	}
	return kind + name
}

// worldCase is a case's name: its file name without the extensions.
func worldCase(base string) string {
	return strings.TrimSuffix(strings.TrimSuffix(base, ".gz"), ".json")
}

// checkByID returns the check with that ID.
func checkByID(id string) (Check, bool) {
	for _, c := range Checks() {
		if c.ID == id {
			return c, true
		}
	}
	return Check{}, false
}

// readWorld reads one snapshot file with the reader `--snapshot` uses.
func readWorld(t *testing.T, path string) *snapshot.Snapshot {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := snapshot.Read(f)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if len(s.Clusters) > 0 {
		t.Fatalf("%s holds %d clusters: a case is one cluster (save it with --context)", path, len(s.Clusters))
	}
	return s
}

// worldKeys gives each finding as a "severity id subject" line.
func worldKeys(fs []Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s %s", f.Severity, f.ID, f.Subject()))
	}
	return out
}

// assertWorldGolden holds got to the golden file at path, or writes it with -update.
func assertWorldGolden(t *testing.T, path string, got worldGolden) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(got); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: run `go test ./pkg/diagnose -run TestWorlds -update` to write it, then read it", err)
	}
	var w worldGolden
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if diff := cmp.Diff(w, got); diff != "" {
		t.Errorf("%s: findings mismatch (-golden +got):\n%s", path, diff)
	}
}

// writeWorld saves s as a case under worldsDir, as `--save-snapshot` would: with
// KARPNET_WRITE_WORLDS=1, a single-check table (runCheckCases) writes each of its cases, which
// is how a table moves to files.
func writeWorld(t *testing.T, id, name string, s *snapshot.Snapshot) {
	t.Helper()
	dir := filepath.Join(worldsDir, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := snapshot.Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
