package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/spinner"
)

// TestLoadingShowsProgress: the loading screen shows what the load has done, read at each
// spinner tick, escaped and on one line.
func TestLoadingShowsProgress(t *testing.T) {
	text := "12,500 of 100,000 nodes listed"
	m := New(fixedLoader(demoReport(t)), Options{Styles: plain(), Progress: func() string { return text }})
	if got := m.View(); strings.Contains(got, "nodes listed") {
		t.Fatalf("progress shown before the first tick:\n%s", got)
	}
	m = update(t, m, spinner.TickMsg{ID: m.spin.ID()})
	if got := m.View(); !strings.Contains(got, "12,500 of 100,000 nodes listed") {
		t.Errorf("loading screen lacks the progress:\n%s", got)
	}
	text = "cluster \x1b]0;owned\x07\nname"
	m = update(t, m, spinner.TickMsg{ID: m.spin.ID()})
	got := m.View()
	if strings.ContainsAny(got, "\x1b\x07") || !strings.Contains(got, `cluster \x1b]0;owned\x07 name`) {
		t.Errorf("progress with control characters not escaped on one line:\n%q", got)
	}
}
