package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// wheelLines is how far one mouse wheel step scrolls.
const wheelLines = 3

// Update handles a message: loads, the terminal size, keys and the mouse.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg.(type) {
	case reportMsg, errMsg, tea.KeyMsg:
		if m.now != nil {
			m.clock = m.now()
		}
	}
	switch msg := msg.(type) {
	case clockMsg:
		return m.tick(msg.at)
	case tea.WindowSizeMsg:
		return m.resize(msg.Width, msg.Height), nil
	case spinner.TickMsg:
		if !m.busy {
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		if m.progress != nil {
			m.progressText = strings.ReplaceAll(style.Printable(m.progress()), "\n", " ")
		}
		return m, cmd
	case reportMsg:
		m.loadedAt = m.clock
		return m.loaded(msg.report, msg.index), nil
	case errMsg:
		m.loadedAt = m.clock
		m.busy, m.err = false, printableError(msg)
		if m.data == nil {
			m.state = stateFailed
		}
		return m.resize(m.width, m.height), nil
	case tea.KeyMsg:
		m.note = ""
		return m.key(msg)
	case copiedMsg:
		m.note = copiedNote(msg)
		return m, nil
	case tea.MouseMsg:
		return m.mouse(msg), nil
	}
	return m, nil
}

// loaded shows a new report, keeping the view, the cursor and an open node where they are; a
// view whose subject is gone goes back.
func (m Model) loaded(r diagnose.Report, x *diagnose.Index) Model {
	m.busy, m.err, m.state = false, nil, stateReady
	prev := m.data
	m.data = derive(style.PrintableCopy(r), m.th.Styles)
	if prev != nil {
		m.data.markChanges(compareFindings(prev.report, m.data.report))
	}
	m.data.subjects = subjects{index: x, report: r}
	m = m.resize(m.width, m.height)
	gone := action{}
	for _, s := range m.screens() {
		next, act := s.setData(m.data, m.sel)
		if s.id == m.view {
			gone = act
		}
		m.put(next)
	}
	if gone.kind == actShow {
		return m.switchTo(gone.to)
	}
	return m.resize(m.width, m.height)
}

// key handles a key press: the filter input first, then the active view's keys, then the
// root's.
func (m Model) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if m.input.Focused() {
		return m.filterKey(msg)
	}
	if m.help.ShowAll && key.Matches(msg, m.keys.Back) {
		// Esc closes the full help before it goes back in the view.
		m.help.ShowAll = false
		return m.resize(m.width, m.height), nil
	}
	if c, ok := m.active().(copier); ok && m.state == stateReady && key.Matches(msg, m.keys.Copy) {
		return m.copy(c.copyText())
	}
	if c, ok := m.active().(proseCopier); ok && m.state == stateReady && key.Matches(msg, m.keys.CopyText) {
		return m.copy(c.copyProse())
	}
	if m.state == stateReady {
		next, act := m.active().update(m.keys, msg, m.sel)
		m.put(next)
		if act.kind != actPass {
			return m.do(act), nil
		}
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return m, tea.Quit
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
		return m.resize(m.width, m.height), nil
	case key.Matches(msg, k.Refresh):
		if m.busy {
			return m, nil
		}
		m.busy = true
		return m, tea.Batch(loadCmd(m.ctx, m.load), m.spin.Tick)
	}
	if m.state != stateReady {
		return m, nil
	}
	switch {
	case key.Matches(msg, k.Filter):
		m.input.Focus()
		return m.resize(m.width, m.height), nil
	case key.Matches(msg, k.Critical):
		return m.toggle(diagnose.Critical), nil
	case key.Matches(msg, k.Warning):
		return m.toggle(diagnose.Warning), nil
	case key.Matches(msg, k.Info):
		return m.toggle(diagnose.Info), nil
	case key.Matches(msg, k.Nodes):
		m.trail, m.sheets = nil, nil
		return m.switchTo(viewNodes), nil
	case key.Matches(msg, k.Findings):
		m.trail, m.sheets = nil, nil
		return m.switchTo(viewFindings), nil
	case key.Matches(msg, k.Subnets):
		m.trail, m.sheets = nil, nil
		return m.switchTo(viewSubnets), nil
	}
	return m, nil
}

// filterKey edits the filter: Enter keeps it, Esc clears it, anything else narrows live.
func (m Model) filterKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch k := m.keys; {
	case key.Matches(msg, k.QuitNow):
		return m, tea.Quit
	case key.Matches(msg, k.Back):
		m.input.SetValue("")
		m.input.Blur()
		m.sel = m.sel.withQuery("")
		return m.applySel().resize(m.width, m.height), nil
	case key.Matches(msg, k.Apply):
		m.input.Blur()
		return m.resize(m.width, m.height), nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if sel := m.sel.withQuery(m.input.Value()); sel != m.sel {
		m.sel = sel
		m = m.applySel()
	}
	return m, cmd
}

// toggle shows or stops showing only findings of severity sev.
func (m Model) toggle(sev diagnose.Severity) Model {
	m.sel.only[sev] = !m.sel.only[sev]
	return m.applySel()
}

// applySel narrows the active view to the selection.
func (m Model) applySel() Model {
	m.put(m.active().narrow(m.sel))
	return m
}

// switchTo shows view v with the selection applied.
func (m Model) switchTo(v view) Model {
	if v == viewPrev {
		return m.backToSheet()
	}
	m.view = v
	return m.applySel().resize(m.width, m.height)
}
