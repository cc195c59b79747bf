package e2e

import (
	"encoding/json"
	"encoding/xml"
	"slices"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/cischema"
)

// wantCIReports runs `kubectl karpnet check -o junit` and `-o sarif` against the same cluster
// as rep (its -o json report): both validate against their published schemas, JUnit fails
// exactly on the findings at or above --fail-on with the exit code to match, and SARIF holds
// every finding at its severity's level.
func wantCIReports(t *testing.T, rep jsonReport) {
	t.Helper()
	critical := 0
	for _, f := range rep.Findings {
		if f.Severity == "critical" {
			critical++
		}
	}
	for _, tt := range []struct {
		failOn   string
		code     int
		failures int
	}{
		{failOn: "critical", code: 1, failures: critical},
		{failOn: "never", code: 0, failures: 0},
	} {
		r := karpnet(t, runOpts{}, "check", "-o", "junit", "--fail-on", tt.failOn)
		wantCode(t, r, tt.code)
		cischema.ValidateJUnit(t, []byte(r.stdout))
		var doc struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Errors   int `xml:"errors,attr"`
		}
		if err := xml.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("check -o junit does not parse: %v\n%s", err, r.stdout)
		}
		if doc.Failures != tt.failures || doc.Errors != 0 || doc.Tests == 0 {
			t.Errorf("check -o junit --fail-on %s: %d tests, %d failures, %d errors; want %d failures (one per critical finding), no error",
				tt.failOn, doc.Tests, doc.Failures, doc.Errors, tt.failures)
		}
	}

	r := karpnet(t, runOpts{}, "check", "-o", "sarif", "--fail-on", "warning")
	wantCode(t, r, 1)
	cischema.ValidateSARIF(t, []byte(r.stdout))
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID, Level string
				Properties    struct{ Node, Resource string }
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &log); err != nil {
		t.Fatalf("check -o sarif does not parse: %v", err)
	}
	levels := map[string]string{"critical": "error", "warning": "warning", "info": "note"}
	var want, got []finding
	for _, f := range rep.Findings {
		want = append(want, finding{f.ID, levels[f.Severity], f.Node, f.Resource})
	}
	for _, res := range log.Runs[0].Results {
		got = append(got, finding{res.RuleID, res.Level, res.Properties.Node, res.Properties.Resource})
	}
	key := func(a, b finding) int {
		return strings.Compare(a.ID+a.Node+a.Resource, b.ID+b.Node+b.Resource)
	}
	slices.SortFunc(want, key)
	slices.SortFunc(got, key)
	if diff := cmpDiff(want, got); diff != "" {
		t.Errorf("check -o sarif results (-want +got):\n%s", diff)
	}
}
