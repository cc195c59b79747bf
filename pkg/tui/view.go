package tui

import (
	"fmt"
	"strings"
)

// View renders the screen: header, the active view, the status line and the help footer.
// It is a pure function of the model.
func (m Model) View() string {
	body := ""
	switch m.state {
	case stateLoading:
		body = "\n  " + m.spin.View() + " loading the report…"
		if m.progressText != "" {
			body += "\n\n  " + m.th.Dim.Render(m.progressText)
		}
	case stateFailed:
		body = m.failedView()
	default:
		body = m.active().view(m.th)
	}
	header, help := m.chrome()
	lines := strings.Split(header+"\n"+fixHeight(body, m.bodyHeightFor(header, help))+"\n"+m.statusView()+"\n"+help, "\n")
	// Views lay their lines out to the width; this cuts what a very narrow screen cannot hold.
	for i, l := range lines {
		if width(l) > m.width {
			lines[i] = fit(l, m.width, false)
		}
	}
	return strings.Join(lines, "\n")
}

// failedView explains that the first load failed and how to retry.
func (m Model) failedView() string {
	msg := m.th.Error.Width(max(m.width-4, 10)).Render("✖ could not load the report: " + m.err.Error())
	lines := []string{""}
	for _, l := range strings.Split(msg, "\n") {
		lines = append(lines, "  "+l)
	}
	lines = append(lines, "", "  "+m.th.Dim.Render("press r to retry, q to quit"))
	return strings.Join(lines, "\n")
}

// statusView renders one line: a load in progress or a failed refresh, then what is shown.
func (m Model) statusView() string {
	var parts []string
	switch {
	case m.busy && m.data != nil:
		parts = append(parts, m.spin.View()+" refreshing…")
	case m.err != nil && m.data != nil:
		parts = append(parts, m.th.Error.Render("✖ refresh failed: "+m.err.Error()+" (r retries)"))
	}
	if m.note != "" {
		parts = append(parts, m.th.Header.Render(m.note))
	}
	if m.state == stateReady {
		parts = append(parts, m.th.Strong.Render(m.active().where()))
		if m.input.Focused() {
			parts = append(parts, m.input.View())
		} else if d := m.sel.describe(); d != "" {
			parts = append(parts, m.th.Header.Render(d))
		}
	}
	line := strings.Join(parts, "  ")
	if more := m.moreMark(); more != "" && width(more)+2 <= m.width {
		// What the sheet holds below the screen, at the line's right end: the rest is cut first.
		return fit(line, m.width-width(more)-2, true) + "  " + more
	}
	return fit(line, m.width, false)
}

// scroller is a view whose content can continue below the screen: a sheet.
type scroller interface {
	// below is how many lines are below the screen.
	below() int
}

// moreMark says, dim, how many lines of the active sheet are below the screen ("↓ 12 more
// lines"); it is empty at the bottom and in a view that is not a sheet.
func (m Model) moreMark() string {
	s, ok := m.active().(scroller)
	if m.state != stateReady || !ok {
		return ""
	}
	switch n := s.below(); n {
	case 0:
		return ""
	case 1:
		return m.th.Dim.Render("↓ 1 more line")
	default:
		return m.th.Dim.Render(fmt.Sprintf("↓ %d more lines", n))
	}
}

// fixHeight cuts or pads s to exactly h lines.
func fixHeight(s string, h int) string {
	n := strings.Count(s, "\n") + 1
	switch {
	case n > h:
		idx := 0
		for range h {
			next := strings.IndexByte(s[idx:], '\n')
			idx += next + 1
		}
		return s[:idx-1]
	case n < h:
		return s + strings.Repeat("\n", h-n)
	}
	return s
}
