package tui

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/karpnet/kubectl-karpnet/internal/budget"
)

// watchFloor is the shortest watch interval, shared with serve's --interval (internal/budget).
const watchFloor = budget.Floor

// clockStep is how often the clock ticks in watch mode, updating the header's age.
const clockStep = time.Second

// watchEvery returns the interval watch mode re-collects on for a requested one: at least
// watchFloor, and whether the request was raised to it. Zero or less means no watch.
func watchEvery(requested time.Duration) (time.Duration, bool) {
	return budget.Interval(requested, watchFloor)
}

// watchNote is the status line that says the watch interval, and why it was raised.
func watchNote(requested, every time.Duration, raised bool) string {
	if raised {
		return fmt.Sprintf("watch: every %s (raised from %s: EC2 budget)", every, requested)
	}
	return fmt.Sprintf("watch: every %s", every)
}

// clockMsg is the clock's tick in watch mode.
type clockMsg struct{ at time.Time }

// clockTick schedules the next clockMsg.
func clockTick() tea.Cmd {
	return tea.Tick(clockStep, func(t time.Time) tea.Msg { return clockMsg{at: t} })
}

// tick moves the clock to at and, in watch mode, starts a load once the interval has passed
// since the last one ended and none is running.
func (m Model) tick(at time.Time) (Model, tea.Cmd) {
	m.clock = at
	cmds := []tea.Cmd{clockTick()}
	if !m.busy && !m.loadedAt.IsZero() && at.Sub(m.loadedAt) >= m.every {
		m.busy = true
		cmds = append(cmds, loadCmd(m.ctx, m.load), m.spin.Tick)
	}
	return m, tea.Batch(cmds...)
}

// readAt says when the report was read and, when the clock is known, how long ago:
// "read 12:04:05, 35s ago"; a read on another day than the clock's gives the date too.
func readAt(taken, clock time.Time) string {
	if taken.IsZero() {
		return "read unknown"
	}
	t := taken.UTC()
	if clock.IsZero() {
		return "read " + t.Format(time.RFC3339)
	}
	c := clock.UTC()
	at := t.Format("15:04:05")
	if t.YearDay() != c.YearDay() || t.Year() != c.Year() {
		at = t.Format("2006-01-02 15:04:05")
	}
	return "read " + at + ", " + age(c.Sub(t)) + " ago"
}

// age formats d in its largest whole unit: 35s, 4m, 3h, 2d; a negative d (clock skew) is 0s.
func age(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}
