package tui

import "strings"

// selection narrows the lists: a filter over lower-case search text and severity toggles.
type selection struct {
	// query is the lower-case filter text; empty matches everything.
	query string
	// only holds the severities toggled on with 1, 2 and 3, by level rank; none on shows all.
	only [5]bool
}

// withQuery returns the selection with the filter text q.
func (s selection) withQuery(q string) selection {
	s.query = strings.ToLower(strings.TrimSpace(q))
	return s
}

// toggled reports whether any severity toggle is on.
func (s selection) toggled() bool { return s.only != [5]bool{} }

// match reports whether an item of level rank with search text hay is shown.
func (s selection) match(rank int, hay string) bool {
	if s.toggled() && !s.only[rank] {
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
	for _, l := range []struct {
		rank int
		name string
	}{{4, "critical"}, {3, "warning"}, {2, "info"}} {
		if s.only[l.rank] {
			only = append(only, l.name)
		}
	}
	if len(only) > 0 {
		parts = append(parts, "only "+strings.Join(only, "+"))
	}
	return strings.Join(parts, "  ")
}
