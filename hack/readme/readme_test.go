package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// root is the repository root, seen from this package.
const root = "../.."

// maxREADMELines keeps README.md a front door; the manual is in docs/.
const maxREADMELines = 300

// TestDocsAreGenerated fails when the catalogue table or the demo output of README.md or of a
// docs/*.md page differ from what the code generates, naming each such file.
func TestDocsAreGenerated(t *testing.T) {
	files, err := docFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(files, "docs/checks.md") {
		t.Fatalf("rendering %v: want README.md and docs/*.md, docs/checks.md among them", files)
	}
	for _, name := range files {
		old, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		want, err := renderFile(root, old)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(old), "\n")); diff != "" {
			t.Errorf("%s is out of date: run %s and commit it (-generated +%s):\n%s", name, regenerate, name, diff)
		}
	}
}

// TestCatalogueIsInChecksPage keeps the one catalogue block where the other pages link to it.
func TestCatalogueIsInChecksPage(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root, "docs", "checks.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	if n := countLines(lines, catalogueBegin); n != 1 {
		t.Errorf("docs/checks.md has %d lines %s, want 1: the catalogue table lives there", n, catalogueBegin)
	}
}

// TestREADMEIsShort keeps README.md at most maxREADMELines lines: what does not fit belongs in docs/.
func TestREADMEIsShort(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	// As wc -l counts them: one line per newline, and a last line without one.
	n := strings.Count(string(raw), "\n")
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		n++
	}
	if n > maxREADMELines {
		t.Errorf("README.md has %d lines, more than %d: move the detail to a page in docs/ and link to it", n, maxREADMELines)
	}
}

func TestRenderCatalogueMarkers(t *testing.T) {
	table, err := renderCatalogue([]string{catalogueBegin, catalogueEnd})
	if err != nil {
		t.Fatal(err)
	}
	if len(table) < 4 || !strings.HasPrefix(table[1], "| id |") || table[len(table)-1] != catalogueEnd {
		t.Fatalf("the catalogue block renders as %q", table)
	}
	tests := []struct {
		name    string
		lines   []string
		want    []string
		wantErr string
	}{
		{name: "no block", lines: []string{"# page", "text"}, want: []string{"# page", "text"}},
		{name: "markers quoted in a line are text", lines: []string{"see `" + catalogueEnd + "`", "x " + catalogueBegin},
			want: []string{"see `" + catalogueEnd + "`", "x " + catalogueBegin}},
		{name: "one block", lines: []string{"# page", catalogueBegin, "| old |", catalogueEnd, "after"},
			want: append(append([]string{"# page"}, table...), "after")},
		{name: "two blocks", lines: []string{catalogueBegin, catalogueEnd, catalogueBegin, catalogueEnd},
			wantErr: "2 catalogue blocks: a file holds at most one"},
		{name: "begin only", lines: []string{catalogueBegin, "| old |"}, wantErr: "without its pair"},
		{name: "end only", lines: []string{"| old |", catalogueEnd}, wantErr: "without its pair"},
		{name: "end before begin", lines: []string{catalogueEnd, catalogueBegin}, wantErr: "without its pair"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := renderCatalogue(tt.lines)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDocFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"README.md", "docs/b.md", "docs/a.md", "docs/notes.txt", "CHANGELOG.md"} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("# x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := docFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"README.md", "docs/a.md", "docs/b.md"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func countLines(lines []string, line string) int {
	n := 0
	for _, l := range lines {
		if l == line {
			n++
		}
	}
	return n
}
