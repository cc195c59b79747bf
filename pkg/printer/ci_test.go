package printer

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/cischema"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostiletext"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// ciCase is one CI rendering: a report, --fail-on and the checks that ran.
type ciCase struct {
	name   string
	report diagnose.Report
	ci     CI
}

func ciCases() []ciCase {
	return []ciCase{
		{name: "fail-on-critical", report: ciReport(), ci: CI{FailOn: diagnose.Critical, Checks: ciChecks(), Version: "v0.0.0-test"}},
		{name: "fail-on-warning", report: ciReport(), ci: CI{FailOn: diagnose.Warning, Checks: ciChecks(), Version: "v0.0.0-test"}},
		{name: "fail-on-info", report: ciReport(), ci: CI{FailOn: diagnose.Info, Checks: ciChecks(), Version: "v0.0.0-test"}},
		{name: "fail-on-never", report: ciReport(), ci: CI{Never: true, Checks: ciChecks(), Version: "v0.0.0-test"}},
		{name: "clean", report: cleanReport(), ci: CI{FailOn: diagnose.Critical, Version: "v0.0.0-test"}},
	}
}

func render(t *testing.T, r diagnose.Report, f Format, ci CI) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := PrintCheck(&buf, r, f, nil, ci); err != nil {
		t.Fatalf("PrintCheck(%s): %v", f, err)
	}
	return buf.Bytes()
}

// TestCIGolden pins JUnit and SARIF output. The goldens hold the checks' catalogue texts (SARIF
// rules' descriptions and help, JUnit suites' titles) as cischema.CatalogueText:
// TestCIRulesAreTheCatalogue checks those once.
func TestCIGolden(t *testing.T) {
	for _, tc := range []ciCase{ciCases()[0], ciCases()[1], ciCases()[4]} {
		t.Run("junit/"+tc.name, func(t *testing.T) {
			got := cischema.JUnitGolden(t, string(render(t, tc.report, JUnit, tc.ci)))
			testutil.Assert(t, filepath.Join("testdata", "ci-"+tc.name+".junit.golden"), got)
		})
	}
	for _, tc := range []ciCase{ciCases()[0]} {
		t.Run("sarif/"+tc.name, func(t *testing.T) {
			got := cischema.SARIFGolden(t, string(render(t, tc.report, SARIF, tc.ci)))
			testutil.Assert(t, filepath.Join("testdata", "ci-"+tc.name+".sarif.golden"), got)
		})
	}
}

// TestCIDeterministic renders each case twice: maps (fingerprints, properties) must not
// change the bytes.
func TestCIDeterministic(t *testing.T) {
	for _, tc := range ciCases() {
		for _, f := range []Format{JUnit, SARIF} {
			a, b := render(t, tc.report, f, tc.ci), render(t, tc.report, f, tc.ci)
			if !bytes.Equal(a, b) {
				t.Errorf("%s %s: two renderings differ", tc.name, f)
			}
		}
	}
}

func TestJUnitValidatesAgainstSchema(t *testing.T) {
	for _, tc := range ciCases() {
		t.Run(tc.name, func(t *testing.T) {
			cischema.ValidateJUnit(t, render(t, tc.report, JUnit, tc.ci))
		})
	}
}

func TestSARIFValidatesAgainstSchema(t *testing.T) {
	for _, tc := range ciCases() {
		t.Run(tc.name, func(t *testing.T) {
			cischema.ValidateSARIF(t, render(t, tc.report, SARIF, tc.ci))
		})
	}
}

// The schema validators must reject what is not SARIF or JUnit, or passing means nothing.
func TestCISchemasRejectBrokenDocuments(t *testing.T) {
	sarif := render(t, ciReport(), SARIF, ciCases()[0].ci)
	broken := bytes.Replace(sarif, []byte(`"level": "error"`), []byte(`"level": "fatal"`), 1)
	if bytes.Equal(broken, sarif) {
		t.Fatal("the SARIF fixture has no error-level result to break")
	}
	if err := cischema.SARIFError(broken); err == nil {
		t.Error("a SARIF log with level \"fatal\" passed the schema")
	}
	junit := render(t, ciReport(), JUnit, ciCases()[0].ci)
	if !cischema.ValidateJUnit(t, junit) {
		return // -short without xmllint: nothing can reject the broken document
	}
	broken = bytes.Replace(junit, []byte(`<testsuite name=`), []byte(`<testsuite nom=`), 1)
	if err := cischema.JUnitError(broken); err == nil {
		t.Error("a JUnit testsuite without its required name passed the schema")
	}
}

// junitDoc is the parsed JUnit XML, with every count the attributes claim.
type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name      string    `xml:"name,attr"`
			Skipped   *struct{} `xml:"skipped"`
			Failure   *struct{} `xml:"failure"`
			Error     *struct{} `xml:"error"`
			SystemOut string    `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// TestJUnitCountsMatchExitCode parses the XML with encoding/xml, recounts every suite, and
// checks that the document fails (failures or errors) exactly when check exits 1.
func TestJUnitCountsMatchExitCode(t *testing.T) {
	for _, tc := range ciCases() {
		t.Run(tc.name, func(t *testing.T) {
			var doc junitDoc
			if err := xml.Unmarshal(render(t, tc.report, JUnit, tc.ci), &doc); err != nil {
				t.Fatalf("the JUnit XML does not parse: %v", err)
			}
			if got, want := len(doc.Suites), len(tc.ci.checks()); got != want {
				t.Errorf("got %d test suites, want one per check that ran (%d)", got, want)
			}
			tests, failures, errs := 0, 0, 0
			for _, s := range doc.Suites {
				var f, e, sk int
				for _, c := range s.Cases {
					switch {
					case c.Skipped != nil:
						sk++
					case c.Error != nil:
						e++
					case c.Failure != nil:
						f++
					}
				}
				if len(s.Cases) != s.Tests || f != s.Failures || e != s.Errors || sk != s.Skipped {
					t.Errorf("suite %s claims tests=%d failures=%d errors=%d skipped=%d, holds %d/%d/%d/%d",
						s.Name, s.Tests, s.Failures, s.Errors, s.Skipped, len(s.Cases), f, e, sk)
				}
				if len(s.Cases) == 0 {
					t.Errorf("suite %s has no test case", s.Name)
				}
				tests, failures, errs = tests+s.Tests, failures+s.Failures, errs+s.Errors
			}
			if tests != doc.Tests || failures != doc.Failures || errs != doc.Errors {
				t.Errorf("testsuites claims %d/%d/%d, its suites add up to %d/%d/%d", doc.Tests, doc.Failures, doc.Errors, tests, failures, errs)
			}
			reached := 0
			for _, f := range tc.report.Findings {
				if tc.ci.failing(f.Severity) {
					reached++
				}
			}
			if (failures+errs > 0) != (reached > 0) {
				t.Errorf("%d failures and %d errors, but %d findings at or above --fail-on %s: the test view must fail exactly when check exits 1",
					failures, errs, reached, tc.ci.failOn())
			}
		})
	}
}

func TestJUnitMapping(t *testing.T) {
	doc := junitDocument(ciReport(), CI{FailOn: diagnose.Warning, Checks: ciChecks()})
	cases := map[string]junitCase{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			cases[s.Name+" "+c.Name] = c
		}
	}
	for _, tt := range []struct {
		key  string
		want func(junitCase) bool
		what string
	}{
		{"instance-not-found node/" + goneNode, func(c junitCase) bool { return c.Failure != nil && c.Failure.Type == "critical" }, "a critical failure"},
		{"instance-not-found node/" + hybridNd, func(c junitCase) bool { return c.Skipped != nil && strings.Contains(*c.Skipped, "hybrid") }, "skipped as hybrid"},
		{"instance-not-found node/" + deletingNode, func(c junitCase) bool { return c.Skipped != nil && strings.Contains(*c.Skipped, "being deleted") }, "skipped while deleting"},
		{"node-termination-stuck node/" + deletingNode, func(c junitCase) bool { return c.Skipped == nil && c.Failure == nil }, "examined and passed"},
		{"instance-not-found node/" + gpuNode, func(c junitCase) bool { return c.Skipped == nil && c.Failure == nil && c.SystemOut == "" }, "passed"},
		{"instance-type-mismatch node/" + webNode, func(c junitCase) bool { return c.Failure == nil && strings.Contains(c.SystemOut, "info: label") }, "passed with the info finding in system-out"},
		{"security-group-drift node/" + gpuNode, func(c junitCase) bool { return c.Failure != nil && c.Failure.Type == "warning" }, "a warning failure"},
		{"data-unavailable ec2:DescribePlacementGroups", func(c junitCase) bool { return c.Error != nil && c.Failure == nil }, "an error"},
		{"subnet-ip-exhaustion subnet/" + gpuSubnet, func(c junitCase) bool { return c.Failure != nil }, "a failure"},
		{"nodeclass-not-ready ec2nodeclass/gpu", func(c junitCase) bool { return c.Failure == nil && c.Skipped == nil }, "passed"},
		{"nodeclass-not-ready ec2nodeclass/default", func(c junitCase) bool { return c.Failure == nil && c.Skipped == nil }, "passed"},
		{"nodeclaim-launch-failed nodeclaim/gpu-x7k2p", func(c junitCase) bool { return c.Failure == nil }, "passed"},
		{"instance-orphaned cluster", func(c junitCase) bool { return c.Failure == nil && c.Skipped == nil }, "the cluster, passed"},
	} {
		c, ok := cases[tt.key]
		if !ok {
			t.Errorf("no test case %q", tt.key)
			continue
		}
		if !tt.want(c) {
			t.Errorf("test case %q: want %s, got %+v", tt.key, tt.what, c)
		}
	}
	// At --fail-on critical the data gap (a warning) is not an error: check exits 0 for it.
	doc = junitDocument(ciReport(), CI{FailOn: diagnose.Critical, Checks: ciChecks()})
	for _, s := range doc.Suites {
		if s.Name == diagnose.DataUnavailableID && (s.Errors != 0 || s.Cases[0].SystemOut == "") {
			t.Errorf("at --fail-on critical data-unavailable shows %d errors and system-out %q; want 0 and the gap", s.Errors, s.Cases[0].SystemOut)
		}
	}
}

// sarifDoc is the parsed SARIF log, the fields the tests look at.
type sarifDoc struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Name, Version, InformationURI string
				Rules                         []struct {
					ID                   string
					DefaultConfiguration struct{ Level string }
					ShortDescription     struct{ Text string }
				}
			}
		}
		Results []struct {
			RuleID              string
			RuleIndex           int
			Level               string
			Message             struct{ Text string }
			PartialFingerprints map[string]string
			Locations           []struct {
				PhysicalLocation struct{ ArtifactLocation struct{ URI string } }
				LogicalLocations []struct{ Name, FullyQualifiedName, Kind string }
			}
		}
	}
}

func TestSARIFMapping(t *testing.T) {
	r := ciReport()
	var doc sarifDoc
	if err := json.Unmarshal(render(t, r, SARIF, CI{FailOn: diagnose.Critical, Checks: ciChecks(), Version: "v1.2.3"}), &doc); err != nil {
		t.Fatal(err)
	}
	run := doc.Runs[0]
	if d := run.Tool.Driver; d.Name != "karpnet" || d.Version != "v1.2.3" || d.InformationURI == "" {
		t.Errorf("driver %s %s %s; want karpnet, the version and the project's address", d.Name, d.Version, d.InformationURI)
	}
	checks := diagnose.Checks()
	if len(run.Tool.Driver.Rules) != len(checks) {
		t.Fatalf("%d rules, want one per check of the catalogue (%d), whatever ran", len(run.Tool.Driver.Rules), len(checks))
	}
	for i, rule := range run.Tool.Driver.Rules {
		if rule.ID != checks[i].ID || rule.ShortDescription.Text == "" || rule.DefaultConfiguration.Level != sarifLevel(checks[i].Severity) {
			t.Errorf("rule %d is %+v, want %s at %s", i, rule, checks[i].ID, sarifLevel(checks[i].Severity))
		}
	}
	if len(run.Results) != len(r.Findings) {
		t.Fatalf("%d results, want every finding (%d): --fail-on filters none", len(run.Results), len(r.Findings))
	}
	levels := map[diagnose.Severity]string{diagnose.Critical: "error", diagnose.Warning: "warning", diagnose.Info: "note"}
	var prints []string
	for i, res := range run.Results {
		f := r.Findings[i]
		if res.RuleID != f.ID || run.Tool.Driver.Rules[res.RuleIndex].ID != f.ID || res.Level != levels[f.Severity] {
			t.Errorf("result %d: rule %s (index %d) level %s; want %s at %s", i, res.RuleID, res.RuleIndex, res.Level, f.ID, levels[f.Severity])
		}
		if !strings.Contains(res.Message.Text, f.Message) || !strings.Contains(res.Message.Text, f.Remedy) {
			t.Errorf("result %d message %q lacks the finding's message or remedy", i, res.Message.Text)
		}
		loc := res.Locations[0]
		if loc.LogicalLocations[0].FullyQualifiedName != f.Subject() {
			t.Errorf("result %d is located at %q, want its subject %q", i, loc.LogicalLocations[0].FullyQualifiedName, f.Subject())
		}
		if u := loc.PhysicalLocation.ArtifactLocation.URI; strings.Contains(strings.SplitN(u, "/", 2)[0], ":") {
			t.Errorf("result %d artifact URI %q would read as a URI scheme", i, u)
		}
		prints = append(prints, res.PartialFingerprints[sarifFingerprint])
	}
	if slices.Sort(prints); len(slices.Compact(prints)) != len(r.Findings) {
		t.Errorf("fingerprints are not distinct per finding: %v", prints)
	}
}

// A finding's fingerprint depends on its identity (check, node, resource) only: a new message
// (other numbers) is the same alert to code scanning.
func TestSARIFFingerprintStable(t *testing.T) {
	f := diagnose.Finding{ID: "subnet-ip-exhaustion", Severity: diagnose.Warning, Resource: "subnet/subnet-1", Message: "12 free"}
	g := f
	g.Message, g.Severity = "3 free", diagnose.Critical
	h := f
	h.Resource = "subnet/subnet-2"
	fp := func(f diagnose.Finding) string { return sarifResultOf(f, 0).PartialFingerprints[sarifFingerprint] }
	if fp(f) != fp(g) {
		t.Error("the fingerprint changed with the message and severity")
	}
	if fp(f) == fp(h) {
		t.Error("two subnets share a fingerprint")
	}
}

// Strings from the cluster may hold any character: the JUnit XML stays well-formed and valid
// (characters XML cannot carry become U+FFFD), and the SARIF log stays valid JSON.
func TestCIFormatsHostileStrings(t *testing.T) {
	r := hostiletext.Poison(ciReport())
	ci := ciCases()[1].ci
	junit := render(t, r, JUnit, ci)
	var doc junitDoc
	if err := xml.Unmarshal(junit, &doc); err != nil {
		t.Fatalf("JUnit XML of a hostile report does not parse: %v", err)
	}
	cischema.ValidateJUnit(t, junit)
	cischema.ValidateSARIF(t, render(t, r, SARIF, ci))
}
