package tui

import (
	"context"
	"io"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// demoReport analyses the embedded demo cluster.
func demoReport(tb testing.TB) diagnose.Report {
	tb.Helper()
	s, err := demo.Snapshot()
	if err != nil {
		tb.Fatalf("reading the demo snapshot: %v", err)
	}
	return diagnose.Analyze(s, diagnose.Options{})
}

// plain returns colourless styles, so screens are stable text.
func plain() *style.Styles { return style.New(style.Renderer(io.Discard, false)) }

// demoLoaded analyses the embedded demo cluster and keeps its index, as the command's loader does.
func demoLoaded(tb testing.TB) Loaded {
	tb.Helper()
	s, err := demo.Snapshot()
	if err != nil {
		tb.Fatalf("reading the demo snapshot: %v", err)
	}
	return Loaded{Report: diagnose.Analyze(s, diagnose.Options{}), Index: diagnose.NewIndex(s)}
}

// fixedLoader always returns r, without an index.
func fixedLoader(r diagnose.Report) Loader {
	return func(context.Context) (Loaded, error) { return Loaded{Report: r}, nil }
}

// readyLoaded returns a model showing l on a w by h screen.
func readyLoaded(tb testing.TB, l Loaded, w, h int) Model {
	tb.Helper()
	m := New(func(context.Context) (Loaded, error) { return l, nil }, Options{Styles: plain(), Title: "demo"})
	m = update(tb, m, tea.WindowSizeMsg{Width: w, Height: h})
	return update(tb, m, reportMsg{report: l.Report, index: l.Index})
}

// ready returns a model showing r on a w by h screen.
func ready(tb testing.TB, r diagnose.Report, w, h int) Model {
	tb.Helper()
	m := New(fixedLoader(r), Options{Styles: plain(), Title: "demo"})
	m = update(tb, m, tea.WindowSizeMsg{Width: w, Height: h})
	return update(tb, m, reportMsg{report: r})
}

// update sends msg to m and returns the new root model.
func update(tb testing.TB, m Model, msg tea.Msg) Model {
	tb.Helper()
	next, _ := m.Update(msg)
	got, ok := next.(Model)
	if !ok {
		tb.Fatalf("Update returned %T, want tui.Model", next)
	}
	return got
}

// press sends each key in keys to m: names such as "enter", "esc", "down", or single runes.
func press(tb testing.TB, m Model, keys ...string) Model {
	tb.Helper()
	for _, k := range keys {
		m = update(tb, m, keyMsg(k))
	}
	return m
}

// keyMsg builds the key message for a key name or a single rune.
func keyMsg(k string) tea.KeyMsg {
	named := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "up": tea.KeyUp, "down": tea.KeyDown,
		"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd,
		"tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab, "backspace": tea.KeyBackspace,
		"ctrl+c": tea.KeyCtrlC, "left": tea.KeyLeft, "right": tea.KeyRight,
	}
	if t, ok := named[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// activeList returns the cursor of the active list view, or nil in the node and explain views.
func (m *Model) activeList() *cursorList {
	switch m.view {
	case viewNodes:
		return &m.nodes.list
	case viewFindings:
		return m.findings.active()
	case viewSubnets:
		return &m.subnets.list
	}
	return nil
}

// onFinding reports whether a finding's sheet is shown.
func (m Model) onFinding() bool {
	return m.view == viewSheet && strings.HasPrefix(m.sheet.where(), "finding › ")
}

// onClaim reports whether a NodeClaim's sheet is shown.
func (m Model) onClaim() bool {
	return m.view == viewSheet && strings.HasPrefix(m.sheet.where(), claimPrefix)
}

// onSubject reports whether the sheet of a subnet, NodePool, class or placement group is shown.
func (m Model) onSubject() bool { return m.view == viewSheet && !m.onFinding() && !m.onClaim() }

// shownFinding returns the finding whose sheet is shown, or the zero finding.
func (m Model) shownFinding() diagnose.Finding {
	for _, f := range m.data.report.Findings {
		if m.onFinding() && findingWhere(f) == m.sheet.where() {
			return f
		}
	}
	return diagnose.Finding{}
}
