package printer

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// TestExplainVerified: a check's Verified entries are printed with the ledger's repository and
// version, in text, Markdown and JSON; a check without them prints no such section.
func TestExplainVerified(t *testing.T) {
	spec := &diagnose.Spec{ID: "example-check", Severity: diagnose.Warning, Family: diagnose.FamilyNodeAgents,
		Title: "An example", FiresWhen: "always", Why: "because", Remedy: "nothing", Sources: []string{"a source"},
		Verified: []diagnose.Verified{{Project: diagnose.UpstreamCilium, File: "pkg/defaults/defaults.go (ENIFirstInterfaceIndex)",
			Fact: "the first interface index defaults to 0"}}}
	checks := []diagnose.Check{{Spec: spec}}
	pin, _ := diagnose.PinOf(diagnose.UpstreamCilium)
	want := "cilium/cilium " + pin.Version + " pkg/defaults/defaults.go (ENIFirstInterfaceIndex): the first interface index defaults to 0"

	var text bytes.Buffer
	if err := PrintExplain(&text, checks, ExplainText, plainStyles()); err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(text.String()), " ")
	if !strings.Contains(flat, "Verified against - "+want) {
		t.Errorf("text explain lacks %q:\n%s", want, text.String())
	}
	var md bytes.Buffer
	if err := PrintExplain(&md, checks, ExplainMarkdown, plainStyles()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "- **Verified against:**\n  - cilium/cilium "+pin.Version+" `pkg/defaults/defaults.go (ENIFirstInterfaceIndex)`") {
		t.Errorf("Markdown explain lacks the verified entry:\n%s", md.String())
	}
	var js bytes.Buffer
	if err := PrintExplain(&js, checks, ExplainJSON, plainStyles()); err != nil {
		t.Fatal(err)
	}
	var docs []CheckDoc
	if err := json.Unmarshal(js.Bytes(), &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || len(docs[0].Verified) != 1 || docs[0].Verified[0].Version != pin.Version || docs[0].Verified[0].Repository != "cilium/cilium" {
		t.Errorf("JSON verified = %+v, want one entry at cilium/cilium %s", docs, pin.Version)
	}

	spec.Verified = nil
	text.Reset()
	if err := PrintExplain(&text, checks, ExplainText, plainStyles()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "Verified against") {
		t.Errorf("a check without Verified entries printed the section:\n%s", text.String())
	}
}

// TestLedgerMarkdown: the ledger table lists every pin with its version and how many checks name it,
// then the release facts.
func TestLedgerMarkdown(t *testing.T) {
	spec := &diagnose.Spec{ID: "example-check", Verified: []diagnose.Verified{
		{Project: diagnose.UpstreamCilium, File: "a", Fact: "b"}, {Project: diagnose.UpstreamCilium, File: "c", Fact: "d"}}}
	var b bytes.Buffer
	if err := LedgerMarkdown(&b, []diagnose.Check{{Spec: spec}}); err != nil {
		t.Fatal(err)
	}
	pin, _ := diagnose.PinOf(diagnose.UpstreamCilium)
	if !strings.Contains(b.String(), "| cilium | cilium/cilium | "+pin.Version+" | 1 |\n") {
		t.Errorf("ledger lacks Cilium's row counting one check:\n%s", b.String())
	}
	pins, facts, _ := strings.Cut(b.String(), "\n\n")
	if n := strings.Count(pins, "\n"); n != len(diagnose.Ledger())+1 {
		t.Errorf("ledger has %d lines, want a header, a rule and %d pins:\n%s", n+1, len(diagnose.Ledger()), pins)
	}
	// Then the release facts: a sentence, a header, a rule and one row each.
	if n := strings.Count(facts, "\n"); n != len(diagnose.VersionFacts())+4 {
		t.Errorf("release facts have %d lines, want a sentence, a header, a rule and %d facts:\n%s", n, len(diagnose.VersionFacts()), facts)
	}
}
