package printer

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// isCommandLine reports whether a rendered line is one of a finding's commands, which runs
// past the width rather than break: after the indent, a program remedy commands run.
func isCommandLine(line string) bool {
	s := strings.TrimLeft(ansi.Strip(line), " '") // a program's name may be quoted, as a hostile one is
	return strings.HasPrefix(s, "aws") || strings.HasPrefix(s, "kubectl")
}

// TestRemedyCommandsOnTheirOwnLines: at any width a command is one line of its own, whole,
// so selecting the line copies it; the prose around it wraps.
func TestRemedyCommandsOnTheirOwnLines(t *testing.T) {
	const cmd = "aws ec2 create-route --route-table-id rtb-0340b8097e3fcd96c --destination-cidr-block 0.0.0.0/0 --nat-gateway-id nat-03ab0393441b6aa38"
	f := diagnose.Finding{Remedy: "route the subnet's default traffic through a NAT gateway (the command); or fix it otherwise",
		Commands: []diagnose.Command{{Argv: strings.Fields(cmd)}}}
	for _, w := range []int{40, 80, 200} {
		tx := &text{st: orPlain(nil), cols: w}
		tx.findingRemedy(4, "remedy: ", f, false)
		lines := strings.Split(strings.TrimSuffix(tx.b.String(), "\n"), "\n")
		found := false
		for _, l := range lines {
			if strings.TrimSpace(l) == cmd {
				found = true
			} else if width(l) > w {
				t.Errorf("at %d: prose line of %d columns: %q", w, width(l), l)
			}
		}
		if !found {
			t.Errorf("at %d: no line holds the whole command:\n%s", w, tx.b.String())
		}
	}
}
