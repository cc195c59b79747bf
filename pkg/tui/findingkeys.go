package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// keys returns the finding sheet's bindings.
func (m findingModel) keys(k keyMap) helpKeys {
	return helpKeys{
		short: []key.Binding{k.Down, k.NextRef, k.OpenRef, k.Back, k.Refresh, k.Help, k.Quit},
		full: [][]key.Binding{k.moveKeys(), {k.NextRef, k.PrevRef, k.OpenRef, k.Back, k.Copy},
			{k.Nodes, k.Findings, k.Subnets, k.Refresh, k.Help, k.Quit}},
	}
}

// update scrolls the sheet, selects a reference and follows it; Esc goes back. The root
// model's keys pass.
func (m findingModel) update(k keyMap, msg tea.KeyMsg, _ selection) (screen, action) {
	switch {
	case key.Matches(msg, k.Quit, k.Help, k.HelpAlt, k.Refresh, k.Critical, k.Warning, k.Info, k.Nodes, k.Findings, k.Subnets):
		return m, action{kind: actPass}
	case key.Matches(msg, k.OpenRef):
		return m, m.links.follow()
	case key.Matches(msg, k.Back):
		return m, action{kind: actShow, to: m.back}
	case key.Matches(msg, k.NextRef):
		m.links = m.links.cycle(1)
		return m.render(m.th, m.vp.Width, m.vp.Height), action{}
	case key.Matches(msg, k.PrevRef):
		m.links = m.links.cycle(-1)
		return m.render(m.th, m.vp.Width, m.vp.Height), action{}
	}
	scroll(&m.vp, k, msg)
	return m, action{}
}
