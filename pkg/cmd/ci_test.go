package cmd

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/cischema"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// TestDemoCIGoldens renders the demo cluster as JUnit and SARIF, compares both with their
// goldens (without the catalogue's texts, which pkg/printer's TestCIRulesAreTheCatalogue
// checks) and validates them against the published schemas.
func TestDemoCIGoldens(t *testing.T) {
	for _, tt := range []struct {
		format, golden string
		validate       func(testing.TB, []byte)
		asGolden       func(testing.TB, string) string
	}{
		{format: "junit", golden: "demo-check.junit.golden", validate: func(t testing.TB, b []byte) {
			t.Helper()
			cischema.ValidateJUnit(t, b)
		}, asGolden: cischema.JUnitGolden},
		{format: "sarif", golden: "demo-check.sarif.golden", validate: cischema.ValidateSARIF, asGolden: cischema.SARIFGolden},
	} {
		t.Run(tt.format, func(t *testing.T) {
			r := run(t, "demo", "check", "-o", tt.format)
			wantCode(t, r, ExitFindings)
			if r.stderr != "" {
				t.Errorf("stderr: got %q, want nothing", r.stderr)
			}
			testutil.Assert(t, filepath.Join("testdata", tt.golden), tt.asGolden(t, r.stdout))
			tt.validate(t, []byte(r.stdout))
		})
	}
}

// junitTotals are the counts of a JUnit document's testsuites element.
type junitTotals struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Suites   []struct {
		Name string `xml:"name,attr"`
	} `xml:"testsuite"`
}

func parseJUnit(t *testing.T, out string) junitTotals {
	t.Helper()
	var doc junitTotals
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("the JUnit output does not parse: %v\n%s", err, out)
	}
	return doc
}

// TestCIFormatsKeepTheExitCode runs demo check at every --fail-on with -o json, junit and
// sarif: the exit code is the same for all, JUnit fails (failures or errors) exactly when it is
// 1, and SARIF holds every finding whatever the threshold.
func TestCIFormatsKeepTheExitCode(t *testing.T) {
	allFindings := len(demoReport(t).Findings)
	for _, failOn := range []string{"critical", "warning", "info", "never"} {
		t.Run(failOn, func(t *testing.T) {
			want := run(t, "demo", "check", "-o", "json", "--fail-on", failOn).code
			junit := run(t, "demo", "check", "-o", "junit", "--fail-on", failOn)
			wantCode(t, junit, want)
			doc := parseJUnit(t, junit.stdout)
			if failing := doc.Failures+doc.Errors > 0; failing != (want == ExitFindings) {
				t.Errorf("--fail-on %s: exit %d but JUnit has %d failures and %d errors", failOn, want, doc.Failures, doc.Errors)
			}
			if len(doc.Suites) != len(diagnose.Checks()) {
				t.Errorf("%d test suites, want one per check (%d)", len(doc.Suites), len(diagnose.Checks()))
			}
			sarif := run(t, "demo", "check", "-o", "sarif", "--fail-on", failOn)
			wantCode(t, sarif, want)
			var log struct {
				Runs []struct{ Results []json.RawMessage }
			}
			if err := json.Unmarshal([]byte(sarif.stdout), &log); err != nil {
				t.Fatalf("the SARIF output does not parse: %v", err)
			}
			if got := len(log.Runs[0].Results); got != allFindings {
				t.Errorf("--fail-on %s: %d SARIF results, want all %d findings", failOn, got, allFindings)
			}
		})
	}
}

// demoReport is demo check -o json decoded.
func demoReport(t *testing.T) diagnose.Report {
	t.Helper()
	var r diagnose.Report
	if err := json.Unmarshal([]byte(run(t, "demo", "check", "-o", "json").stdout), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCIFormatsWithOnly runs one warning check: at --fail-on critical the JUnit report passes
// and check exits 0, at warning its one failure goes with exit 1.
func TestCIFormatsWithOnly(t *testing.T) {
	for _, tt := range []struct {
		failOn   string
		code     int
		failures int
	}{
		{failOn: "critical", code: ExitOK, failures: 0},
		{failOn: "warning", code: ExitFindings, failures: 1},
	} {
		r := run(t, "demo", "check", "--only", "instance-type-mismatch", "-o", "junit", "--fail-on", tt.failOn)
		wantCode(t, r, tt.code)
		doc := parseJUnit(t, r.stdout)
		if len(doc.Suites) != 1 || doc.Suites[0].Name != "instance-type-mismatch" || doc.Failures != tt.failures {
			t.Errorf("--only instance-type-mismatch --fail-on %s: suites %v, %d failures; want that one suite, %d failures",
				tt.failOn, doc.Suites, doc.Failures, tt.failures)
		}
		cischema.ValidateJUnit(t, []byte(r.stdout))
	}
}

// TestCIFormatsFromSnapshot replays the demo snapshot with --snapshot: the CI formats are the
// demo's, byte for byte.
func TestCIFormatsFromSnapshot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo.json")
	if err := os.WriteFile(path, demo.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"junit", "sarif"} {
		got := run(t, "check", "--snapshot", path, "-o", f)
		wantCode(t, got, ExitFindings)
		if want := run(t, "demo", "check", "-o", f); got.stdout != want.stdout {
			t.Errorf("check --snapshot -o %s differs from demo check -o %s", f, f)
		}
	}
}

// Only check writes the CI formats: the other commands keep their one-line usage error.
func TestCIFormatsOnlyForCheck(t *testing.T) {
	for _, args := range [][]string{
		{"demo", "describe", "node", demoNode, "-o", "junit"},
		{"demo", "describe", "subnet", "subnet-0c8ae009df552f60f", "-o", "sarif"},
	} {
		r := run(t, args...)
		wantCode(t, r, ExitUsage)
		line := wantOneErrorLine(t, r, "-o/--output", args[len(args)-1])
		if strings.Contains(line, "junit") && strings.Contains(line, "sarif") {
			t.Errorf("%v offers the CI formats: %s", args, line)
		}
	}
}
