package cischema

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// CatalogueText stands, in the CI formats' goldens, for a text that comes from a check's
// catalogue entry: the catalogue golden of pkg/diagnose pins those texts, and pkg/printer's
// TestCIRulesAreTheCatalogue checks that SARIF and JUnit carry them exactly, so a change of a
// check's wording rewrites neither the SARIF nor the JUnit goldens.
const CatalogueText = "(catalogue text: see TestCIRulesAreTheCatalogue)"

// SARIFGolden returns a SARIF log as its golden file holds it: the log as karpnet writes it
// (indented JSON, each string on one line), with every rule's texts (the text and markdown of
// its shortDescription, fullDescription and help) replaced by CatalogueText. Rule IDs, levels
// and properties, and every result, stay as they are. It fails t when the log has no rules.
func SARIFGolden(t testing.TB, log string) string {
	t.Helper()
	lines := strings.Split(log, "\n")
	end, rules := "", 0
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		indent := l[:len(l)-len(trimmed)]
		switch {
		case end == "" && trimmed == `"rules": [`:
			end, rules = indent+"]", rules+1
		case end != "" && (l == end || l == end+","):
			end = ""
		case end != "":
			for _, key := range []string{`"text": "`, `"markdown": "`} {
				if strings.HasPrefix(trimmed, key) {
					comma := ""
					if strings.HasSuffix(trimmed, ",") {
						comma = ","
					}
					lines[i] = indent + key[:len(key)-1] + strconv.Quote(CatalogueText) + comma
				}
			}
		}
	}
	if rules == 0 || end != "" {
		t.Fatalf("the SARIF log has no rules array that ends (found %d); is it indented JSON?", rules)
	}
	return strings.Join(lines, "\n")
}

// junitTitle is the title property of a JUnit test suite, the check's catalogue title.
var junitTitle = regexp.MustCompile(`(<property name="title" value=")[^"]*("></property>)`)

// JUnitGolden returns a JUnit report as its golden file holds it: each test suite's title
// property (its check's catalogue title) replaced by CatalogueText. It fails t when the report
// has no title property.
func JUnitGolden(t testing.TB, report string) string {
	t.Helper()
	if !junitTitle.MatchString(report) {
		t.Fatal("the JUnit report has no title property")
	}
	return junitTitle.ReplaceAllLiteralString(report, `<property name="title" value="`+CatalogueText+`"></property>`)
}
