package tui

import (
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// tab is a section of the node view and the sheet header it starts at; alt is another header
// that starts it on some nodes.
type tab struct {
	label, short, header, alt string
}

// nodeTabs returns the node view's sections in sheet order.
func nodeTabs() []tab {
	return []tab{
		{"Overview", "Overview", "Identity", ""},
		{"Addresses & subnet", "Addr", "Addresses", ""},
		{"Security groups", "SGs", "Security groups", ""},
		{"ENIs", "ENIs", "ENIs", ""},
		{"Capacity", "Cap", "Pod capacity", printer.CiliumIPAMHeader},
		{"EFA & placement", "EFA", "EFA", ""},
		{"Findings", "Find", "Findings", ""},
		{"References", "Refs", "References", ""}, // the TUI's own, after the sheet: last

	}
}

// maxSheet is the widest the sheet is laid out, for lines the eye can follow.
const maxSheet = 120

// section is a tab found in a rendered sheet, at line.
type section struct {
	tab  tab
	line int
}

// nodeModel is one node's describe sheet in a viewport, with tabs that jump to its sections,
// ending with the subjects it names, to follow.
type nodeModel struct {
	linkedSheet
	report diagnose.NodeReport
	// uses are the findings on what the node uses (its subnets, pod subnets, pool, class).
	uses     []diagnose.Finding
	findings int
	sections []section
	// tab is the active section.
	tab int
}

// newNodeModel renders n's sheet over d for a w by h area, the tab bar and the references
// included; Esc returns to back.
func newNodeModel(d *data, n diagnose.NodeReport, back view, th theme, w, h int) nodeModel {
	m := nodeModel{linkedSheet: newLinkedSheet(back, newRefList(nodeRefs(d, n), true), w, h-1), report: n,
		uses: d.report.OnWhatUses(n), findings: len(n.Findings)}
	return m.render(th, w, h)
}

// setData shows the node's sheet from a new report, or asks to go back when it is gone.
func (m nodeModel) setData(d *data, _ selection) (screen, action) {
	if !m.opened {
		return m, action{}
	}
	n, ok := d.node(rowKey(m.report.Context, m.name()))
	if !ok {
		return m, action{kind: actShow, to: m.back}
	}
	m.report, m.uses, m.findings = n, d.report.OnWhatUses(n), len(n.Findings)
	m.links = m.links.set(nodeRefs(d, n))
	return m, action{}
}

// setSize lays an opened sheet out for a w by h area.
func (m nodeModel) setSize(th theme, w, h int) screen {
	if !m.opened {
		return m
	}
	// The sheet is laid out again for the new width: its sections move, and the tab bar follows.
	return m.render(th, w, h).scrolled()
}

// narrow leaves the sheet as it is: the selection narrows lists only.
func (m nodeModel) narrow(selection) screen { return m }

// where names the node.
func (m nodeModel) where() string { return "node/" + m.name() }

// render lays the sheet out for a w by h area, the tab bar's line included, keeping the scroll
// position. The tabs are the sections the printer says it wrote, at the lines it wrote them,
// then the References the sheet lists.
func (m nodeModel) render(th theme, w, h int) nodeModel {
	var written []printer.Section
	m.linkedSheet, _ = m.lay(th, w, h-1, func(cols int, th theme) string {
		text, sections := printer.NodeSheetSections(m.report, m.uses, cols, th.Styles)
		written = sections
		return text
	}, nil)
	m.sections = m.sections[:0:0]
	tabs := nodeTabs()
	for _, sec := range written {
		for _, t := range tabs {
			if sec.Header == t.header || t.alt != "" && sec.Header == t.alt {
				m.sections = append(m.sections, section{tab: t, line: sec.Line})
			}
		}
	}
	if m.refsAt > 0 {
		m.sections = append(m.sections, section{tab: tabs[len(tabs)-1], line: m.refsAt - 1})
	}
	m.tab = min(m.tab, max(len(m.sections)-1, 0))
	return m
}

// name returns the node's name.
func (m nodeModel) name() string { return m.report.Identity.Node }

// jump moves to the section delta tabs away, wrapping around.
func (m nodeModel) jump(delta int) nodeModel {
	if len(m.sections) == 0 {
		return m
	}
	m.tab = (m.tab + delta + len(m.sections)) % len(m.sections)
	m.vp.SetYOffset(m.sections[m.tab].line)
	return m
}

// scrolled updates the active tab after the viewport moved: the last section started above
// the top line; at the bottom of the sheet, References while a reference is selected (it is
// on screen), or a later section already chosen (jumped to) when the sheet cannot scroll
// further.
func (m nodeModel) scrolled() nodeModel {
	at := 0
	for i, s := range m.sections {
		if s.line <= m.vp.YOffset {
			at = i
		}
	}
	switch last := len(m.sections) - 1; {
	case !m.vp.AtBottom():
		m.tab = at
	case m.links.pick >= 0 && m.refsAt > 0 && last >= 0 && m.sections[last].tab.header == "References":
		m.tab = last
	case m.tab <= at:
		m.tab = at
	}
	return m
}

// view renders the tab bar and the visible part of the sheet.
func (m nodeModel) view(th theme) string {
	return m.tabBar(th, false) + "\n" + m.vp.View()
}

// tabBar renders the sections with the active one bracketed, short labels when narrow.
func (m nodeModel) tabBar(th theme, short bool) string {
	parts := make([]string, len(m.sections))
	for i, s := range m.sections {
		label := s.tab.label
		if short {
			label = s.tab.short
		}
		if s.tab.header == "Findings" {
			label += " (" + strconv.Itoa(m.findings) + ")"
		}
		if i == m.tab {
			parts[i] = th.TabActive.Render("[" + label + "]")
			continue
		}
		parts[i] = th.Tab.Render(" " + label + " ")
	}
	bar := strings.Join(parts, " ")
	if !short && width(bar) > m.vp.Width {
		return m.tabBar(th, true)
	}
	return fit(bar, m.vp.Width, false)
}
