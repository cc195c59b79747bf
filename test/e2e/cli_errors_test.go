package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDidYouMeanThroughKubectl runs misspelt commands through the real kubectl: the plugin's
// suggestion reaches the user on one line, exit 2.
func TestDidYouMeanThroughKubectl(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"chek"}, `unknown command "chek" for "kubectl karpnet": did you mean check`},
		{[]string{"describe", "nod", "x"}, `unknown command "nod" for "kubectl karpnet describe": did you mean node,`},
		{[]string{"explain", "subnet-ip-exhaustoin"}, "did you mean subnet-ip-exhaustion?"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := karpnet(t, runOpts{}, tc.args...)
			wantCode(t, r, 2)
			if !strings.Contains(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("stderr: got %q, want one line containing %q", r.stderr, tc.want)
			}
		})
	}
}

// TestReportIsNotASnapshot saves the live cluster's report as JSON and YAML and gives each to
// --snapshot: exit 3, saying it is a report and how to save a snapshot.
func TestReportIsNotASnapshot(t *testing.T) {
	for _, format := range []string{"json", "yaml"} {
		t.Run(format, func(t *testing.T) {
			r := karpnet(t, runOpts{}, "check", "-o", format)
			if r.code != 0 && r.code != 1 {
				t.Fatalf("check -o %s: exit %d, stderr %q", format, r.code, r.stderr)
			}
			path := filepath.Join(t.TempDir(), "report."+format)
			if err := os.WriteFile(path, []byte(r.stdout), 0o600); err != nil {
				t.Fatal(err)
			}
			r = karpnet(t, runOpts{}, "check", "--snapshot", path)
			wantCode(t, r, 3)
			want := path + ": this is a report (check -o json), not a snapshot: save one with --save-snapshot FILE"
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr: got %q, want it to contain %q", r.stderr, want)
			}
		})
	}
}
