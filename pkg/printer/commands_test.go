package printer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// TestRemedyCommandsOnLinesOfTheirOwn prints a finding with a long command in every text view
// that shows remedies: each command is one line, whole, with nothing else on it, and JUnit and
// SARIF carry it too. (The sheets the TUI shows wrap it instead: TestScreenSheetsWrapCommands.)
func TestRemedyCommandsOnLinesOfTheirOwn(t *testing.T) {
	long := strings.Repeat("x", 150)
	cmds := []diagnose.Command{
		{Argv: []string{"kubectl", "patch", "nodepool", "web", "--type", "json", "-p", `[{"op":"add","value":"` + long + `'"}]`},
			Changes: "nodepool/web"},
		{Argv: []string{"aws", "ec2", "describe-instances", "--instance-ids", "i-0abc"}, ReadOnly: true},
	}
	f := diagnose.Finding{ID: "nodepool-startup-taint-missing", Severity: diagnose.Warning, Resource: "nodepool/web",
		Message: "the message", Remedy: "add the taint (the commands)", Commands: cmds}
	r := diagnose.Report{Findings: []diagnose.Finding{f}}
	var wide bytes.Buffer
	if err := PrintReport(&wide, r, Wide, plainStyles()); err != nil {
		t.Fatal(err)
	}
	narrow := plainStyles()
	narrow.Width = 40
	var wide40 bytes.Buffer
	if err := PrintReport(&wide40, r, Wide, narrow); err != nil {
		t.Fatal(err)
	}
	views := map[string]string{"check -o wide": wide.String(), "check -o wide at 40 columns": wide40.String()}
	for name, out := range views {
		lines := strings.Split(out, "\n")
		for _, c := range cmds {
			want := c.String()
			found := false
			for _, l := range lines {
				if strings.TrimSpace(l) == want {
					found = true
				}
			}
			if !found {
				t.Errorf("%s has no line holding only %s:\n%s", name, want, out)
			}
		}
	}
	for _, c := range cmds {
		if got := findingText(f); !strings.Contains(got, "\n"+c.String()) {
			t.Errorf("the CI text lacks %s on a line of its own: %s", c, got)
		}
		if got := sarifResultOf(f, 0).Message.Text; !strings.Contains(got, "\n"+c.String()) {
			t.Errorf("the SARIF message lacks %s on a line of its own: %s", c, got)
		}
	}
}
