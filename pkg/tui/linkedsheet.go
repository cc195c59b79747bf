package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// linkedSheet is a scrollable sheet with its references: what every sheet shares (where Esc
// goes, the references, the theme last laid out with, the viewport and where the references
// are in it).
type linkedSheet struct {
	// opened is set once a subject is shown; back is the view Esc returns to.
	opened bool
	back   view
	links  refList
	th     theme
	vp     viewport.Model
	// refsAt is the line of the content the first reference is on; 0 without references.
	refsAt int
}

// refsHint names the keys that select and follow a reference, after the References heading.
const refsHint = "tab or ] selects, enter opens"

// newLinkedSheet returns an opened sheet of w by h with links; Esc returns to back.
func newLinkedSheet(back view, links refList, w, h int) linkedSheet {
	return linkedSheet{opened: true, back: back, links: links, vp: viewport.New(w, max(h, 1))}
}

// lay sets the content of a w by h area, keeping the scroll position: body at the sheet's
// columns, the references under it, then tail when it is set, each a blank line apart. It
// returns the content.
func (s linkedSheet) lay(th theme, w, h int, body, tail func(cols int, th theme) string) (linkedSheet, string) {
	offset := s.vp.YOffset
	s.th = th
	s.vp.Width, s.vp.Height = w, max(h, 1)
	cols := min(w-1, maxSheet)
	content := strings.TrimRight(body(cols, th), "\n")
	s.refsAt = 0
	if refs := strings.TrimRight(s.links.block(th, cols, refsHint), "\n"); refs != "" {
		// A blank line, then the References heading, then the references.
		s.refsAt = strings.Count(content, "\n") + 3
		content += "\n\n" + refs
	}
	if tail != nil {
		if more := strings.TrimRight(tail(cols, th), "\n"); more != "" {
			content += "\n\n" + more
		}
	}
	s.vp.SetContent(content)
	s.vp.SetYOffset(offset)
	return s, content
}

// key scrolls the sheet, selects a reference and follows it, and goes back on Esc; the root
// model's keys pass. moved says the selection moved: the sheet must be laid out again and the
// selected reference revealed.
func (s linkedSheet) key(k keyMap, msg tea.KeyMsg) (_ linkedSheet, act action, moved bool) {
	switch {
	case key.Matches(msg, k.passKeys()...):
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

// reveal scrolls the sheet so that the selected reference shows.
func (s *linkedSheet) reveal() {
	if s.links.pick < 0 {
		return
	}
	line := s.refsAt + s.links.pick
	if line < s.vp.YOffset || line >= s.vp.YOffset+s.vp.Height {
		s.vp.SetYOffset(line - s.vp.Height/2)
	}
}

// below is how many lines of the sheet are below the screen.
func (s linkedSheet) below() int {
	return max(s.vp.TotalLineCount()-s.vp.YOffset-s.vp.Height, 0)
}

// view renders the visible part of the sheet.
func (s linkedSheet) view(theme) string { return s.vp.View() }
