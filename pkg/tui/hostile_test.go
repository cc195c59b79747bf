package tui

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostiletext"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// TestScreensEscapeControlCharacters shows a report whose every string carries escape
// sequences and control characters, under a kube context and a load error that carry them too:
// no screen lets one reach the terminal raw, and every screen keeps its size, even with
// messages of several lines.
func TestScreensEscapeControlCharacters(t *testing.T) {
	r := hostiletext.Poison(demoReport(t))
	// Newlines are kept for the node sheet's paragraphs, but a row or the header stays one line.
	r.Region += "\nsecond line"
	for i := range r.Findings {
		r.Findings[i].Message = "first line\n" + r.Findings[i].Message
	}
	screens := map[string][]string{
		"nodes":          nil,
		"node":           {"enter"},
		"node, findings": {"enter", "{"},
		"explain":        {"f", "e"},
		"node, links":    {"enter", "]", "]"},
		"node, followed": {"enter", "]", "enter", "tab"},
		"findings":       {"f"},
		"findings group": {"f", "enter"},
		"finding sheet":  {"f", "down", "enter", "enter", "tab"},
		"finding, node":  {"f", "down", "enter", "enter", "enter"},
		"subnets":        {"s"},
		"grouped":        {"g", "g"},
		"filtering":      {"/", "e"},
		"help":           {"?"},
	}
	for _, colour := range []bool{false, true} {
		st := style.New(style.Renderer(io.Discard, colour))
		for name, keys := range screens {
			for _, size := range [][2]int{{80, 24}, {200, 60}} {
				m := New(fixedLoader(r), Options{Styles: st, Title: "prod" + hostiletext.Text})
				m = update(t, m, reportMsg{report: r})
				m = press(t, m, keys...)
				m = m.resize(size[0], size[1])
				m = update(t, m, errMsg{errors.New("listing nodes: " + hostiletext.Text)})
				checkScreen(t, name, m, colour)
			}
		}
	}
	failed := New(fixedLoader(r), Options{Styles: plain(), Title: hostiletext.Text})
	failed = update(t, failed, errMsg{errors.New("no credentials" + hostiletext.Text)})
	checkScreen(t, "failed first load", failed, false)
}

// checkScreen fails the test when m's screen holds a raw control character, is taller than m
// or has a line wider than it.
func checkScreen(t *testing.T, name string, m Model, colour bool) {
	t.Helper()
	got := m.View()
	if bad := hostiletext.RawControls(got, colour); len(bad) > 0 {
		t.Errorf("%s (%dx%d, colour %v): %d raw control characters reach the screen, e.g. %q",
			name, m.width, m.height, colour, len(bad), bad[0])
	}
	if l := m.activeList(); l != nil && m.state == stateReady {
		body := map[view]func(theme) string{viewNodes: m.nodes.view, viewFindings: m.findings.view, viewSubnets: m.subnets.view}[m.view](m.th)
		// The headings, the rows, and in the findings view the line of resolved findings under them.
		extra := 1
		if m.view == viewFindings {
			extra += m.findings.resolvedLines()
		}
		if n := strings.Count(body, "\n") + 1; n > l.height+extra {
			t.Errorf("%s (%dx%d): the list takes %d lines for %d rows, its headings and %d more", name, m.width, m.height, n, l.height, extra-1)
		}
	}
	lines := strings.Split(got, "\n")
	if len(lines) > m.height {
		t.Errorf("%s (%dx%d): the screen has %d lines", name, m.width, m.height, len(lines))
	}
	for i, l := range lines {
		if w := width(l); w > m.width {
			t.Errorf("%s (%dx%d): line %d is %d columns: %q", name, m.width, m.height, i+1, w, l)
		}
	}
}

// TestSmallestScreenFits shows every screen, the full help and an empty filter result on the
// smallest screen the UI lays out (20 by 8): nothing is taller or wider than the window.
func TestSmallestScreenFits(t *testing.T) {
	r := demoReport(t)
	for name, keys := range map[string][]string{
		"nodes": nil, "full help": {"?"}, "node": {"enter"}, "findings": {"f"}, "explain": {"f", "e"}, "group": {"f", "enter"},
		"finding": {"f", "enter", "enter"}, "subnets": {"s"}, "no match": {"/", "z", "z", "enter"},
	} {
		m := press(t, ready(t, r, 20, 8), keys...)
		checkScreen(t, name, m, false)
	}
}
