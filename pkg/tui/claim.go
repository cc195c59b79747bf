package tui

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// claimModel is the sheet of one NodeClaim without a Node, as `kubectl karpnet describe
// nodeclaim` prints it, in a viewport; Esc returns to the view it was opened from.
type claimModel struct {
	linkedSheet
	report diagnose.NodeClaimReport
	taken  time.Time
}

// newClaimModel renders c's sheet over d for a w by h area, its references included.
func newClaimModel(d *data, c diagnose.NodeClaimReport, back view, th theme, w, h int) claimModel {
	m := claimModel{linkedSheet: newLinkedSheet(back, newRefList(claimRefs(d, c), true), w, h), report: c, taken: d.report.Taken}
	return m.render(th, w, h)
}

// render lays the sheet out for a w by h area, keeping the scroll position.
func (m claimModel) render(th theme, w, h int) claimModel {
	m.linkedSheet = m.lay(th, w, h, func(cols int) string { return printer.NodeClaimSheet(m.report, m.taken, cols, th.Styles) })
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
	var act action
	var moved bool
	if m.linkedSheet, act, moved = m.key(k, msg); moved {
		m = m.render(m.th, m.vp.Width, m.vp.Height)
		revealLink(&m.vp, m.links)
	}
	return m, act
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
