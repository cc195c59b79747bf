package printer

import (
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// offendingGlyph marks a value in a sheet's sections that a finding is about, so it reads
// without colour too.
const offendingGlyph = "✗"

// problems writes, for a node with findings, the block a sheet opens on: each finding's
// severity glyph and ID, its message on one line cut to the width, and its remedy. The
// Findings section at the end of the sheet has the messages in full.
func problems(t *text, list []diagnose.Finding) {
	if len(list) == 0 {
		return
	}
	t.header("Problems")
	ind := strings.Repeat(" ", indent)
	for _, f := range list {
		head := t.st.Level(f.Severity.String()).Mark() + " " + t.st.Strong.Render(f.ID)
		msg := oneLine(f.Message)
		switch room := t.limit() - indent - width(head) - 2; {
		case indent+width(head) > t.limit():
			// Only absurdly long IDs get here: wrap the head, at the cost of its style.
			t.para(indent, t.st.Level(f.Severity.String()).Glyph+" "+f.ID)
			t.line(strings.Repeat(" ", indent+4) + shorten(msg, t.limit()-indent-4))
		case room >= minProblemMessage || msg == "":
			t.line(ind + head + "  " + shorten(msg, max(room, 1)))
		default:
			t.line(ind + head)
			t.line(strings.Repeat(" ", indent+4) + shorten(msg, t.limit()-indent-4))
		}
		t.findingRemedy(indent+4, t.st.Label.Render("remedy:")+" ", f, false)
	}
}

// minProblemMessage is the fewest columns a problem's message keeps beside its ID; with less,
// the message goes on the next line.
const minProblemMessage = 20

// oneLine returns the first line of s.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// offending renders s, a value a finding is about, with offendingGlyph in front, both in the
// critical colour.
func (t *text) offending(s string) string {
	st := t.st.Critical.Style
	return st.Render(offendingGlyph) + " " + st.Render(s)
}

// flagged renders an optional yes/no that is wrong when it is "no": marked as offending then.
func (t *text) flagged(b *bool) string {
	if b != nil && !*b {
		return t.offending("no")
	}
	return triState(b)
}
