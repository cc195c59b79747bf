package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// cursorList is the cursor and scroll position of a list of n lines, height of them visible.
// Lines marked in skips (group headings) never hold the cursor; nil skips none.
type cursorList struct {
	n, cursor, offset, height int
	skips                     []bool
}

// selectable reports whether line i can hold the cursor.
func (l *cursorList) selectable(i int) bool { return i >= len(l.skips) || !l.skips[i] }

// move moves the cursor by delta lines, landing on a selectable line, and scrolls to it. On
// an empty list the cursor stays on line 0, which selected never returns.
func (l *cursorList) move(delta int) {
	if l.n <= 0 {
		l.cursor, l.offset = 0, 0
		return
	}
	target := min(max(l.cursor+delta, 0), l.n-1)
	step := 1
	if delta < 0 {
		step = -1
	}
	l.cursor = l.nearest(target, step)
	l.scroll()
}

// nearest finds the selectable line closest to i, looking in direction step first.
func (l *cursorList) nearest(i, step int) int {
	for j := i; j >= 0 && j < l.n; j += step {
		if l.selectable(j) {
			return j
		}
	}
	for j := i; j >= 0 && j < l.n; j -= step {
		if l.selectable(j) {
			return j
		}
	}
	return min(max(i, 0), max(l.n-1, 0))
}

// canMove reports whether a selectable line lies beyond the cursor in direction step.
func (l *cursorList) canMove(step int) bool {
	for j := l.cursor + step; j >= 0 && j < l.n; j += step {
		if l.selectable(j) {
			return true
		}
	}
	return false
}

// top and bottom move to the first and last selectable line.
func (l *cursorList) top()    { l.cursor, l.offset = 0, 0; l.move(0) }
func (l *cursorList) bottom() { l.cursor = max(l.n-1, 0); l.move(0) }

// selected returns the line under the cursor, and false when the list is empty.
func (l *cursorList) selected() (int, bool) {
	if l.cursor < 0 || l.cursor >= l.n {
		return 0, false
	}
	return l.cursor, true
}

// page moves by a screenful.
func (l *cursorList) page(dir int) { l.move(dir * max(l.height-1, 1)) }

// wheel scrolls by lines, as a mouse wheel does, moving the cursor with the view.
func (l *cursorList) wheel(delta int) { l.move(delta) }

// reset sets the line count and cursor, clamping both, and scrolls the cursor into view.
func (l *cursorList) reset(n, cursor int) {
	l.n = n
	l.cursor = min(max(cursor, 0), max(n-1, 0))
	l.move(0)
	l.scroll()
}

// resize changes how many lines are visible.
func (l *cursorList) resize(height int) {
	l.height = max(height, 1)
	l.scroll()
}

// scroll adjusts the offset so the cursor is visible and the view holds no empty tail. A
// heading just above the cursor is kept in view too.
func (l *cursorList) scroll() {
	if l.cursor < l.offset {
		l.offset = l.cursor
		if l.offset > 0 && !l.selectable(l.offset-1) {
			l.offset--
		}
	}
	if l.cursor >= l.offset+l.height {
		l.offset = l.cursor - l.height + 1
	}
	l.offset = max(min(l.offset, l.n-l.height), 0)
}

// visible returns the range of lines on screen.
func (l *cursorList) visible() (from, to int) { return l.offset, min(l.offset+l.height, l.n) }

// moveKey moves the cursor for a cursor or paging key and reports whether msg was one.
func (l *cursorList) moveKey(k keyMap, msg tea.KeyMsg) bool {
	switch {
	case key.Matches(msg, k.Up):
		l.move(-1)
	case key.Matches(msg, k.Down):
		l.move(1)
	case key.Matches(msg, k.PageUp):
		l.page(-1)
	case key.Matches(msg, k.PageDown):
		l.page(1)
	case key.Matches(msg, k.Home):
		l.top()
	case key.Matches(msg, k.End):
		l.bottom()
	default:
		return false
	}
	return true
}
