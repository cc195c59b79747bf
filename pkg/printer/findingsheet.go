package printer

import (
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// FindingSheet returns one finding as text whose lines fit cols columns (at least 40; zero
// or less means Width): its ID and severity, then its message and remedy in full, and the
// resource and node it is about. Strings are escaped as PrintReport escapes them. st colours
// the text; nil means no colour. The TUI shows it above the references and the check's
// catalogue entry (ExplainSheet).
func FindingSheet(f diagnose.Finding, cols int, st *style.Styles) string {
	t := newScreen(st, cols)
	f = style.PrintableCopy(f)
	head := t.st.Title.Render("finding/"+f.ID) + "  " + t.st.Level(f.Severity.String()).Badge()
	if width(head) <= t.limit() {
		t.line(head)
	} else {
		t.para(0, "finding/"+f.ID)
		t.para(0, t.st.Level(f.Severity.String()).Glyph+" "+f.Severity.String())
	}
	t.header("Message")
	t.para(indent, orNone(f.Message))
	t.header("Remedy")
	t.findingRemedy(indent, "", f, true)
	var about []kv
	if f.Resource != "" {
		about = append(about, kv{"Resource", f.Resource})
	}
	if f.Node != "" {
		about = append(about, kv{"Node", f.Node})
	}
	if len(about) > 0 {
		t.header("About")
		t.kvs(indent, about)
	}
	return t.b.String()
}
