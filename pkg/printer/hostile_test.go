package printer

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostiletext"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// textRenders returns every text rendering of r: check table and wide, the describe sheets,
// and NodeSheet of each node at 40 and 100 columns, with colour on and off.
func textRenders(t testing.TB, r diagnose.Report) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, colour := range []bool{false, true} {
		st, name := plainStyles(), "plain "
		if colour {
			st, name = colourStyles(), "colour "
		}
		for _, f := range []Format{Table, Wide} {
			var check, nodes bytes.Buffer
			if err := PrintReport(&check, r, f, st); err != nil {
				t.Fatalf("PrintReport %s: %v", f, err)
			}
			if err := PrintNodes(&nodes, r, f, st); err != nil {
				t.Fatalf("PrintNodes %s: %v", f, err)
			}
			out[name+"check "+string(f)] = check.String()
			out[name+"describe "+string(f)] = nodes.String()
		}
		for i, n := range r.Nodes {
			for _, w := range []int{40, 100} {
				out[fmt.Sprintf("%ssheet %d at %d", name, i, w)] = NodeSheet(n, nil, w, st)
			}
		}
	}
	return out
}

// TestTextOutputEscapesControlCharacters prints a report whose every string carries escape
// sequences and control characters: none reaches the output raw, each is shown escaped.
func TestTextOutputEscapesControlCharacters(t *testing.T) {
	r := hostiletext.Poison(stressReport())
	for name, out := range textRenders(t, r) {
		t.Run(name, func(t *testing.T) {
			if bad := hostiletext.RawControls(out, strings.HasPrefix(name, "colour")); len(bad) > 0 {
				t.Errorf("%d raw control characters reach the output, e.g. %q", len(bad), bad[0])
			}
			if strings.HasSuffix(name, " at 40") {
				return // wrapping splits the escaped text across lines
			}
			if !strings.Contains(out, hostiletext.Escaped) {
				t.Errorf("the output does not show the control characters escaped:\n%s", out)
			}
		})
	}
}

// TestTextOutputKeepsLinesWithinWidthAfterEscaping lays out escaped strings by their escaped
// width: every line still fits.
func TestTextOutputKeepsLinesWithinWidthAfterEscaping(t *testing.T) {
	r := hostiletext.Poison(stressReport())
	for name, out := range textRenders(t, r) {
		limit := Width
		if strings.HasSuffix(name, " at 40") {
			limit = 40
		}
		for i, l := range strings.Split(out, "\n") {
			if w := width(l); w > limit && !isCommandLine(l) {
				t.Errorf("%s: line %d is %d columns, want at most %d: %q", name, i+1, w, limit, l)
			}
		}
	}
}

// TestTextOutputCutsLongStrings shows at most style.MaxShown bytes of a 1 MiB Event message,
// and says how much it left out; JSON keeps the whole message.
func TestTextOutputCutsLongStrings(t *testing.T) {
	r := findingsReport()
	long := strings.Repeat("x", 1<<20)
	r.Findings[0].Message = "failed to assign an IP address to container " + long
	var plain bytes.Buffer
	if err := PrintReport(&plain, findingsReport(), Wide, plainStyles()); err != nil {
		t.Fatalf("printing: %v", err)
	}
	var buf bytes.Buffer
	if err := PrintReport(&buf, r, Wide, plainStyles()); err != nil {
		t.Fatalf("printing: %v", err)
	}
	got := buf.String()
	if extra := buf.Len() - plain.Len(); extra > style.MaxShown*2 {
		t.Errorf("the long message adds %d bytes of output, want at most about %d", extra, style.MaxShown)
	}
	if !strings.Contains(got, "more bytes cut)") {
		t.Errorf("the output does not say the message was cut:\n%s", got[:2000])
	}
	var data bytes.Buffer
	if err := PrintReport(&data, r, JSON, nil); err != nil {
		t.Fatalf("printing JSON: %v", err)
	}
	if !strings.Contains(data.String(), long) {
		t.Error("JSON output does not hold the whole message")
	}
}

// TestTextOutputLeavesInputAlone escapes a copy: the caller's report keeps its strings.
func TestTextOutputLeavesInputAlone(t *testing.T) {
	r := hostiletext.Poison(findingsReport())
	before := r.Findings[0].Message
	if err := PrintReport(&bytes.Buffer{}, r, Wide, plainStyles()); err != nil {
		t.Fatalf("printing: %v", err)
	}
	if r.Findings[0].Message != before {
		t.Errorf("PrintReport changed the report's message to %q", r.Findings[0].Message)
	}
}
