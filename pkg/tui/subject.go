package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// subjectModel is the sheet of a subnet, NodeClass, NodePool or placement group a finding
// names, as `kubectl karpnet describe` prints it, in a viewport; Esc returns to the view it
// was opened from. Its references (on a subnet's sheet the subnets view first) can be
// selected and followed.
type subjectModel struct {
	// opened is set once a subject is shown; back is the view Esc returns to.
	opened  bool
	back    view
	subject string
	sheet   sheetFunc
	// links are the subjects the sheet names, to follow; th is the theme last rendered with.
	links refList
	th    theme
	vp    viewport.Model
}

// seeAlso heads the list of related subjects `describe` prints at the end of a sheet.
const seeAlso = "See also (describe KIND NAME)"

// newSubjectModel renders sheet, subject's, over d for a w by h area, its references included.
func newSubjectModel(d *data, subject string, sheet sheetFunc, back view, th theme, w, h int) subjectModel {
	m := subjectModel{opened: true, back: back, subject: subject, sheet: sheet, vp: viewport.New(w, max(h, 1))}
	m.links = newRefList(subjectRefs(d, subject), !strings.HasPrefix(subject, "subnet/"))
	return m.render(th, w, h)
}

// render lays the sheet out for a w by h area, keeping the scroll position.
func (m subjectModel) render(th theme, w, h int) subjectModel {
	offset := m.vp.YOffset
	m.th = th
	m.vp.Width, m.vp.Height = w, max(h, 1)
	cols := min(w-1, maxSheet)
	sheet := strings.TrimRight(m.sheet(cols, th.Styles), "\n")
	if i := strings.Index(sheet, seeAlso); i >= 0 && len(m.links.refs) > 0 {
		// The printed sheet's "See also" names what the References below can open.
		sheet = strings.TrimRight(sheet[:strings.LastIndex(sheet[:i], "\n")+1], "\n")
	}
	if refs := m.links.block(th, cols, "tab selects, enter opens"); refs != "" {
		sheet += "\n\n" + refs
	}
	m.vp.SetContent(strings.TrimRight(sheet, "\n"))
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
	m.links = m.links.set(subjectRefs(d, m.subject))
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

// keys returns the subject sheet's bindings.
func (m subjectModel) keys(k keyMap) helpKeys {
	return helpKeys{
		short: []key.Binding{k.Down, brief(k.NextRef, "links"), brief(k.OpenRef, "follow"), k.Back, k.Refresh, k.Help, k.Quit},
		full:  [][]key.Binding{k.moveKeys(), {k.NextRef, k.PrevRef, k.OpenRef, k.Back}, {k.Refresh, k.Help, k.Quit}},
	}
}

// update scrolls the sheet, selects a reference and follows it (on a subnet's sheet the first
// lists the subnet in the subnets view); Esc goes back. The root model's keys pass.
func (m subjectModel) update(k keyMap, msg tea.KeyMsg, _ selection) (screen, action) {
	switch {
	case key.Matches(msg, k.Quit, k.Help, k.HelpAlt, k.Refresh, k.Critical, k.Warning, k.Info, k.Nodes, k.Findings, k.Subnets):
		return m, action{kind: actPass}
	case key.Matches(msg, k.OpenRef):
		return m, m.links.follow()
	case key.Matches(msg, k.NextRef):
		return m.selectLink(1), action{}
	case key.Matches(msg, k.PrevRef):
		return m.selectLink(-1), action{}
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

// selectLink selects the reference delta steps away and scrolls the sheet so that it shows.
func (m subjectModel) selectLink(delta int) subjectModel {
	m.links = m.links.cycle(delta)
	m = m.render(m.th, m.vp.Width, m.vp.Height)
	revealLink(&m.vp, m.links)
	return m
}
