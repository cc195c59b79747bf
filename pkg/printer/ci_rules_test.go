package printer

import (
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// TestCIRulesAreTheCatalogue checks, once for every check, that SARIF's rules and JUnit's test
// suites carry exactly the texts of the check's catalogue entry. The CI goldens replace those
// texts with cischema.CatalogueText, so that the catalogue's wording is pinned in one place
// (pkg/diagnose's catalogue golden, docs/checks.md) and tested here.
func TestCIRulesAreTheCatalogue(t *testing.T) {
	checks := diagnose.Checks()
	plain := func(s string) string { return strings.ReplaceAll(s, "`", "") }

	var log sarifLog
	if err := json.Unmarshal(render(t, ciReport(), SARIF, ciCases()[0].ci), &log); err != nil {
		t.Fatalf("parsing the SARIF log: %v", err)
	}
	rules := log.Runs[0].Tool.Driver.Rules
	if len(rules) != len(checks) {
		t.Fatalf("%d SARIF rules, want one per check of the catalogue (%d)", len(rules), len(checks))
	}
	for i, c := range checks {
		text := []string{"Fires when: " + plain(c.FiresWhen)}
		md := []string{"**Fires when:** " + c.FiresWhen}
		if c.NotOn != "" {
			text = append(text, "Does not fire on: "+plain(c.NotOn))
			md = append(md, "**Does not fire on:** "+c.NotOn)
		}
		text = append(text, "Why it matters: "+plain(c.Why), "Remedy: "+plain(c.Remedy))
		md = append(md, "**Why it matters:** "+c.Why, "**Remedy:** "+c.Remedy)
		if c.Scope != "" {
			text = append(text, "What the commands change: "+plain(c.Scope))
			md = append(md, "**What the commands change:** "+c.Scope)
		}
		if len(c.Needs) > 0 {
			what := "it"
			if len(c.Needs) > 1 {
				what = "one of them"
			}
			needs := "`" + strings.Join(c.Needs, "`, `") + "`: the check is not run when karpnet could not read " + what +
				" (the report lists it under not run)"
			text = append(text, "Needs: "+plain(needs))
			md = append(md, "**Needs:** "+needs)
		}
		md = append(md, "**Sources:**\n\n- "+strings.Join(c.Sources, "\n- "))
		var severities []string
		for _, s := range c.Severities() {
			severities = append(severities, s.String())
		}
		want := sarifRule{
			ID:               c.ID,
			ShortDescription: sarifMessage{Text: plain(c.Title)},
			FullDescription:  sarifMessage{Text: "Fires when " + plain(c.FiresWhen) + ". Why it matters: " + plain(c.Why) + "."},
			Help:             sarifMessage{Text: strings.Join(text, "\n\n"), Markdown: strings.Join(md, "\n\n")},
			DefaultConfiguration: sarifConfiguration{Level: map[diagnose.Severity]string{
				diagnose.Critical: "error", diagnose.Warning: "warning", diagnose.Info: "note"}[c.Severity]},
			Properties: sarifRuleProps{Family: string(c.Family), Severities: severities,
				Tags: []string{"kubernetes", "karpenter", "eks", "networking", string(c.Family)}},
		}
		if diff := cmp.Diff(want, rules[i]); diff != "" {
			t.Errorf("SARIF rule %d is not the catalogue entry of %s (-catalogue +rule):\n%s", i, c.ID, diff)
		}
	}

	var doc junitSuites
	if err := xml.Unmarshal(render(t, cleanReport(), JUnit, CI{FailOn: diagnose.Critical}), &doc); err != nil {
		t.Fatalf("parsing the JUnit report: %v", err)
	}
	if len(doc.Suites) != len(checks) {
		t.Fatalf("%d JUnit test suites, want one per check of the catalogue (%d)", len(doc.Suites), len(checks))
	}
	for i, c := range checks {
		s := doc.Suites[i]
		want := []junitProperty{{"title", c.Title}, {"family", string(c.Family)}, {"severity", c.Severity.String()}, {"fail-on", "critical"}}
		if s.Name != c.ID || s.Package != "karpnet."+string(c.Family) || !cmp.Equal(s.Properties, want) {
			t.Errorf("JUnit test suite %d is %s (%s) with %v; want %s (karpnet.%s) with %v", i, s.Name, s.Package, s.Properties, c.ID, c.Family, want)
		}
	}
}
