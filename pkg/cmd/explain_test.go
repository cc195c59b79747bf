package cmd

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

func TestExplainGolden(t *testing.T) {
	r := run(t, "explain", "subnet-ip-exhaustion", "trunk-eni-missing")
	wantCode(t, r, ExitOK)
	testutil.Assert(t, filepath.Join("testdata", "explain.golden"), r.stdout)
	for _, line := range strings.Split(r.stdout, "\n") {
		if w := len([]rune(line)); w > printer.Width {
			t.Errorf("line of %d columns, want at most %d: %q", w, printer.Width, line)
		}
	}
}

// TestExplainEveryCheck: JSON and YAML carry every check with every field, and say the same.
func TestExplainEveryCheck(t *testing.T) {
	var fromJSON, fromYAML []printer.CheckDoc
	r := run(t, "explain", "-o", "json")
	wantCode(t, r, ExitOK)
	if err := json.Unmarshal([]byte(r.stdout), &fromJSON); err != nil {
		t.Fatalf("decoding -o json: %v", err)
	}
	r = run(t, "explain", "-o", "yaml")
	wantCode(t, r, ExitOK)
	if err := yaml.Unmarshal([]byte(r.stdout), &fromYAML); err != nil {
		t.Fatalf("decoding -o yaml: %v", err)
	}
	if len(fromJSON) != len(diagnose.Checks()) {
		t.Fatalf("explain -o json lists %d checks, want %d", len(fromJSON), len(diagnose.Checks()))
	}
	for i, d := range fromJSON {
		if d.ID != diagnose.CheckIDs()[i] || d.Title == "" || d.FiresWhen == "" || d.Why == "" || d.Remedy == "" ||
			len(d.Severities) == 0 || len(d.Sources) == 0 {
			t.Errorf("entry %d is incomplete: %+v", i, d)
		}
		if i < len(fromYAML) && fromYAML[i].ID != d.ID {
			t.Errorf("entry %d: YAML has %s, JSON %s", i, fromYAML[i].ID, d.ID)
		}
	}
}

func TestExplainList(t *testing.T) {
	for _, args := range [][]string{{"explain", "--list"}, {"checks"}} {
		r := run(t, args...)
		wantCode(t, r, ExitOK)
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if len(lines) != len(diagnose.Checks())+1 || !strings.HasPrefix(lines[0], "ID") {
			t.Errorf("%v: got %d lines, want a heading and one per check:\n%s", args, len(lines), r.stdout)
		}
	}
	r := run(t, "checks", "-o", "markdown")
	wantCode(t, r, ExitOK)
	var table bytes.Buffer
	if err := printer.CatalogueMarkdown(&table, diagnose.Checks()); err != nil {
		t.Fatal(err)
	}
	if r.stdout != table.String() {
		t.Errorf("checks -o markdown is not the catalogue table of docs/checks.md:\n%s", r.stdout)
	}
	r = run(t, "explain", "nodeclaim-drifted", "-o", "markdown")
	wantCode(t, r, ExitOK)
	for _, want := range []string{"### `nodeclaim-drifted`", "- **Fires when:**", "- **Sources:**"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("explain -o markdown lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestExplainUsage(t *testing.T) {
	r := run(t, "explain", "subnet-ip-exhaustoin")
	wantCode(t, r, ExitUsage)
	wantOneErrorLine(t, r, `unknown check ID "subnet-ip-exhaustoin"`, "subnet-ip-exhaustion")
	r = run(t, "explain", "-o", "html")
	wantCode(t, r, ExitUsage)
	wantOneErrorLine(t, r, `-o/--output "html"`, "markdown")
}

func TestExplainCompletion(t *testing.T) {
	r := run(t, "__complete", "explain", "trunk-eni-missing", "eniconfig-")
	wantCode(t, r, ExitOK)
	for _, want := range []string{"eniconfig-missing\t", "eniconfig-zone-mismatch\t", "eniconfig-reference-missing\t"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("completion lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "trunk-eni-missing") || strings.Contains(r.stdout, "subnet-ip-exhaustion") {
		t.Errorf("completion offers IDs already named or not matching:\n%s", r.stdout)
	}
}
