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
	case stateFailed:
		body = m.failedView()
	default:
		switch m.view {
		case viewNodes:
			body = m.nodes.view(m.th)
		case viewNode:
			body = m.node.view(m.th)
		case viewFindings:
			body = m.findings.view(m.th)
		case viewSubnets:
			body = m.subnets.view(m.th)
		case viewExplain:
			body = m.explain.view()
		}
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
	if m.state == stateReady {
		parts = append(parts, m.th.Strong.Render(m.where()))
		if m.input.Focused() {
			parts = append(parts, m.input.View())
		} else if d := m.sel.describe(); d != "" {
			parts = append(parts, m.th.Header.Render(d))
		}
	}
	return fit(strings.Join(parts, "  "), m.width, false)
}

// where names the active view and how much of it is shown.
func (m Model) where() string {
	switch m.view {
	case viewNode:
		return "node/" + m.node.name()
	case viewExplain:
		return "explain › " + m.explain.id
	case viewFindings:
		if m.findings.open >= 0 {
			return fmt.Sprintf("findings › %s %d", m.data.groups[m.findings.open].id, len(m.findings.items))
		}
		return fmt.Sprintf("findings %d/%d checks", len(m.findings.groups), len(m.data.groups))
	case viewSubnets:
		return fmt.Sprintf("subnets %d/%d", len(m.subnets.shown), len(m.data.subnets))
	}
	s := fmt.Sprintf("nodes %d/%d", m.nodes.shown(), len(m.data.rows))
	if m.nodes.group != groupNone {
		s += "  by " + m.nodes.group.String()
	}
	return s
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
