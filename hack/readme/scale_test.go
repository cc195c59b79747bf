package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/test/scale/results"
)

func TestScaleFiguresComeFromTheResultsFile(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "test", "scale"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := results.File{Rows: []results.Row{{Benchmark: results.Snapshot, Nodes: 10000, Runs: 1, WallSeconds: 1.5,
		PeakRSSMiB: 214, AnalyzeSeconds: 0.8, Commit: "abc1234", Date: "2026-12-04", Machine: "2 cores"}}}
	if err := f.Write(filepath.Join(root, filepath.FromSlash(resultsFile))); err != nil {
		t.Fatal(err)
	}
	doc := "# Scale\n\n" + scaleBegin + "\nold figures\n" + scaleEnd + "\n\nafter\n"
	got, err := renderScale(root, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 10,000 | 1.50 s | 214 MiB | 0.80 s | 1 | abc1234 | 2026-12-04 | 2 cores |", scaleEnd + "\n\nafter\n"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("rendered file lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(string(got), "old figures") {
		t.Errorf("the old figures are still there:\n%s", got)
	}
	if _, err := renderScale(root, []byte("# Scale\n"+scaleBegin+"\n")); err == nil {
		t.Error("a begin marker without its end: got no error")
	}
	if same, err := renderScale(root, []byte("# no figures\n")); err != nil || string(same) != "# no figures\n" {
		t.Errorf("a file without markers: got %q, %v; want it unchanged", same, err)
	}
}
