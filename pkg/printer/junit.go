package printer

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// The JUnit XML document: the element and attribute set of the Jenkins JUnit schema
// (testdata/schema/jenkins-junit.xsd), which GitLab, GitHub test reporters and Jenkins read.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Package    string          `xml:"package,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Skipped   *string       `xml:"skipped"`
	Error     *junitProblem `xml:"error"`
	Failure   *junitProblem `xml:"failure"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Type    string `xml:"type,attr"`
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// junitTimestamp is the testsuite timestamp: the snapshot's time in UTC, ISO 8601 without a
// zone, as the Ant schema writes it.
const junitTimestamp = "2006-01-02T15:04:05"

// writeJUnit writes r as JUnit XML: a test suite per check that ran, a test case per subject
// it examined (see checkSubjects). A case whose findings reach --fail-on fails (data-unavailable
// errors: the check could not read its data); a case whose findings are below it passes with
// them in its system-out; a subject the check did not look at is skipped. The failures and
// errors of the document are thus non-zero exactly when `check` exits 1.
func writeJUnit(w io.Writer, r diagnose.Report, ci CI) error {
	doc := junitDocument(r, ci)
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := io.WriteString(bw, xml.Header); err != nil {
		return writeErr(err)
	}
	enc := xml.NewEncoder(bw)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encoding the report as JUnit XML: %w", writeErr(err))
	}
	if _, err := io.WriteString(bw, "\n"); err != nil {
		return writeErr(err)
	}
	return writeErr(bw.Flush())
}

// junitDocument builds the JUnit document of r.
func junitDocument(r diagnose.Report, ci CI) junitSuites {
	doc := junitSuites{Name: "karpnet check", Time: "0", Suites: []junitSuite{}}
	byCheck := findingsByCheck(r)
	stamp := ""
	if !r.Taken.IsZero() {
		stamp = r.Taken.UTC().Format(junitTimestamp)
	}
	for _, c := range ci.checks() {
		suite := junitSuite{
			Name: c.ID, Time: "0", Timestamp: stamp, Package: "karpnet." + string(c.Family),
			Properties: []junitProperty{
				{Name: "title", Value: c.Title},
				{Name: "family", Value: string(c.Family)},
				{Name: "severity", Value: c.Severity.String()},
				{Name: "fail-on", Value: ci.failOn()},
			},
		}
		for _, s := range checkSubjects(r, c, byCheck[c.ID]) {
			tc := junitTestCase(c, s, ci)
			suite.Tests++
			switch {
			case tc.Skipped != nil:
				suite.Skipped++
			case tc.Error != nil:
				suite.Errors++
			case tc.Failure != nil:
				suite.Failures++
			}
			suite.Cases = append(suite.Cases, tc)
		}
		doc.Tests += suite.Tests
		doc.Failures += suite.Failures
		doc.Errors += suite.Errors
		doc.Suites = append(doc.Suites, suite)
	}
	return doc
}

// junitTestCase is subject s of check c as a test case.
func junitTestCase(c diagnose.Check, s ciSubject, ci CI) junitCase {
	tc := junitCase{Name: s.ref, Classname: c.ID, Time: "0"}
	if s.skipped != "" {
		tc.Skipped = &s.skipped
		return tc
	}
	var failing, passing []string
	var first diagnose.Finding
	for _, f := range s.findings {
		if ci.failing(f.Severity) {
			if len(failing) == 0 {
				first = f
			}
			failing = append(failing, findingText(f))
		} else {
			passing = append(passing, findingText(f))
		}
	}
	if len(failing) > 0 {
		p := &junitProblem{Type: first.Severity.String(), Message: first.Message, Text: strings.Join(failing, "\n\n")}
		if c.ID == diagnose.DataUnavailableID {
			p.Type = diagnose.DataUnavailableID
			tc.Error = p
		} else {
			tc.Failure = p
		}
	}
	if len(passing) > 0 {
		tc.SystemOut = "below --fail-on " + ci.failOn() + " (" + strconv.Itoa(len(passing)) + "):\n" + strings.Join(passing, "\n\n")
	}
	return tc
}
