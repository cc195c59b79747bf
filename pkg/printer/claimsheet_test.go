package printer

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
)

func TestNodeClaimSheetGolden(t *testing.T) {
	tests := []struct {
		golden string
		claim  diagnose.NodeClaimReport
		format Format
	}{
		{golden: "describe-nodeclaim-failed.table.golden", claim: failedClaimReport(), format: Table},
		{golden: "describe-nodeclaim-unregistered.table.golden", claim: unregClaimReport(), format: Table},
		{golden: "describe-nodeclaim-launching.table.golden", claim: launchingClaimReport(), format: Table},
		{golden: "describe-nodeclaim-unregistered.json.golden", claim: unregClaimReport(), format: JSON},
		{golden: "describe-nodeclaim-failed.yaml.golden", claim: failedClaimReport(), format: YAML},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var buf bytes.Buffer
			if err := PrintNodeClaim(&buf, tt.claim, takenAt(), tt.format, plainStyles()); err != nil {
				t.Fatalf("printing: %v", err)
			}
			testutil.Assert(t, filepath.Join("testdata", tt.golden), buf.String())
		})
	}
}

func TestNodeClaimSheetJSONIsTheClaim(t *testing.T) {
	var buf bytes.Buffer
	if err := PrintNodeClaim(&buf, unregClaimReport(), takenAt(), JSON, nil); err != nil {
		t.Fatal(err)
	}
	var got diagnose.NodeClaimReport
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("decoding %s: %v", buf.String(), err)
	}
	if diff := cmp.Diff(publicClaim(unregClaimReport()), got, cmp.AllowUnexported(wayout.WayOut{})); diff != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", diff)
	}
}

func TestNodeClaimSheetFitsAndEscapes(t *testing.T) {
	c := unregClaimReport()
	c.Name = "evil\x1b]0;owned\x07" + strings.Repeat("x", 300)
	c.Conditions[1].Message = "line\nbreak \x1b[2J" + strings.Repeat("y ", 200)
	c.Events[11].Reason = "\x9b31m" + strings.Repeat("R", 200)
	for _, w := range []int{40, 60, 100} {
		out := NodeClaimSheet(c, takenAt(), w, colourStyles())
		for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if got := width(l); got > w {
				t.Errorf("width %d: line %d is %d columns: %q", w, i+1, got, l)
			}
		}
		plain := NodeClaimSheet(c, takenAt(), w, nil)
		for _, bad := range []string{"\x1b]", "\x07", "\x9b", "\x1b[2J", "\n\n"} {
			if strings.Contains(plain, bad) {
				t.Errorf("width %d: sheet holds %q", w, bad)
			}
		}
	}
}

func TestNodeClaimSheetEventsNewestLast(t *testing.T) {
	out := NodeClaimSheet(unregClaimReport(), takenAt(), 0, nil)
	if !strings.Contains(out, "Events (the newest 10 of 12)") {
		t.Errorf("sheet does not say it shows 10 of 12 events:\n%s", out)
	}
	// The events are attempts a..l, oldest first: c to l show, a and b do not.
	if strings.Contains(out, "attempt a") || strings.Contains(out, "attempt b") || !strings.Contains(out, "attempt c") ||
		strings.Index(out, "attempt c") > strings.Index(out, "attempt l") {
		t.Errorf("want events c..l, oldest first, got:\n%s", out)
	}
}
