package cmd

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

// reportMistake is what replaying a report instead of a snapshot says.
const reportMistake = "this is a report (check -o json), not a snapshot: save one with --save-snapshot FILE"

// TestSnapshotGivenAReport checks that a report saved from check -o json or -o yaml, plain or
// gzipped, or any document of kind Report or with findings and a summary, is refused as a
// report with the way to save a snapshot: exit 3 for --snapshot, and for diff's inputs the
// usage error (exit 2) diff gives every file it cannot read.
func TestSnapshotGivenAReport(t *testing.T) {
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		if _, err := zw.Write(b); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	asJSON := run(t, "demo", "check", "-o", "json")
	asYAML := run(t, "demo", "check", "-o", "yaml")
	for _, r := range []result{asJSON, asYAML} {
		if r.stdout == "" || r.code != ExitFindings {
			t.Fatalf("demo check: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	}
	snap := filepath.Join(t.TempDir(), "demo.json")
	wantCode(t, run(t, "demo", "check", "--save-snapshot", snap), ExitFindings)

	tests := []struct {
		name, file string
		content    []byte
	}{
		{name: "check -o json", file: "r.json", content: []byte(asJSON.stdout)},
		{name: "check -o yaml", file: "r.yaml", content: []byte(asYAML.stdout)},
		{name: "check -o json gzipped", file: "r.json.gz", content: gz([]byte(asJSON.stdout))},
		{name: "check -o yaml gzipped", file: "r.yaml.gz", content: gz([]byte(asYAML.stdout))},
		{name: "kind Report only", file: "kind.json", content: []byte(`{"kind":"Report"}`)},
		{name: "findings and summary", file: "bare.json", content: []byte(`{"summary":{"listed":1},"nodes":[{"status":"ok"}],"findings":[]}`)},
		{name: "findings and summary in YAML", file: "bare.yaml", content: []byte("summary:\n  listed: 1\nfindings: []\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, tt.content, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"check", "--snapshot", path},
				{"describe", "node", demoNode, "--snapshot", path},
			} {
				r := run(t, args...)
				wantCode(t, r, ExitCollect)
				wantOneErrorLine(t, r, path, reportMistake)
				if r.stdout != "" {
					t.Errorf("%v: stdout: got %q, want nothing", args, r.stdout)
				}
			}
			for _, args := range [][]string{{"diff", path, snap}, {"diff", snap, path}} {
				r := run(t, args...)
				wantCode(t, r, ExitUsage)
				wantOneErrorLine(t, r, path, reportMistake)
			}
		})
	}
}
