package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// keys returns the node view's bindings.
func (m nodeModel) keys(k keyMap) helpKeys {
	var short []key.Binding
	if len(m.sections) > 1 {
		short = append(short, brief(k.NextTab, "section"))
	}
	return k.sheetKeys(m.linkedSheet, short, []key.Binding{k.NextTab, k.PrevTab, k.Copy})
}

// brief returns b with a shorter description, for a footer that must fit 80 columns.
func brief(b key.Binding, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, desc))
}

// update jumps between the sheet's sections, scrolls it, and selects (scrolling to it) and
// follows its references; Esc goes back. The root model's keys pass; any other key leaves the
// active tab following the scroll position.
func (m nodeModel) update(k keyMap, msg tea.KeyMsg, _ selection) (screen, action) {
	switch {
	case key.Matches(msg, k.NextTab):
		return m.jump(1), action{}
	case key.Matches(msg, k.PrevTab):
		return m.jump(-1), action{}
	}
	var act action
	var moved bool
	if m.linkedSheet, act, moved = m.key(k, msg); moved {
		m = m.render(m.th, m.vp.Width, m.vp.Height+1)
		m.reveal()
	}
	return m.scrolled(), act
}

// wheel scrolls the sheet with the mouse wheel.
func (m nodeModel) wheel(delta int) screen {
	wheel(&m.vp, delta)
	return m.scrolled()
}
