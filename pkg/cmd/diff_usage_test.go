package cmd

import (
	"os"
	"testing"
)

// TestDiffUsage checks that wrong arguments and unreadable snapshot files exit 2 with one line
// that names what is wrong, print nothing on stdout and never read the live cluster.
func TestDiffUsage(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		setup func(t *testing.T)
		want  []string
	}{
		{name: "no snapshot", args: []string{"diff"}, want: []string{"OLD and NEW", "got 0 arguments"}},
		{name: "three snapshots", args: []string{"diff", diffOld, diffNew, diffFixed}, want: []string{"OLD and NEW", "got 3 arguments"}},
		{name: "--snapshot", args: []string{"diff", diffOld, "--snapshot", diffNew}, want: []string{"--snapshot does not apply", "diff OLD NEW"}},
		{name: "--save-snapshot with two files", args: []string{"diff", diffOld, diffNew, "--save-snapshot", "x.json"}, want: []string{"--save-snapshot", "diff OLD alone"}},
		{name: "--save-snapshot over OLD", args: []string{"diff", diffOld, "--save-snapshot", diffOld}, want: []string{"same file"}},
		{name: "wide", args: []string{"diff", diffOld, diffNew, "-o", "wide"}, want: []string{`-o/--output "wide"`, "json or yaml"}},
		{name: "bad --fail-on", args: []string{"diff", diffOld, diffNew, "--fail-on", "loud"}, want: []string{`--fail-on "loud"`, "never"}},
		{name: "OLD missing", args: []string{"diff", "gone.json", diffNew}, want: []string{"gone.json", "no such file or directory"}},
		{name: "OLD missing, live NEW", args: []string{"diff", "gone.json"}, want: []string{"gone.json", "no such file or directory"}},
		{
			name: "NEW truncated", args: []string{"diff", diffOld, "cut.json.gz"},
			setup: func(t *testing.T) {
				raw, err := os.ReadFile(diffNew)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile("cut.json.gz", raw[:len(raw)/2], 0o600); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"cut.json.gz", "truncated"},
		},
		{
			name: "NEW not a snapshot", args: []string{"diff", diffOld, "report.json"},
			setup: func(t *testing.T) {
				if err := os.WriteFile("report.json", []byte(`{"kind":"Report"}`), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"report.json", reportMistake},
		},
		{name: "over --snapshot-max-size", args: []string{"diff", diffOld, diffNew, "--snapshot-max-size", "64Ki"}, want: []string{diffOld, "64"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writeDiffSnapshots(t)
			if tt.setup != nil {
				tt.setup(t)
			}
			r := run(t, tt.args...)
			wantCode(t, r, ExitUsage)
			wantOneErrorLine(t, r, tt.want...)
			if r.stdout != "" {
				t.Errorf("stdout: got %q, want nothing", r.stdout)
			}
		})
	}
}
