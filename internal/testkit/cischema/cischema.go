// Package cischema validates karpnet's CI output formats in tests against their published
// schemas: SARIF 2.1.0 with a JSON Schema validator, JUnit XML with xmllint (libxml2). The
// schemas and where they come from are in schema/ (see schema/SOURCE.md). It also gives the
// form the formats' golden files hold them in, without the catalogue's texts (golden.go).
package cischema

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/aptinstall"
)

var (
	//go:embed schema/sarif-schema-2.1.0.json
	sarifSchema []byte
	//go:embed schema/jenkins-junit.xsd
	junitSchema []byte
)

// sarifSchemaURL is the schema's own id, under which the validator registers it.
const sarifSchemaURL = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// XMLLintInstall is the command that installs xmllint on Debian and Ubuntu.
const XMLLintInstall = "apt-get install libxml2-utils"

// xmlLint is xmllint and the Debian package that brings it, which JUnitError installs when it
// is missing (as root, with apt-get), as the e2e harness installs etcd and Prometheus: the
// README's one test command needs nothing set up by hand.
var xmlLint = aptinstall.Tool{Binary: "xmllint", Package: "libxml2-utils"}

// NotValidated is what ValidateJUnit says when xmllint is missing: logged under -short, the
// failure otherwise.
const NotValidated = "JUnit not validated against its schema: xmllint not on PATH (" + XMLLintInstall + ")"

// ErrNoXMLLint is JUnitError's error when xmllint is not on PATH.
var ErrNoXMLLint = errors.New("xmllint validates the JUnit XML against its schema and is not on PATH: " + XMLLintInstall)

// SARIFError returns why log is not valid against the SARIF 2.1.0 JSON schema, or nil.
func SARIFError(log []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(sarifSchema))
	if err != nil {
		return fmt.Errorf("reading the SARIF schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft4)
	c.AssertFormat()
	if err := c.AddResource(sarifSchemaURL, doc); err != nil {
		return fmt.Errorf("adding the SARIF schema: %w", err)
	}
	sch, err := c.Compile(sarifSchemaURL)
	if err != nil {
		return fmt.Errorf("compiling the SARIF schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		return fmt.Errorf("the SARIF log is not JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("the SARIF log is not valid SARIF 2.1.0:\n%w", err)
	}
	return nil
}

// JUnitError returns why report is not valid against the Jenkins JUnit schema, as
// `xmllint --schema` says, or nil. xmllint is installed first when it is not on PATH
// (aptinstall); when it cannot be, the error wraps ErrNoXMLLint with the reason.
func JUnitError(report []byte) error {
	xmllint, err := aptinstall.Find(context.Background(), xmlLint)
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrNoXMLLint, err)
	}
	dir, err := os.MkdirTemp("", "karpnet-junit-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	xsd, doc := filepath.Join(dir, "jenkins-junit.xsd"), filepath.Join(dir, "report.xml")
	if err := os.WriteFile(xsd, junitSchema, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(doc, report, 0o600); err != nil {
		return err
	}
	out, err := exec.Command(xmllint, "--noout", "--nonet", "--schema", xsd, doc).CombinedOutput()
	if err != nil {
		return fmt.Errorf("xmllint --schema jenkins-junit.xsd: the JUnit XML is not valid (%w):\n%s", err, limit(string(out), 4000))
	}
	if !strings.Contains(string(out), "validates") {
		return fmt.Errorf("xmllint did not say the JUnit XML validates:\n%s", out)
	}
	return nil
}

// ValidateSARIF fails t unless log is valid SARIF 2.1.0.
func ValidateSARIF(t testing.TB, log []byte) {
	t.Helper()
	if err := SARIFError(log); err != nil {
		t.Fatal(err)
	}
}

// ValidateJUnit fails t unless report is valid against the Jenkins JUnit schema, and reports
// whether it was validated. Without xmllint it fails t with the command that installs it; under
// -short it logs that the report was not validated and returns false instead, so that the rest
// of the calling test (its other assertions, the SARIF half) still runs.
func ValidateJUnit(t testing.TB, report []byte) bool {
	t.Helper()
	err := JUnitError(report)
	if errors.Is(err, ErrNoXMLLint) {
		if testing.Short() {
			t.Log(NotValidated)
			return false
		}
		t.Fatal(NotValidated + "; install it, or run the tests with -short to go on without it: " + err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

// limit cuts s to at most n bytes.
func limit(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n..."
}
