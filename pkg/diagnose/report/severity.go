package report

import (
	"fmt"
	"strings"
)

// Severity ranks a finding. The zero value is Info.
type Severity int

// The severities, from least to most severe. The zero value is no severity: a check's Run
// leaves a finding's severity unset when it is the check's own.
const (
	_ Severity = iota
	Info
	Warning
	Critical
)

var severityNames = [...]string{"info", "warning", "critical"}

// String returns "info", "warning" or "critical".
func (s Severity) String() string {
	if s < Info || s > Critical {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s-Info]
}

// MarshalText makes JSON and YAML carry the severity's name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSeverity parses "info", "warning" or "critical", in any case.
func ParseSeverity(name string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(name, n) {
			return Info + Severity(i), nil
		}
	}
	return Info, fmt.Errorf("unknown severity %q: use info, warning or critical", name)
}

// Worst returns the most severe severity among findings, and false when there are none.
func Worst(findings []Finding) (Severity, bool) {
	if len(findings) == 0 {
		return Info, false
	}
	w := Info
	for _, f := range findings {
		w = max(w, f.Severity)
	}
	return w, true
}
