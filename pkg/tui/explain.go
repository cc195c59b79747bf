package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// explainModel is one check's catalogue sheet, as `kubectl karpnet explain ID` prints it, in a
// viewport; Esc or q returns to the view it was opened from.
type explainModel struct {
	id   string
	back view
	doc  printer.CheckDoc
	// known is false when the catalogue has no entry for id; the view then says so in one line.
	known bool
	vp    viewport.Model
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

// newExplainModel renders check id's sheet for a w by h area; Esc or q returns to back.
func newExplainModel(id string, back view, th theme, w, h int) explainModel {
	doc, ok := catalogueDoc(id)
	m := explainModel{id: id, back: back, doc: doc, known: ok, vp: viewport.New(w, max(h, 1))}
	return m.render(th, w, h)
}

// render lays the sheet out for a w by h area, keeping the scroll position.
func (m explainModel) render(th theme, w, h int) explainModel {
	offset := m.vp.YOffset
	m.vp.Width, m.vp.Height = w, max(h, 1)
	text := th.Dim.Render(fit("  no catalogue entry for check "+m.id+": `kubectl karpnet explain --list` lists them", w, false))
	if m.known {
		text = strings.TrimRight(printer.ExplainSheet(m.doc, min(w-1, maxSheet), th.Styles), "\n")
	}
	m.vp.SetContent(text)
	m.vp.SetYOffset(offset)
	return m
}

// setData keeps the sheet: the catalogue does not change with the report.
func (m explainModel) setData(*data, selection) (screen, action) { return m, action{} }

// setSize lays an opened sheet out for a w by h area.
func (m explainModel) setSize(th theme, w, h int) screen {
	if m.id == "" {
		return m
	}
	return m.render(th, w, h)
}

// narrow leaves the sheet as it is.
func (m explainModel) narrow(selection) screen { return m }

// keys returns the explain view's bindings: q closes the sheet here, so ctrl+c quits.
func (m explainModel) keys(k keyMap) helpKeys {
	return helpKeys{
		short: []key.Binding{k.Up, k.Down, k.PageDown, k.Close, k.Help, k.QuitNow},
		full:  [][]key.Binding{k.moveKeys(), {k.Close, k.Refresh, k.Help, k.QuitNow}},
	}
}

// update scrolls the sheet; Esc or q goes back. Only quitting, help and refresh pass to the
// root model: the view takes every other key.
func (m explainModel) update(k keyMap, msg tea.KeyMsg, _ selection) (screen, action) {
	switch {
	case key.Matches(msg, k.Close):
		return m, action{kind: actShow, to: m.back}
	case key.Matches(msg, k.QuitNow, k.Help, k.HelpAlt, k.Refresh):
		return m, action{kind: actPass}
	}
	scroll(&m.vp, k, msg)
	return m, action{}
}

// wheel scrolls the sheet with the mouse wheel.
func (m explainModel) wheel(delta int) screen {
	wheel(&m.vp, delta)
	return m
}

// view renders the visible part of the sheet.
func (m explainModel) view(theme) string { return m.vp.View() }

// where names the check.
func (m explainModel) where() string { return "explain › " + m.id }
