package tui

import (
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// noSeverity is the zero diagnose.Severity: the level of a node or subnet with no finding.
const noSeverity diagnose.Severity = 0

// severities are the severities a finding can have, worst first.
func severities() []diagnose.Severity {
	return []diagnose.Severity{diagnose.Critical, diagnose.Warning, diagnose.Info}
}

// levelSeverity returns the severity a level names, or noSeverity for the node states that
// name none: ok, initialising, terminating and skipped.
func levelSeverity(level string) diagnose.Severity {
	for _, s := range severities() {
		if level == s.String() {
			return s
		}
	}
	return noSeverity
}

// judged reports whether a level with no severity is a node the checks looked at and found
// healthy, as opposed to one they skipped.
func judged(level string) bool {
	switch level {
	case style.LevelOK, style.LevelInitialising, style.LevelTerminating:
		return true
	}
	return false
}

// levelOrder is how a level sorts: by severity, then judged above skipped.
type levelOrder struct {
	severity diagnose.Severity
	judged   bool
}

// orderOf returns the sort key of level.
func orderOf(level string) levelOrder {
	sev := levelSeverity(level)
	return levelOrder{severity: sev, judged: sev != noSeverity || judged(level)}
}

// compare orders a before b when it is less severe: negative, zero or positive.
func (a levelOrder) compare(b levelOrder) int {
	switch {
	case a.severity != b.severity:
		return int(a.severity) - int(b.severity)
	case a.judged == b.judged:
		return 0
	case b.judged:
		return -1
	}
	return 1
}
