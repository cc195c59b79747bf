package printer

import (
	"fmt"
	"strings"
)

// Format is an output format, the value of -o/--output.
type Format string

// The output formats.
const (
	// Table is the default text output.
	Table Format = "table"
	// Wide is Table plus the remedy of each finding.
	Wide Format = "wide"
	// JSON is the Report as indented JSON.
	JSON Format = "json"
	// YAML is the Report as YAML with the same keys as JSON.
	YAML Format = "yaml"
	// JUnit is a check report as JUnit XML: one test suite per check, one test case per
	// subject it examined (only `check` writes it).
	JUnit Format = "junit"
	// SARIF is a check report as SARIF 2.1.0: one rule per check, one result per finding
	// (only `check` writes it).
	SARIF Format = "sarif"
)

// Formats returns the output formats every report command takes, for help text and shell
// completion.
func Formats() []Format { return []Format{Table, Wide, JSON, YAML} }

// CheckFormats returns the output formats of `check`: Formats and the CI formats.
func CheckFormats() []Format { return append(Formats(), JUnit, SARIF) }

// String returns the format's flag value.
func (f Format) String() string { return string(f) }

// ParseFormat parses an -o/--output value, in any case. accepted lists the formats the
// command takes, the first being its default for an empty value; none means every format.
func ParseFormat(s string, accepted ...Format) (Format, error) {
	if len(accepted) == 0 {
		accepted = Formats()
	}
	if s == "" {
		return accepted[0], nil
	}
	for _, f := range accepted {
		if strings.EqualFold(s, string(f)) {
			return f, nil
		}
	}
	names := make([]string, len(accepted))
	for i, f := range accepted {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown output format %q: use one of %s", s, strings.Join(names, ", "))
}

// text reports whether f is one of the text formats.
func (f Format) text() bool { return f == Table || f == Wide }
