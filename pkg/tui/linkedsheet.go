package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// linkedSheet is a scrollable sheet that ends with its references: what the NodeClaim and
// subject sheets share (where Esc goes, the references, the theme last laid out with, the
// viewport).
type linkedSheet struct {
	// opened is set once a subject is shown; back is the view Esc returns to.
	opened bool
	back   view
	links  refList
	th     theme
	vp     viewport.Model
}

// newLinkedSheet returns an opened sheet of w by h with links; Esc returns to back.
func newLinkedSheet(back view, links refList, w, h int) linkedSheet {
	return linkedSheet{opened: true, back: back, links: links, vp: viewport.New(w, max(h, 1))}
}

// lay sets what sheet renders at the sheet's columns, with the references under it, as the
// content of a w by h area, keeping the scroll position.
func (s linkedSheet) lay(th theme, w, h int, sheet func(cols int) string) linkedSheet {
	offset := s.vp.YOffset
	s.th = th
	s.vp.Width, s.vp.Height = w, max(h, 1)
	cols := min(w-1, maxSheet)
	content := strings.TrimRight(sheet(cols), "\n")
	if refs := s.links.block(th, cols, "tab selects, enter opens"); refs != "" {
		content += "\n\n" + refs
	}
	s.vp.SetContent(strings.TrimRight(content, "\n"))
	s.vp.SetYOffset(offset)
	return s
}

// key scrolls the sheet, selects a reference and follows it, and goes back on Esc; the root
// model's keys pass. moved says the selection moved: the sheet must be laid out again and the
// selected reference revealed.
func (s linkedSheet) key(k keyMap, msg tea.KeyMsg) (_ linkedSheet, act action, moved bool) {
	switch {
	case key.Matches(msg, k.Quit, k.Help, k.HelpAlt, k.Refresh, k.Critical, k.Warning, k.Info, k.Nodes, k.Findings, k.Subnets):
		return s, action{kind: actPass}, false
	case key.Matches(msg, k.OpenRef):
		return s, s.links.follow(), false
	case key.Matches(msg, k.NextRef):
		s.links = s.links.cycle(1)
		return s, action{}, true
	case key.Matches(msg, k.PrevRef):
		s.links = s.links.cycle(-1)
		return s, action{}, true
	case key.Matches(msg, k.Back):
		return s, action{kind: actShow, to: s.back}, false
	}
	scroll(&s.vp, k, msg)
	return s, action{}, false
}
