package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// subjectModel is the sheet of a subnet, NodeClass, NodePool or placement group a finding
// names, as `kubectl karpnet describe` prints it, in a viewport; Esc returns to the view it
// was opened from. On a subnet's sheet Enter lists the subnet in the subnets view.
type subjectModel struct {
	// opened is set once a subject is shown; back is the view Esc returns to.
	opened  bool
	back    view
	subject string
	sheet   sheetFunc
	vp      viewport.Model
}

// newSubjectModel renders sheet, subject's, for a w by h area.
func newSubjectModel(subject string, sheet sheetFunc, back view, th theme, w, h int) subjectModel {
	m := subjectModel{opened: true, back: back, subject: subject, sheet: sheet, vp: viewport.New(w, max(h, 1))}
	return m.render(th, w, h)
}

// render lays the sheet out for a w by h area, keeping the scroll position.
func (m subjectModel) render(th theme, w, h int) subjectModel {
	offset := m.vp.YOffset
	m.vp.Width, m.vp.Height = w, max(h, 1)
	m.vp.SetContent(strings.TrimRight(m.sheet(min(w-1, maxSheet), th.Styles), "\n"))
	m.vp.SetYOffset(offset)
	return m
}

// setData shows the subject's sheet from a new report, or asks to go back once the snapshot
// no longer holds it.
func (m subjectModel) setData(d *data, _ selection) (screen, action) {
	if !m.opened {
		return m, action{}
	}
	sheet, _, ok := d.subjects.sheet(m.subject)
	if !ok {
		return m, action{kind: actShow, to: m.back}
	}
	m.sheet = sheet
	return m, action{}
}

// setSize lays an opened sheet out for a w by h area.
func (m subjectModel) setSize(th theme, w, h int) screen {
	if !m.opened {
		return m
	}
	return m.render(th, w, h)
}

// narrow leaves the sheet as it is: the selection narrows lists only.
func (m subjectModel) narrow(selection) screen { return m }

// keys returns the subject sheet's bindings: Enter only on a subnet's.
func (m subjectModel) keys(k keyMap) helpKeys {
	short := []key.Binding{k.Up, k.Down, k.PageDown, k.Back, k.Refresh, k.Help, k.Quit}
	full := [][]key.Binding{k.moveKeys(), {k.Back}, {k.Refresh, k.Help, k.Quit}}
	if m.isSubnet() {
		open := key.NewBinding(key.WithKeys(k.Open.Keys()...), key.WithHelp(k.Open.Help().Key, "subnets view"))
		short = append([]key.Binding{open}, short...)
		full[1] = []key.Binding{open, k.Back}
	}
	return helpKeys{short: short, full: full}
}

// isSubnet reports whether the sheet is a subnet's.
func (m subjectModel) isSubnet() bool { return strings.HasPrefix(m.subject, "subnet/") }

// update scrolls the sheet; Enter on a subnet's lists it in the subnets view, Esc goes back.
// The root model's keys pass.
func (m subjectModel) update(k keyMap, msg tea.KeyMsg, _ selection) (screen, action) {
	switch {
	case key.Matches(msg, k.Quit, k.Help, k.HelpAlt, k.Refresh, k.Critical, k.Warning, k.Info, k.Nodes, k.Findings, k.Subnets):
		return m, action{kind: actPass}
	case key.Matches(msg, k.Open):
		if m.isSubnet() {
			return m, action{kind: actSubnet, arg: strings.TrimPrefix(m.subject, "subnet/")}
		}
		return m, action{}
	case key.Matches(msg, k.Back):
		return m, action{kind: actShow, to: m.back}
	}
	scroll(&m.vp, k, msg)
	return m, action{}
}

// wheel scrolls the sheet with the mouse wheel.
func (m subjectModel) wheel(delta int) screen {
	wheel(&m.vp, delta)
	return m
}

// view renders the visible part of the sheet.
func (m subjectModel) view(theme) string { return m.vp.View() }

// where names the subject.
func (m subjectModel) where() string { return m.subject }
