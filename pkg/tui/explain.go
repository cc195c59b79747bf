package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/viewport"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// explainModel is one check's catalogue sheet, as `kubectl karpnet explain ID` prints it, in a
// viewport; Esc or q returns to the view it was opened from.
type explainModel struct {
	id  string
	doc printer.CheckDoc
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

// newExplainModel renders check id's sheet for a w by h area.
func newExplainModel(id string, th theme, w, h int) explainModel {
	doc, ok := catalogueDoc(id)
	m := explainModel{id: id, doc: doc, known: ok, vp: viewport.New(w, max(h, 1))}
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

// view renders the visible part of the sheet.
func (m explainModel) view() string { return m.vp.View() }

// openExplain shows check id's catalogue sheet; Esc or q returns to the active view.
func (m Model) openExplain(id string) Model {
	m.view, m.explainBack = viewExplain, m.view
	m.explain = newExplainModel(id, m.th, m.width, m.bodyHeight())
	return m.resize(m.width, m.height)
}

// closeExplain returns to the view the explain view was opened from.
func (m Model) closeExplain() Model {
	m.view = m.explainBack
	return m.applySel().resize(m.width, m.height)
}
