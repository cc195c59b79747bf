package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// explainModel is one check's catalogue sheet, as `kubectl karpnet explain ID` prints it, in a
// viewport: a sheet without references. Esc returns to the view it was opened from.
type explainModel struct {
	linkedSheet
	id  string
	doc printer.CheckDoc
	// known is false when the catalogue has no entry for id; the view then says so in one line.
	known bool
}

// catalogueDoc returns the catalogue entry of check id.
func catalogueDoc(id string) (printer.CheckDoc, bool) {
	for _, c := range diagnose.Checks() {
		if c.ID == id {
			return printer.Docs([]diagnose.Check{c})[0], true
		}
	}
	return printer.CheckDoc{}, false
}

// newExplainModel renders check id's sheet for a w by h area; Esc returns to back.
func newExplainModel(id string, back view, th theme, w, h int) explainModel {
	doc, ok := catalogueDoc(id)
	m := explainModel{linkedSheet: newLinkedSheet(back, refList{pick: -1}, w, h), id: id, doc: doc, known: ok}
	return m.render(th, w, h)
}

// render lays the sheet out for a w by h area, keeping the scroll position.
func (m explainModel) render(th theme, w, h int) explainModel {
	m.linkedSheet, _ = m.lay(th, w, h, func(cols int, th theme) string {
		if !m.known {
			return th.Dim.Render(fit("  no catalogue entry for check "+m.id+": `kubectl karpnet explain --list` lists them", w, false))
		}
		return printer.ExplainSheet(m.doc, cols, th.Styles)
	}, nil)
	return m
}

// setData keeps the sheet: the catalogue does not change with the report.
func (m explainModel) setData(*data, selection) (screen, action) { return m, action{} }

// setSize lays an opened sheet out for a w by h area.
func (m explainModel) setSize(th theme, w, h int) screen {
	if !m.opened {
		return m
	}
	return m.render(th, w, h)
}

// narrow leaves the sheet as it is.
func (m explainModel) narrow(selection) screen { return m }

// keys returns the explain view's bindings.
func (m explainModel) keys(k keyMap) helpKeys {
	return helpKeys{
		short: append(k.scrollKeys(!m.vp.AtBottom(), !m.vp.AtTop()), k.Back, k.Help, k.Quit),
		full:  [][]key.Binding{k.moveKeys(), {k.Back}, k.viewKeys()},
	}
}

// update scrolls the sheet; Esc goes back. The root model's keys pass.
func (m explainModel) update(k keyMap, msg tea.KeyMsg, _ selection) (screen, action) {
	var act action
	m.linkedSheet, act, _ = m.key(k, msg)
	return m, act
}

// wheel scrolls the sheet with the mouse wheel.
func (m explainModel) wheel(delta int) screen {
	wheel(&m.vp, delta)
	return m
}

// where names the check.
func (m explainModel) where() string { return "explain › " + m.id }
