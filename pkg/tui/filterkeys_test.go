package tui

import (
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

func TestFilterKeysComeFromKeyMap(t *testing.T) {
	m := ready(t, demoReport(t), 80, 24)
	m.keys.Apply = key.NewBinding(key.WithKeys("tab"))
	m.keys.Back = key.NewBinding(key.WithKeys("ctrl+g"))
	m = press(t, m, "/", "g", "e", "n", "tab")
	if m.input.Focused() || m.sel.query != "gen" {
		t.Fatalf("after /gen and the rebound apply key: focused %v query %q, want the filter kept as %q", m.input.Focused(), m.sel.query, "gen")
	}
	m = press(t, m, "/", "x")
	m = update(t, m, tea.KeyMsg{Type: tea.KeyCtrlG})
	if m.input.Focused() || m.sel.query != "" {
		t.Errorf("after the rebound back key: focused %v query %q, want the filter cleared", m.input.Focused(), m.sel.query)
	}
}

func TestFilterCtrlCQuits(t *testing.T) {
	m := press(t, ready(t, demoReport(t), 80, 24), "/", "g")
	_, cmd := m.Update(keyMsg("ctrl+c"))
	if cmd == nil {
		t.Fatal("ctrl+c while filtering returned no command, want tea.Quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Errorf("ctrl+c while filtering returned %T, want tea.QuitMsg", cmd())
	}
}
