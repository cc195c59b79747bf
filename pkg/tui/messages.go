package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// reportMsg carries a freshly loaded report and the index of its snapshot (nil when unknown).
type reportMsg struct {
	report diagnose.Report
	index  *diagnose.Index
}

// errMsg carries a failed load.
type errMsg struct{ err error }

// Error returns the load error's text.
func (e errMsg) Error() string { return e.err.Error() }

// loadCmd runs load in the background and reports its result as a message.
func loadCmd(ctx context.Context, load Loader) tea.Cmd {
	return func() tea.Msg {
		l, err := load(ctx)
		if err != nil {
			return errMsg{err}
		}
		return reportMsg{report: l.Report, index: l.Index}
	}
}

// printableError is a load error as the screen shows it: its text made style.Printable, since
// it may quote what the API server or EC2 answered.
type printableError struct{ err error }

// Error returns the error's text, escaped and bounded.
func (e printableError) Error() string { return style.Printable(e.err.Error()) }

// Unwrap returns the load error.
func (e printableError) Unwrap() error { return e.err }
