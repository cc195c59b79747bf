package tui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// keys returns the findings view's bindings.
// In an opened group, y and Y copy the remedy of the finding under the cursor.
func (m findingsModel) keys(k keyMap) helpKeys {
	_, selected := m.selectedCheck()
	var explain []key.Binding
	if selected {
		explain = []key.Binding{k.Explain}
	}
	if m.open >= 0 {
		short := k.listKeys(m.inner, selected)
		if selected {
			short = append(short, k.findingCopyKeys()...)
		}
		return helpKeys{
			short: append(append(short, explain...), k.Back, k.Filter, k.Help, k.Quit),
			full: [][]key.Binding{k.moveKeys(), append(append([]key.Binding{k.Open, k.Explain}, k.findingCopyKeys()...), k.Back),
				k.narrowKeys(), k.otherViewKeys(k.Findings)},
		}
	}
	return helpKeys{
		short: append(append(k.listKeys(m.list, selected), explain...), k.Back, k.Filter, k.Help, k.Quit),
		full:  [][]key.Binding{k.moveKeys(), append([]key.Binding{k.Open, k.Explain, k.Back}, k.narrowKeys()...), k.otherViewKeys(k.Findings)},
	}
}

// copyText returns the commands of the finding under the cursor in an opened group.
func (m findingsModel) copyText() (string, string, bool) {
	f, ok := m.selectedFinding()
	if !ok {
		return "", "", false
	}
	return commandsClip(m.d.rawFinding(f))
}

// copyProse returns the remedy's prose of the finding under the cursor in an opened group.
func (m findingsModel) copyProse() (string, string, bool) {
	f, ok := m.selectedFinding()
	if !ok {
		return "", "", false
	}
	return proseClip(m.d.rawFinding(f))
}

// update explains the check under the cursor, opens a group or a finding's sheet, closes the
// group, and moves the cursor.
func (m findingsModel) update(k keyMap, msg tea.KeyMsg, sel selection) (screen, action) {
	switch {
	case key.Matches(msg, k.Explain):
		if id, ok := m.selectedCheck(); ok {
			return m, action{kind: actExplain, arg: id}
		}
	case key.Matches(msg, k.Open):
		if m.open < 0 {
			return m.enter(sel), action{}
		}
		if _, ok := m.selectedFinding(); ok {
			return m, action{kind: actOpenFinding}
		}
		return m, action{}
	case key.Matches(msg, k.Back):
		if m.open < 0 {
			return m, action{kind: actBack}
		}
		m.open = -1
		return m.apply(sel), action{}
	case m.active().moveKey(k, msg):
		return m, action{}
	}
	return m, action{kind: actPass}
}

// wheel moves the active list's cursor with the mouse wheel.
func (m findingsModel) wheel(delta int) screen {
	m.active().wheel(delta)
	return m
}

// where names the opened group and its findings, or counts the groups shown.
func (m findingsModel) where() string {
	if m.open >= 0 {
		return fmt.Sprintf("findings › %s %d", m.d.groups[m.open].id, len(m.items))
	}
	return fmt.Sprintf("findings %d/%d checks", len(m.groups), len(m.d.groups))
}
