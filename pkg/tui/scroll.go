package tui

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// scroll moves vp for a cursor or paging key and reports whether msg was one.
func scroll(vp *viewport.Model, k keyMap, msg tea.KeyMsg) bool {
	switch {
	case key.Matches(msg, k.Up):
		vp.ScrollUp(1)
	case key.Matches(msg, k.Down):
		vp.ScrollDown(1)
	case key.Matches(msg, k.PageUp):
		vp.PageUp()
	case key.Matches(msg, k.PageDown):
		vp.PageDown()
	case key.Matches(msg, k.Home):
		vp.GotoTop()
	case key.Matches(msg, k.End):
		vp.GotoBottom()
	default:
		return false
	}
	return true
}

// wheel scrolls vp by delta lines, up when negative.
func wheel(vp *viewport.Model, delta int) {
	if delta < 0 {
		vp.ScrollUp(-delta)
		return
	}
	vp.ScrollDown(delta)
}
