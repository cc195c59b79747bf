package cmd

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
)

func TestSnapshotSaveAndReplay(t *testing.T) {
	tests := []struct {
		name string
		file string
		gzip bool
		args []string
	}{
		{name: "json, table", file: "cluster.json", args: []string{"check"}},
		{name: "json, wide", file: "cluster.json", args: []string{"check", "-o", "wide"}},
		{name: "gzip, json", file: "cluster.json.gz", gzip: true, args: []string{"check", "-o", "json"}},
		{name: "gzip, one node", file: "cluster.json.gz", gzip: true, args: []string{"check", demoWarnNode, "--fail-on", "warning"}},
		{name: "describe", file: "cluster.json", args: []string{"describe", "node", demoWarnNode}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			saved := run(t, append(append([]string{"demo"}, tt.args...), "--save-snapshot", path)...)
			if want := "snapshot saved to " + path + "\n"; saved.stderr != want {
				t.Errorf("stderr when saving: got %q, want %q", saved.stderr, want)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("reading the saved snapshot: %v", err)
			}
			if got := bytes.HasPrefix(raw, []byte{0x1f, 0x8b}); got != tt.gzip {
				t.Errorf("%s is gzip: got %v, want %v", tt.file, got, tt.gzip)
			}
			replayed := run(t, append(tt.args, "--snapshot", path)...)
			if replayed.code != saved.code {
				t.Errorf("exit code: saved run %d, replay %d, want the same", saved.code, replayed.code)
			}
			if replayed.stdout != saved.stdout {
				t.Errorf("replay stdout differs from the run that saved it:\n%s\nwant\n%s", replayed.stdout, saved.stdout)
			}
			if replayed.stderr != "" {
				t.Errorf("replay stderr: got %q, want nothing", replayed.stderr)
			}
			if saved.stdout == "" {
				t.Error("stdout: got nothing, want a report")
			}
		})
	}
}

// TestSnapshotReplayMatchesDemo checks that a saved demo snapshot replays to the demo's
// golden report.
func TestSnapshotReplayMatchesDemo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo.json")
	if err := os.WriteFile(path, demo.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "check", "--snapshot", path)
	wantCode(t, r, ExitFindings)
	want := run(t, "demo", "check")
	if r.stdout != want.stdout {
		t.Errorf("check --snapshot of the demo file differs from demo check:\n%s", r.stdout)
	}
}

func TestSnapshotUnreadable(t *testing.T) {
	full := demo.Bytes()
	var doc map[string]any
	if err := json.Unmarshal(full, &doc); err != nil {
		t.Fatalf("decoding the demo snapshot: %v", err)
	}
	doc["formatVersion"] = 99
	newer, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	doc["formatVersion"], doc["kind"] = 1, "Report"
	wrongKind, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(full); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		file    string
		content []byte // nil: the file does not exist
		problem string
	}{
		{name: "truncated", file: "cut.json", content: full[:len(full)/2], problem: "truncated"},
		{name: "truncated gzip", file: "cut.json.gz", content: gz.Bytes()[:gz.Len()/2], problem: "truncated"},
		{name: "empty", file: "empty.json", content: []byte{}, problem: "empty or truncated"},
		{name: "not JSON", file: "notes.txt", content: []byte("these are not the nodes you are looking for\n"), problem: "not valid JSON"},
		{name: "newer format version", file: "future.json", content: newer, problem: "format version 99 is newer"},
		{name: "another kind", file: "report.json", content: wrongKind, problem: reportMistake},
		{name: "missing", file: "missing.json", problem: "no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			if tt.content != nil {
				if err := os.WriteFile(path, tt.content, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, args := range [][]string{
				{"check", "--snapshot", path},
				{"describe", "node", demoNode, "--snapshot", path},
			} {
				r := run(t, args...)
				wantCode(t, r, ExitCollect)
				wantOneErrorLine(t, r, path, tt.problem)
				if r.stdout != "" {
					t.Errorf("%v: stdout: got %q, want nothing", args, r.stdout)
				}
			}
		})
	}
}

func TestSnapshotWriteFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no-such-dir", "cluster.json")
	r := run(t, "demo", "check", "--save-snapshot", path)
	wantCode(t, r, ExitCollect)
	wantOneErrorLine(t, r, path, "no such file or directory")
	if r.stdout != "" {
		t.Errorf("stdout: got %q, want nothing when the snapshot cannot be saved", r.stdout)
	}
}

func TestSnapshotUsage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cluster.json")
	if err := os.WriteFile(path, demo.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{name: "with demo", args: []string{"demo", "check", "--snapshot", path}, want: []string{"--snapshot", "demo"}},
		{name: "with demo describe", args: []string{"demo", "describe", "node", demoNode, "--snapshot", path}, want: []string{"--snapshot", "demo"}},
		{name: "same file saved", args: []string{"check", "--snapshot", path, "--save-snapshot", path}, want: []string{"same file"}},
		{name: "node not in the snapshot", args: []string{"check", "--snapshot", path, "ip-192-0-2-1.ec2.internal"}, want: []string{`"ip-192-0-2-1.ec2.internal" not found`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.args...)
			wantCode(t, r, ExitUsage)
			wantOneErrorLine(t, r, tt.want...)
		})
	}
	raw, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(raw, demo.Bytes()) {
		t.Errorf("the snapshot file changed after usage errors (err %v)", err)
	}
}
