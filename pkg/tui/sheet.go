package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// sheetPage is what a sheet shows of its subject in one report.
type sheetPage struct {
	// where names the sheet in the status line.
	where string
	// body renders the sheet above its references; tail, when set, what follows them.
	body, tail func(cols int, th theme) string
	refs       []ref
	// manual leaves no reference selected when the sheet opens (see refList.manual).
	manual bool
	// copy is what y copies and copied what the status line calls it; empty for nothing.
	copy, copied string
	// finding, on a finding's sheet, is the finding as read: y copies its commands and Y
	// its remedy's prose.
	finding *diagnose.Finding
	// check is the check e explains; empty on the sheet of a subject.
	check string
}

// pageFinder finds a sheet's subject in a report; false when the report no longer holds it.
type pageFinder func(d *data) (sheetPage, bool)

// sheetModel is the sheet of one subject in a viewport, ending with its references, which can
// be selected and followed; Esc returns to the view it was opened from. It shows a NodeClaim
// without a Node (claimSheet), a finding (findingSheet), and a subnet, NodeClass, NodePool or
// placement group (subjectSheet).
type sheetModel struct {
	linkedSheet
	page sheetPage
	// find finds the subject again in a new report.
	find pageFinder
}

// newSheetModel renders the sheet find finds in d for a w by h area; Esc returns to back.
// False when d does not hold the subject.
func newSheetModel(d *data, find pageFinder, back view, th theme, w, h int) (sheetModel, bool) {
	p, ok := find(d)
	if !ok {
		return sheetModel{}, false
	}
	m := sheetModel{linkedSheet: newLinkedSheet(back, newRefList(p.refs, p.manual), w, h), page: p, find: find}
	return m.render(th, w, h), true
}

// render lays the sheet out for a w by h area, keeping the scroll position.
func (m sheetModel) render(th theme, w, h int) sheetModel {
	m.linkedSheet, _ = m.lay(th, w, h, m.page.body, m.page.tail)
	return m
}

// setData shows the subject's sheet from a new report, or asks to go back once the report no
// longer holds it.
func (m sheetModel) setData(d *data, _ selection) (screen, action) {
	if !m.opened {
		return m, action{}
	}
	p, ok := m.find(d)
	if !ok {
		return m, action{kind: actShow, to: m.back}
	}
	m.page = p
	m.links = m.links.set(p.refs)
	return m, action{}
}

// setSize lays an opened sheet out for a w by h area.
func (m sheetModel) setSize(th theme, w, h int) screen {
	if !m.opened {
		return m
	}
	return m.render(th, w, h)
}

// narrow leaves the sheet as it is: the selection narrows lists only.
func (m sheetModel) narrow(selection) screen { return m }

// keys returns the sheet's bindings: explaining the check on a finding's sheet, copying where
// there is something to copy.
func (m sheetModel) keys(k keyMap) helpKeys {
	var short, full []key.Binding
	if m.page.check != "" {
		short, full = append(short, k.Explain), append(full, k.Explain)
	}
	if m.page.finding != nil {
		short, full = append(short, k.findingCopyKeys()...), append(full, k.findingCopyKeys()...)
	}
	if m.page.copy != "" {
		full = append(full, k.Copy)
	}
	return k.sheetKeys(m.linkedSheet, short, full)
}

// update explains a finding's check, scrolls the sheet, selects a reference (scrolling to it)
// and follows it; Esc goes back. The root model's keys pass.
func (m sheetModel) update(k keyMap, msg tea.KeyMsg, _ selection) (screen, action) {
	if m.page.check != "" && key.Matches(msg, k.Explain) {
		return m, action{kind: actExplain, arg: m.page.check}
	}
	var act action
	var moved bool
	if m.linkedSheet, act, moved = m.key(k, msg); moved {
		m = m.render(m.th, m.vp.Width, m.vp.Height)
		m.reveal()
	}
	return m, act
}

// wheel scrolls the sheet with the mouse wheel.
func (m sheetModel) wheel(delta int) screen {
	wheel(&m.vp, delta)
	return m
}

// where names the sheet's subject.
func (m sheetModel) where() string { return m.page.where }

// copyText returns what the sheet offers to copy: a NodeClaim's name, a finding's commands.
func (m sheetModel) copyText() (string, string, bool) {
	if m.opened && m.page.finding != nil {
		return commandsClip(*m.page.finding)
	}
	return m.page.copy, m.page.copied, m.opened && m.page.copy != ""
}

// copyProse returns a finding's remedy as prose; other sheets have none.
func (m sheetModel) copyProse() (string, string, bool) {
	if m.opened && m.page.finding != nil {
		return proseClip(*m.page.finding)
	}
	return "", "", false
}

// claimSheet finds the sheet of NodeClaim name (its row key: nodeclaim/NAME, in its
// cluster), as `kubectl karpnet describe nodeclaim` prints it, with references to its
// NodePool, class and its instance's subnet. The report holds it until it gets its Node or is
// deleted.
func claimSheet(name string) pageFinder {
	return func(d *data) (sheetPage, bool) {
		c, ok := d.claim(name)
		if !ok {
			return sheetPage{}, false
		}
		taken := d.report.Taken
		return sheetPage{
			where: claimPrefix + c.Name, refs: claimRefs(d, c), manual: true, copy: c.Name, copied: c.Name,
			body: func(cols int, th theme) string { return printer.NodeClaimSheet(c, taken, cols, th.Styles) },
		}, true
	}
}

// subjectPage finds the sheet of subject (subnet/ID, nodepool/NAME, ec2nodeclass/NAME,
// nodeclass/NAME, placementgroup/NAME or eni/ID), as `kubectl karpnet describe` prints it but
// for its "See also", whose references it lists below the sheet (on a subnet's sheet the
// subnets view first, selected), in the snapshot the report was analysed from.
func subjectPage(subject string) pageFinder {
	return func(d *data) (sheetPage, bool) {
		sh, ok := d.subjects.sheet(subject)
		if !ok {
			return sheetPage{}, false
		}
		return sheetPage{
			where: subject, refs: subjectRefs(d, subject, sh), manual: !strings.HasPrefix(subject, "subnet/"),
			body: func(cols int, th theme) string { return strings.TrimRight(sh.render(cols, th.Styles), "\n") },
		}, true
	}
}

// findingSheet finds the sheet of finding f: its message and remedy in full, what it is about,
// its references (the first that can be opened, its own subject when the TUI has a view of it,
// selected), then its check's catalogue entry. A finding is the same in another report when its
// check, node and resource are.
func findingSheet(f diagnose.Finding) pageFinder {
	return func(d *data) (sheetPage, bool) {
		for _, g := range d.report.Findings {
			if g.ID == f.ID && g.Node == f.Node && g.Resource == f.Resource {
				return findingPage(d, g), true
			}
		}
		return sheetPage{}, false
	}
}

// findingPage is findingSheet's page of f in d.
func findingPage(d *data, f diagnose.Finding) sheetPage {
	// y copies the remedy's commands, one per line and quoted for a POSIX shell; Y its prose.
	raw := d.rawFinding(f)
	return sheetPage{
		where: findingWhere(f), refs: findingRefs(d, f), finding: &raw, check: f.ID,
		body: func(cols int, th theme) string { return printer.FindingSheet(f, cols, th.Styles) },
		tail: func(cols int, th theme) string {
			doc, ok := catalogueDoc(f.ID)
			if !ok {
				return ""
			}
			return th.Header.Render("About the check") + "\n" + printer.ExplainSheet(doc, cols, th.Styles)
		},
	}
}

// findingWhere names a finding by check and subject: "finding › ID node/NAME".
func findingWhere(f diagnose.Finding) string {
	subject := f.Resource
	if f.Node != "" {
		subject = "node/" + f.Node
	}
	return "finding › " + f.ID + " " + subject
}
