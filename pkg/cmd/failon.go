package cmd

import (
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// failOn is a parsed --fail-on: a severity, or never.
type failOn struct {
	threshold diagnose.Severity
	never     bool
}

// parseFailOn parses a --fail-on value: critical, warning, info or never, in any case.
func parseFailOn(v string) (failOn, error) {
	if strings.EqualFold(v, "never") {
		return failOn{never: true}, nil
	}
	s, err := diagnose.ParseSeverity(v)
	if err != nil {
		next := "use critical, warning, info or never"
		if hint := didYouMean(suggestions(v, []string{"critical", "warning", "info", "never"})); hint != "" {
			next = hint + " (" + next + ")"
		}
		return failOn{}, usageErrorf("--fail-on %q: %s", printableLine(v), next)
	}
	return failOn{threshold: s}, nil
}

// reached reports whether the findings at or above the threshold, as found gives them, are
// any; never is never reached.
func (f failOn) reached(found func(diagnose.Severity) []diagnose.Finding) bool {
	return !f.never && len(found(f.threshold)) > 0
}
