package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// subjectModel is the sheet of a subnet, NodeClass, NodePool or placement group a finding
// names, as `kubectl karpnet describe` prints it, in a viewport; Esc returns to the view it
// was opened from. Its references (on a subnet's sheet the subnets view first) can be
// selected and followed.
type subjectModel struct {
	linkedSheet
	subject string
	sheet   sheetFunc
}

// seeAlso heads the list of related subjects `describe` prints at the end of a sheet.
const seeAlso = "See also (describe KIND NAME)"

// newSubjectModel renders sheet, subject's, over d for a w by h area, its references included.
func newSubjectModel(d *data, subject string, sheet sheetFunc, back view, th theme, w, h int) subjectModel {
	links := newRefList(subjectRefs(d, subject), !strings.HasPrefix(subject, "subnet/"))
	m := subjectModel{linkedSheet: newLinkedSheet(back, links, w, h), subject: subject, sheet: sheet}
	return m.render(th, w, h)
}

// render lays the sheet out for a w by h area, keeping the scroll position.
func (m subjectModel) render(th theme, w, h int) subjectModel {
	m.linkedSheet = m.lay(th, w, h, func(cols int) string {
		sheet := strings.TrimRight(m.sheet(cols, th.Styles), "\n")
		if i := strings.Index(sheet, seeAlso); i >= 0 && len(m.links.refs) > 0 {
			// The printed sheet's "See also" names what the References below can open.
			sheet = sheet[:strings.LastIndex(sheet[:i], "\n")+1]
		}
		return sheet
	})
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
	var act action
	var moved bool
	if m.linkedSheet, act, moved = m.key(k, msg); moved {
		m = m.render(m.th, m.vp.Width, m.vp.Height)
		revealLink(&m.vp, m.links)
	}
	return m, act
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
