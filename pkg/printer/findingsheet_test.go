package printer

import (
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostiletext"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

func TestFindingSheetShowsMessageAndRemedyInFull(t *testing.T) {
	f := diagnose.Finding{
		ID: "subnet-ip-exhaustion", Severity: diagnose.Critical, Node: "ip-10-0-1-2.eu-west-1.compute.internal",
		Resource: "subnet/subnet-0abc", Message: strings.Repeat("twelve free addresses ", 10), Remedy: "add a secondary CIDR",
	}
	sheet := FindingSheet(f, 50, nil)
	flat := strings.Join(strings.Fields(sheet), " ")
	for _, want := range []string{
		"finding/subnet-ip-exhaustion ✖ critical", strings.TrimSpace(strings.Repeat("twelve free addresses ", 10)),
		"Remedy add a secondary CIDR", "Resource: subnet/subnet-0abc", "Node: ip-10-0-1-2.eu-west-1.compute.internal",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("finding sheet lacks %q:\n%s", want, sheet)
		}
	}
	for i, l := range strings.Split(sheet, "\n") {
		if width(l) > 50 && !isCommandLine(l) {
			t.Errorf("line %d is %d columns, want at most 50: %q", i+1, width(l), l)
		}
	}
}

func TestFindingSheetEscapesControlCharacters(t *testing.T) {
	f := diagnose.Finding{ID: "x" + hostiletext.Text, Severity: diagnose.Warning, Node: hostiletext.Text,
		Resource: "subnet/" + hostiletext.Text, Message: hostiletext.Text, Remedy: hostiletext.Text}
	if bad := hostiletext.RawControls(FindingSheet(f, 80, nil), false); len(bad) > 0 {
		t.Errorf("%d raw control characters reach the sheet, e.g. %q", len(bad), bad[0])
	}
}
