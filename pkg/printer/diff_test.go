package printer

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/diff"
)

// hostileDiff is a diff whose strings hold terminal escapes and a name too long for a line.
func hostileDiff() diff.Diff {
	long := strings.Repeat("n", 130)
	f := diagnose.Finding{ID: "instance-type-mismatch", Severity: diagnose.Warning, Node: "evil\x1b]0;pwned\x07",
		Message: "label is \x1b[2Km5.xlarge " + strings.Repeat("word ", 40)}
	return diff.Diff{
		Old:      diff.Side{Source: "old\x1b[1A.json", Taken: time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)},
		New:      diff.Side{Source: "live", Taken: time.Date(2026, 11, 20, 10, 30, 0, 0, time.UTC)},
		Findings: diff.FindingChanges{Added: []diagnose.Finding{f}, Resolved: []diagnose.Finding{{ID: long, Severity: diagnose.Critical}}},
		Nodes: diff.NodeChanges{Added: []string{long}, Changed: []diff.NodeChange{{Node: "a\rb",
			Fields: []diff.FieldChange{{Field: "securityGroups", Old: "sg-1\x1b[31m", New: ""}}}}},
		NodeClaims: diff.ClaimChanges{Removed: []diff.ClaimRef{{Name: "c\x07", Status: diagnose.ClaimLaunching}}},
	}
}

func TestPrintDiffEscapesAndWraps(t *testing.T) {
	var buf bytes.Buffer
	if err := PrintDiff(&buf, hostileDiff(), Table, plainStyles()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, raw := range []string{"\x1b", "\x07", "\r"} {
		if strings.Contains(out, raw) {
			t.Errorf("text holds the raw control %q:\n%s", raw, out)
		}
	}
	for _, want := range []string{`evil\x1b]0;pwned\x07`, `old\x1b[1A.json`, `sg-1\x1b[31m -> none`, `a\x0db`, `c\x07 (launching)`} {
		if !strings.Contains(out, want) {
			t.Errorf("text: got\n%s\nwant %q in it", out, want)
		}
	}
	for i, l := range strings.Split(out, "\n") {
		if width(l) > Width {
			t.Errorf("line %d is %d columns, want at most %d: %q", i+1, width(l), Width, l)
		}
	}
}

func TestPrintDiffColour(t *testing.T) {
	d := hostileDiff()
	var plain, colour bytes.Buffer
	if err := PrintDiff(&plain, d, Table, plainStyles()); err != nil {
		t.Fatal(err)
	}
	if err := PrintDiff(&colour, d, Table, colourStyles()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b[") {
		t.Errorf("text without colour holds an escape sequence:\n%q", plain.String())
	}
	if !strings.Contains(colour.String(), "\x1b[") {
		t.Errorf("text with colour holds no escape sequence:\n%s", colour.String())
	}
	for _, mark := range []string{"+ ▲ warning", "- ✖ critical", "~ a", "+ nnn", "- c"} {
		if !strings.Contains(plain.String(), mark) {
			t.Errorf("text: got\n%s\nwant the mark %q, readable without colour", plain.String(), mark)
		}
	}
}

// TestPrintDiffData checks that JSON holds the Diff whole, with empty lists rather than null
// and the strings as read.
func TestPrintDiffData(t *testing.T) {
	var buf bytes.Buffer
	if err := PrintDiff(&buf, diff.Diff{}, JSON, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"kind": "Diff"`, `"apiVersion": "karpnet/v1alpha1"`, `"added": []`, `"resolved": []`,
		`"changed": []`, `"removed": []`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("JSON: got\n%s\nwant %s in it", buf.String(), want)
		}
	}
	buf.Reset()
	if err := PrintDiff(&buf, hostileDiff(), JSON, nil); err != nil {
		t.Fatal(err)
	}
	var back diff.Diff
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("decoding: %v\n%s", err, buf.String())
	}
	if got, want := back.Findings.Added[0].Node, hostileDiff().Findings.Added[0].Node; got != want {
		t.Errorf("node: got %q, want %q kept whole", got, want)
	}
	if err := PrintDiff(&buf, diff.Diff{}, Wide, nil); err == nil {
		t.Error("wide: got no error, want the format refused")
	}
}
