package demo_test

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// countedNoun matches a count of one with a plural noun: "1 findings", "1 nodes".
var countedNoun = regexp.MustCompile(`(^|[^0-9.,/-])1 (findings|nodes|addresses|prefixes|blocks|ENIs|subnets|interfaces|` +
	`NodeClaims|instances|groups|routes|endpoints|rules|pods|IPs|days|hours|minutes|seconds|checks|failures|events|more nodes)\b`)

// doubledWord matches a word written twice in a row, "the the", "route: route", with the
// characters around it: a word that is part of an ID ("subnet subnet-0abc",
// "ip-capacity  capacity.pods") is not doubled.
var doubledWord = regexp.MustCompile(`(?i)(^|[^-\w])([a-z]{2,}):? +([a-z]{2,})\b(.|$)`)

// TestWording reads every check's catalogue text, every finding the demo raises (message and
// remedy) and the demo's wide text output for a count of one with a plural noun and for a word
// written twice in a row.
func TestWording(t *testing.T) {
	var texts []string
	for _, c := range diagnose.Checks() {
		texts = append(texts, c.Title, c.FiresWhen, c.NotOn, c.Why, c.Remedy)
	}
	s, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	r := diagnose.Analyze(s, diagnose.Options{})
	for _, f := range r.Findings {
		texts = append(texts, f.Message, f.Remedy)
	}
	var out bytes.Buffer
	if err := printer.PrintReport(&out, r, printer.Wide, nil); err != nil {
		t.Fatal(err)
	}
	texts = append(texts, out.String())
	for _, n := range r.Nodes {
		texts = append(texts, printer.NodeSheet(n, r.OnWhatUses(n), 100, nil))
	}
	for _, text := range texts {
		if m := countedNoun.FindString(text); m != "" {
			t.Errorf("%q: a count of one with a plural noun in %q", m, text)
		}
		for _, m := range doubledWord.FindAllStringSubmatch(text, -1) {
			if m[4] != "-" && equalFold(m[2], m[3]) {
				t.Errorf("%q: a word written twice in %q", m[0], text)
			}
		}
	}
}

func equalFold(a, b string) bool { return bytes.EqualFold([]byte(a), []byte(b)) }
