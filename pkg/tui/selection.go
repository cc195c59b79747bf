package tui

import (
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// selection narrows the lists: a filter over lower-case search text and severity toggles.
type selection struct {
	// query is the lower-case filter text; empty matches everything.
	query string
	// only holds the severities toggled on with 1, 2 and 3, indexed by severity; none on shows all.
	only [diagnose.Critical + 1]bool
}

// withQuery returns the selection with the filter text q.
func (s selection) withQuery(q string) selection {
	s.query = strings.ToLower(strings.TrimSpace(q))
	return s
}

// toggled reports whether any severity toggle is on.
func (s selection) toggled() bool { return s.only != [diagnose.Critical + 1]bool{} }

// match reports whether an item of severity sev with search text hay is shown; an item with
// noSeverity shows only while no toggle is on.
func (s selection) match(sev diagnose.Severity, hay string) bool {
	if s.toggled() && (sev < noSeverity || int(sev) >= len(s.only) || !s.only[sev]) {
		return false
	}
	return s.query == "" || strings.Contains(hay, s.query)
}

// describe says what the selection shows, for the status line; empty when it shows all.
func (s selection) describe() string {
	var parts []string
	if s.query != "" {
		parts = append(parts, "/"+s.query)
	}
	var only []string
	for _, sev := range severities() {
		if s.only[sev] {
			only = append(only, sev.String())
		}
	}
	if len(only) > 0 {
		parts = append(parts, "only "+strings.Join(only, "+"))
	}
	return strings.Join(parts, "  ")
}
