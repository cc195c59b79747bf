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
		{name: "group under the cursor", keys: []string{"f", "down", "e"}, wantID: "instance-not-found"},
		{name: "finding in an opened group", keys: []string{"f", "enter", "down", "e"}, wantID: "subnet-ip-exhaustion"},
		{name: "finding sheet", keys: []string{"f", "enter", "down", "enter", "e"}, wantID: "subnet-ip-exhaustion"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := press(t, ready(t, demoReport(t), 100, 30), tt.keys...)
			if m.view != viewExplain || m.explain.id != tt.wantID {
				t.Fatalf("after %v: view %d explaining %q, want the explain view of %q", tt.keys, m.view, m.explain.id, tt.wantID)
			}
			screen := m.View()
			for _, want := range []string{"explain › " + tt.wantID, tt.wantID + "  ", "Fires when", "Why it matters", "esc back", "q quit"} {
				if !strings.Contains(screen, want) {
					t.Errorf("explain view lacks %q:\n%s", want, screen)
				}
			}
		})
	}
}

func TestExplainEscReturnsAndQQuits(t *testing.T) {
	m := press(t, ready(t, demoReport(t), 100, 30), "f", "enter", "down", "e")
	if m = press(t, m, "esc"); m.view != viewFindings || m.findings.open < 0 || m.findings.inner.cursor != 1 {
		t.Errorf("after esc: view %d open %d cursor %d, want the opened group with the cursor on 1",
			m.view, m.findings.open, m.findings.inner.cursor)
	}
	m = press(t, m, "enter", "e")
	if m = press(t, m, "esc"); !m.onFinding() {
		t.Errorf("esc on the explain view opened from a finding sheet: view %d, want the finding sheet", m.view)
	}
	for _, k := range []string{"q", "ctrl+c"} {
		_, cmd := press(t, m, "e").Update(keyMsg(k))
		if cmd == nil {
			t.Fatalf("%s in the explain view returned no command, want tea.Quit", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("%s in the explain view returned %T, want tea.QuitMsg", k, cmd())
		}
	}
}

func TestExplainScrolls(t *testing.T) {
	m := press(t, ready(t, demoReport(t), 60, 12), "f", "e")
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

func TestExplainFooterListsKeys(t *testing.T) {
	m := press(t, ready(t, demoReport(t), 100, 30), "f")
	if footer := m.helpView(); !strings.Contains(footer, "e explain") || !strings.Contains(footer, "? help") {
		t.Errorf("findings footer = %q, want it to list e explain and ? help", footer)
	}
	m = press(t, m, "e")
	if footer := m.helpView(); !strings.Contains(footer, "esc back") || !strings.Contains(footer, "q quit") {
		t.Errorf("explain footer = %q, want it to list esc back and q quit", footer)
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
	m := press(t, ready(t, r, 100, 30), "f", "e")
	m = update(t, m, reportMsg{report: r})
	m = update(t, m, tea.WindowSizeMsg{Width: 50, Height: 15})
	if m.view != viewExplain || m.explain.id != "subnet-ip-exhaustion" {
		t.Fatalf("after a refresh and a resize: view %d explaining %q, want the explain view kept", m.view, m.explain.id)
	}
	checkScreen(t, "explain resized", m, false)
}
