package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func TestExplainOpensCatalogueOfSelectedCheck(t *testing.T) {
	tests := []struct {
		name   string
		keys   []string
		wantID string
	}{
		{name: "group under the cursor", keys: []string{"f", "down", "?"}, wantID: "instance-not-found"},
		{name: "finding in an opened group", keys: []string{"f", "enter", "down", "?"}, wantID: "subnet-ip-exhaustion"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := press(t, ready(t, demoReport(t), 100, 30), tt.keys...)
			if m.view != viewExplain || m.explain.id != tt.wantID {
				t.Fatalf("after %v: view %d explaining %q, want the explain view of %q", tt.keys, m.view, m.explain.id, tt.wantID)
			}
			screen := m.View()
			for _, want := range []string{"explain › " + tt.wantID, tt.wantID + "  ", "Fires when", "Why it matters", "esc/q back"} {
				if !strings.Contains(screen, want) {
					t.Errorf("explain view lacks %q:\n%s", want, screen)
				}
			}
		})
	}
}

func TestExplainEscAndQReturnToFindings(t *testing.T) {
	for _, k := range []string{"esc", "q"} {
		t.Run(k, func(t *testing.T) {
			m := press(t, ready(t, demoReport(t), 100, 30), "f", "enter", "down", "?")
			next, cmd := m.Update(keyMsg(k))
			m = next.(Model)
			if cmd != nil {
				t.Errorf("%s in the explain view returned a command, want none (it must not quit)", k)
			}
			if m.view != viewFindings || m.findings.open < 0 || m.findings.inner.cursor != 1 {
				t.Errorf("after %s: view %d open %d cursor %d, want the opened group with the cursor on 1",
					k, m.view, m.findings.open, m.findings.inner.cursor)
			}
		})
	}
}

func TestExplainCtrlCQuits(t *testing.T) {
	m := press(t, ready(t, demoReport(t), 100, 30), "f", "?")
	_, cmd := m.Update(keyMsg("ctrl+c"))
	if cmd == nil {
		t.Fatal("ctrl+c in the explain view returned no command, want tea.Quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Errorf("ctrl+c in the explain view returned %T, want tea.QuitMsg", cmd())
	}
}

func TestExplainScrolls(t *testing.T) {
	m := press(t, ready(t, demoReport(t), 60, 12), "f", "?")
	if m.explain.vp.YOffset != 0 {
		t.Fatalf("explain view opened at line %d, want the top", m.explain.vp.YOffset)
	}
	m = press(t, m, "down", "down")
	if m.explain.vp.YOffset != 2 {
		t.Errorf("after two downs the sheet is at line %d, want 2", m.explain.vp.YOffset)
	}
	m = press(t, m, "end")
	if !m.explain.vp.AtBottom() || m.explain.vp.YOffset == 2 {
		t.Errorf("after end the sheet is at line %d, want its bottom", m.explain.vp.YOffset)
	}
	m = update(t, m, tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	if m.explain.vp.AtBottom() {
		t.Errorf("the wheel did not scroll the sheet up from line %d", m.explain.vp.YOffset)
	}
	checkScreen(t, "explain scrolled", m, false)
}

func TestExplainKeepsHelpReachable(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		want viewOrHelp
	}{
		{name: "? is help on the nodes", keys: []string{"?"}, want: viewOrHelp{viewNodes, true}},
		{name: "? explains in the findings", keys: []string{"f", "?"}, want: viewOrHelp{viewExplain, false}},
		{name: "H is help in the findings", keys: []string{"f", "H"}, want: viewOrHelp{viewFindings, true}},
		{name: "? is help in the explain view", keys: []string{"f", "?", "?"}, want: viewOrHelp{viewExplain, true}},
		{name: "? with no group shown is help", keys: []string{"f", "/", "z", "z", "z", "enter", "?"}, want: viewOrHelp{viewFindings, true}},
		{name: "? is help in the node view", keys: []string{"enter", "?"}, want: viewOrHelp{viewNode, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := press(t, ready(t, demoReport(t), 100, 30), tt.keys...)
			if got := (viewOrHelp{m.view, m.help.ShowAll}); got != tt.want {
				t.Errorf("after %v: view %d full help %v, want view %d full help %v", tt.keys, got.view, got.help, tt.want.view, tt.want.help)
			}
		})
	}
}

// viewOrHelp is the active view and whether the full help shows.
type viewOrHelp struct {
	view view
	help bool
}

func TestExplainFooterListsKeys(t *testing.T) {
	m := press(t, ready(t, demoReport(t), 100, 30), "f")
	if footer := m.helpView(); !strings.Contains(footer, "? explain") || !strings.Contains(footer, "H help") {
		t.Errorf("findings footer = %q, want it to list ? explain and H help", footer)
	}
	m = press(t, m, "?")
	if footer := m.helpView(); !strings.Contains(footer, "esc/q back") || !strings.Contains(footer, "ctrl+c quit") {
		t.Errorf("explain footer = %q, want it to list esc/q back and ctrl+c quit", footer)
	}
}

func TestExplainUnknownCheckIsOneLine(t *testing.T) {
	m := ready(t, demoReport(t), 100, 30).openExplain("no-such-check")
	body := strings.TrimRight(m.explain.view(m.th), "\n ")
	if strings.Contains(body, "\n") || !strings.Contains(body, "no catalogue entry for check no-such-check") {
		t.Errorf("unknown check body = %q, want one line that names the check", body)
	}
	checkScreen(t, "unknown check", m, false)
}

func TestExplainSurvivesRefreshAndResize(t *testing.T) {
	r := demoReport(t)
	m := press(t, ready(t, r, 100, 30), "f", "?")
	m = update(t, m, reportMsg{report: r})
	m = update(t, m, tea.WindowSizeMsg{Width: 50, Height: 15})
	if m.view != viewExplain || m.explain.id != "subnet-ip-exhaustion" {
		t.Fatalf("after a refresh and a resize: view %d explaining %q, want the explain view kept", m.view, m.explain.id)
	}
	checkScreen(t, "explain resized", m, false)
}
