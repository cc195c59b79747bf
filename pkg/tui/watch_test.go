package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

func TestReadAtSaysTheTimeAndAge(t *testing.T) {
	taken := time.Date(2026, 12, 1, 12, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		clock time.Time
		want  string
	}{
		{time.Time{}, "read 2026-12-01T12:04:05Z"},
		{taken.Add(35 * time.Second), "read 12:04:05, 35s ago"},
		{taken.Add(5 * time.Minute), "read 12:04:05, 5m ago"},
		{taken.Add(-time.Second), "read 12:04:05, 0s ago"},
		{taken.Add(50 * time.Hour), "read 2026-12-01 12:04:05, 2d ago"},
	} {
		if got := readAt(taken, c.clock); got != c.want {
			t.Errorf("readAt(clock %s) = %q, want %q", c.clock, got, c.want)
		}
	}
	if got := readAt(time.Time{}, taken); got != "read unknown" {
		t.Errorf("readAt(zero) = %q, want read unknown", got)
	}
}

// watchClock is a settable clock for watch-mode models.
type watchClock struct{ at time.Time }

func (c *watchClock) now() time.Time { return c.at }

// countingLoader returns reports in turn, the last one again once they run out, and counts its calls.
func countingLoader(calls *int, reports ...diagnose.Report) Loader {
	return func(context.Context) (Loaded, error) {
		r := reports[min(*calls, len(reports)-1)]
		*calls++
		return Loaded{Report: r}, nil
	}
}

// runCmd runs cmd and the commands it batches, returning the messages that are not ticks.
func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	var out []tea.Msg
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			out = append(out, runCmd(c)...)
		}
	case nil, clockMsg:
	default:
		if _, ok := msg.(interface{ Error() string }); ok || isReport(msg) {
			out = append(out, msg)
		}
	}
	return out
}

func isReport(msg tea.Msg) bool { _, ok := msg.(reportMsg); return ok }

func TestWatchReloadsOnTheIntervalOneLoadAtATime(t *testing.T) {
	r := demoReport(t)
	clock := &watchClock{at: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	calls := 0
	m := New(countingLoader(&calls, r), Options{Styles: plain(), Title: "demo", Watch: 15 * time.Second, WatchNote: "watch: every 15s (raised from 5s: EC2 budget)", Now: clock.now})
	if !strings.Contains(m.View(), "watch: every 15s (raised from 5s: EC2 budget)") {
		t.Fatalf("the status line does not say the raised interval:\n%s", m.View())
	}
	m = update(t, m, reportMsg{report: r})
	start := clock.at
	step := func(d time.Duration) []tea.Msg {
		clock.at = start.Add(d)
		next, cmd := m.Update(clockMsg{at: clock.at})
		m = next.(Model)
		return runCmd(cmd)
	}
	if msgs := step(14 * time.Second); len(msgs) != 0 || m.busy {
		t.Fatalf("a load started before the interval passed: %v", msgs)
	}
	msgs := step(15 * time.Second)
	if len(msgs) != 1 || !m.busy {
		t.Fatalf("no single load at the interval: %d messages, busy %v", len(msgs), m.busy)
	}
	if again := step(40 * time.Second); len(again) != 0 {
		t.Fatalf("a second load started while one ran: %v", again)
	}
	m = update(t, m, msgs[0])
	if m.busy || calls != 1 {
		t.Fatalf("after the load: busy %v, %d calls; want idle and 1", m.busy, calls)
	}
	if msgs := step(54 * time.Second); len(msgs) != 0 {
		t.Fatalf("the interval did not restart when the load ended: %v", msgs)
	}
	if msgs := step(55 * time.Second); len(msgs) != 1 {
		t.Fatalf("no load an interval after the last ended: %v", msgs)
	}
}

func TestHeaderSaysHowOldTheReadIsAndTheTickUpdatesIt(t *testing.T) {
	r := demoReport(t)
	clock := &watchClock{at: r.Taken.Add(35 * time.Second)}
	m := New(fixedLoader(r), Options{Styles: plain(), Title: "demo", Watch: time.Minute, Now: clock.now})
	m = update(t, m, tea.WindowSizeMsg{Width: 120, Height: 30})
	m = update(t, m, reportMsg{report: r})
	want := "read " + r.Taken.UTC().Format("15:04:05") + ", 35s ago"
	if !strings.Contains(m.View(), want) {
		t.Fatalf("header lacks %q:\n%s", want, m.View())
	}
	m = update(t, m, clockMsg{at: r.Taken.Add(3 * time.Minute)})
	if !strings.Contains(m.View(), ", 3m ago") {
		t.Fatalf("the tick did not update the age:\n%s", m.View())
	}
}
