package tui

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// claimModel is the sheet of one NodeClaim without a Node, as `kubectl karpnet describe
// nodeclaim` prints it, in a viewport; Esc returns to the view it was opened from.
type claimModel struct {
	// opened is set once a NodeClaim is shown; back is the view Esc returns to.
	opened bool
	back   view
	report diagnose.NodeClaimReport
	taken  time.Time
	// links are the subjects the sheet names, to follow; th is the theme last rendered with.
	links refList
	th    theme
	vp    viewport.Model
}

// newClaimModel renders c's sheet over d for a w by h area, its references included.
func newClaimModel(d *data, c diagnose.NodeClaimReport, back view, th theme, w, h int) claimModel {
	m := claimModel{opened: true, back: back, report: c, taken: d.report.Taken, vp: viewport.New(w, max(h, 1))}
	m.links = newRefList(claimRefs(d, c), true)
	return m.render(th, w, h)
}

// render lays the sheet out for a w by h area, keeping the scroll position.
func (m claimModel) render(th theme, w, h int) claimModel {
	offset := m.vp.YOffset
	m.th = th
	m.vp.Width, m.vp.Height = w, max(h, 1)
	cols := min(w-1, maxSheet)
	sheet := strings.TrimRight(printer.NodeClaimSheet(m.report, m.taken, cols, th.Styles), "\n")
	if refs := m.links.block(th, cols, "tab selects, enter opens"); refs != "" {
		sheet += "\n\n" + refs
	}
	m.vp.SetContent(strings.TrimRight(sheet, "\n"))
	m.vp.SetYOffset(offset)
	return m
}

// setData shows the NodeClaim's sheet from a new report, or asks to go back once it is gone
// (it got its Node, or was deleted).
func (m claimModel) setData(d *data, _ selection) (screen, action) {
	if !m.opened {
		return m, action{}
	}
	c, ok := d.claim(rowKey(m.report.Context, claimPrefix+m.report.Name))
	if !ok {
		return m, action{kind: actShow, to: m.back}
	}
	m.report, m.taken = c, d.report.Taken
	m.links = m.links.set(claimRefs(d, c))
	return m, action{}
}

// setSize lays an opened sheet out for a w by h area.
func (m claimModel) setSize(th theme, w, h int) screen {
	if !m.opened {
		return m
	}
	return m.render(th, w, h)
}

// narrow leaves the sheet as it is: the selection narrows lists only.
func (m claimModel) narrow(selection) screen { return m }

// keys returns the NodeClaim view's bindings.
func (m claimModel) keys(k keyMap) helpKeys {
	return helpKeys{
		short: []key.Binding{k.Down, brief(k.NextRef, "links"), brief(k.OpenRef, "follow"), k.Back, k.Refresh, k.Help, k.Quit},
		full: [][]key.Binding{k.moveKeys(), {k.NextRef, k.PrevRef, k.OpenRef, k.Back, k.Copy},
			{k.Nodes, k.Findings, k.Subnets, k.Refresh, k.Help, k.Quit}},
	}
}

// update scrolls the sheet, selects a reference and follows it; Esc goes back. The root
// model's keys pass.
func (m claimModel) update(k keyMap, msg tea.KeyMsg, _ selection) (screen, action) {
	switch {
	case key.Matches(msg, k.Quit, k.Help, k.HelpAlt, k.Refresh, k.Critical, k.Warning, k.Info, k.Nodes, k.Findings, k.Subnets):
		return m, action{kind: actPass}
	case key.Matches(msg, k.OpenRef):
		return m, m.links.follow()
	case key.Matches(msg, k.NextRef):
		return m.selectLink(1), action{}
	case key.Matches(msg, k.PrevRef):
		return m.selectLink(-1), action{}
	case key.Matches(msg, k.Back):
		return m, action{kind: actShow, to: m.back}
	}
	scroll(&m.vp, k, msg)
	return m, action{}
}

// wheel scrolls the sheet with the mouse wheel.
func (m claimModel) wheel(delta int) screen {
	wheel(&m.vp, delta)
	return m
}

// view renders the visible part of the sheet.
func (m claimModel) view(theme) string { return m.vp.View() }

// where names the NodeClaim.
func (m claimModel) where() string { return claimPrefix + m.report.Name }

// selectLink selects the reference delta steps away and scrolls the sheet so that it shows.
func (m claimModel) selectLink(delta int) claimModel {
	m.links = m.links.cycle(delta)
	m = m.render(m.th, m.vp.Width, m.vp.Height)
	revealLink(&m.vp, m.links)
	return m
}
