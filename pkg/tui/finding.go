package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/viewport"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// findingModel is one finding's sheet: its message and remedy in full, what it is about, the
// subjects it names (the ones the TUI can open selectable), and its check's catalogue entry,
// in a viewport. Esc returns to the view it was opened from.
type findingModel struct {
	// opened is set once a finding is shown; back is the view Esc returns to.
	opened bool
	back   view
	f      diagnose.Finding
	links  refList
	// th is the theme the sheet was last rendered with, to render it again when the selection moves.
	th theme
	vp viewport.Model
}

// newFindingModel renders f's sheet over d for a w by h area; Esc returns to back. The first
// reference that can be opened, the finding's own subject when the TUI has a view of it, is
// selected.
func newFindingModel(d *data, f diagnose.Finding, back view, th theme, w, h int) findingModel {
	m := findingModel{opened: true, back: back, f: f, vp: viewport.New(w, max(h, 1))}
	m.links = newRefList(findingRefs(d, f), false)
	return m.render(th, w, h)
}

// withRefs sets the references, keeping the selected one when it can still be opened.
func (m findingModel) withRefs(refs []ref) findingModel {
	m.links = m.links.set(refs)
	return m
}

// render lays the sheet out for a w by h area, keeping the scroll position.
func (m findingModel) render(th theme, w, h int) findingModel {
	offset := m.vp.YOffset
	m.th = th
	m.vp.Width, m.vp.Height = w, max(h, 1)
	cols := min(w-1, maxSheet)
	var b strings.Builder
	b.WriteString(printer.FindingSheet(m.f, cols, th.Styles))
	b.WriteString(m.links.block(th, cols, "tab selects, enter opens"))
	if doc, ok := catalogueDoc(m.f.ID); ok {
		b.WriteString("\n" + th.Header.Render("About the check") + "\n")
		b.WriteString(printer.ExplainSheet(doc, cols, th.Styles))
	}
	m.vp.SetContent(strings.TrimRight(b.String(), "\n"))
	m.vp.SetYOffset(offset)
	return m
}

// setData shows the finding from a new report, or asks to go back once it is gone.
func (m findingModel) setData(d *data, _ selection) (screen, action) {
	if !m.opened {
		return m, action{}
	}
	for _, f := range d.report.Findings {
		if f.ID == m.f.ID && f.Node == m.f.Node && f.Resource == m.f.Resource {
			m.f = f
			return m.withRefs(findingRefs(d, f)), action{}
		}
	}
	return m, action{kind: actShow, to: m.back}
}

// setSize lays an opened sheet out for a w by h area.
func (m findingModel) setSize(th theme, w, h int) screen {
	if !m.opened {
		return m
	}
	return m.render(th, w, h)
}

// narrow leaves the sheet as it is: the selection narrows lists only.
func (m findingModel) narrow(selection) screen { return m }

// wheel scrolls the sheet with the mouse wheel.
func (m findingModel) wheel(delta int) screen {
	wheel(&m.vp, delta)
	return m
}

// view renders the visible part of the sheet.
func (m findingModel) view(theme) string { return m.vp.View() }

// where names the finding by check and subject.
func (m findingModel) where() string {
	subject := m.f.Resource
	if m.f.Node != "" {
		subject = "node/" + m.f.Node
	}
	return "finding › " + m.f.ID + " " + subject
}
