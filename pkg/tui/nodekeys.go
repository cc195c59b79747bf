package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// keys returns the node view's bindings.
func (m nodeModel) keys(k keyMap) helpKeys {
	return helpKeys{
		short: []key.Binding{k.Down, brief(k.NextTab, "section"), brief(k.NextLink, "links"), brief(k.OpenRef, "follow"), k.Back, k.Help, k.Quit},
		full: [][]key.Binding{k.moveKeys(), {k.NextTab, k.PrevTab, k.NextLink, k.PrevLink, k.OpenRef, k.Back, k.Copy},
			{k.Nodes, k.Findings, k.Subnets, k.Refresh, k.Help, k.Quit}},
	}
}

// brief returns b with a shorter description, for a footer that must fit 80 columns.
func brief(b key.Binding, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, desc))
}

// update scrolls the sheet, jumps between its sections, and selects and follows its
// references; Esc goes back. The root model's
// keys pass; any other key leaves the active tab following the scroll position.
func (m nodeModel) update(k keyMap, msg tea.KeyMsg, _ selection) (screen, action) {
	switch {
	case key.Matches(msg, k.Quit, k.Help, k.HelpAlt, k.Refresh, k.Critical, k.Warning, k.Info, k.Nodes, k.Findings, k.Subnets):
		return m, action{kind: actPass}
	case key.Matches(msg, k.OpenRef):
		return m, m.links.follow()
	case key.Matches(msg, k.NextLink):
		return m.selectLink(1), action{}
	case key.Matches(msg, k.PrevLink):
		return m.selectLink(-1), action{}
	case key.Matches(msg, k.Back):
		return m, action{kind: actShow, to: m.back}
	case key.Matches(msg, k.NextTab):
		return m.jump(1), action{}
	case key.Matches(msg, k.PrevTab):
		return m.jump(-1), action{}
	}
	scroll(&m.vp, k, msg)
	return m.scrolled(), action{}
}

// wheel scrolls the sheet with the mouse wheel.
func (m nodeModel) wheel(delta int) screen {
	wheel(&m.vp, delta)
	return m.scrolled()
}
