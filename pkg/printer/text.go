package printer

import (
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// text accumulates styled lines that each fit its line limit, then writes them at once.
type text struct {
	b  strings.Builder
	st *style.Styles
	// cols is the most columns a line takes; zero means Width.
	cols int
	// screen lays out for a view that cuts lines at its edge, such as the TUI: a command
	// longer than a line is wrapped with a continuation mark instead of running past it.
	screen bool
	// links leaves a subject sheet's "See also" out: the view lists its References as links.
	links bool
	// lines counts the lines written; sections are the headers written, with their lines.
	lines    int
	sections []Section
}

// Section is a section of a rendered sheet: its header, and the line it is on (from 0).
type Section struct {
	Header string
	Line   int
}

// newText returns a text styled by st (nil: no colour) whose lines fit cols columns, at
// least minSheetWidth; cols zero or less means st's Width, and that zero means Width.
func newText(st *style.Styles, cols int) *text {
	t := &text{st: orPlain(st)}
	if cols <= 0 {
		cols = t.st.Width
	}
	if cols > 0 {
		t.cols = max(cols, minSheetWidth)
	}
	return t
}

// newScreen returns a text as newText does, for a view that cuts lines at its edge.
func newScreen(st *style.Styles, cols int) *text {
	t := newText(st, cols)
	t.screen = true
	return t
}

// limit returns the most columns a line may take.
func (t *text) limit() int {
	if t.cols > 0 {
		return t.cols
	}
	return Width
}

// kv is one "label: value" line of a sheet section.
type kv struct {
	label string
	value string
}

// line writes s, which the caller has made fit, and a newline. s is one line: a newline in
// it (a name read from a cluster or snapshot) is shown as \n, so it cannot start a line.
func (t *text) line(s string) {
	t.b.WriteString(escapeNewlines(strings.TrimRight(s, " ")))
	t.b.WriteByte('\n')
	t.lines++
}

// escapeNewlines returns s with its newlines shown as \n: a name that heads a line stays on it.
func escapeNewlines(s string) string { return strings.ReplaceAll(s, "\n", `\n`) }

// blank writes an empty line.
func (t *text) blank() {
	t.b.WriteByte('\n')
	t.lines++
}

// para writes plain s wrapped to the line limit, every line indented by indent spaces.
func (t *text) para(indent int, s string) {
	ind := strings.Repeat(" ", indent)
	for _, l := range wrap(s, t.limit()-indent) {
		t.line(ind + l)
	}
}

// hanging writes head (styled) at indent followed by plain s wrapped after it; continuation
// lines line up under the start of s. When s needs wrapping and head is wider than half the
// width, s goes on the next lines instead.
func (t *text) hanging(indent int, head, s string) {
	ind := strings.Repeat(" ", indent)
	hw := width(head)
	if indent+hw > t.limit() {
		// Only absurdly long names get here: wrap the head too, at the cost of its style.
		t.para(indent, ansi.Strip(head))
		t.para(indent+4, s)
		return
	}
	if indent+hw > t.limit()/2 && indent+hw+width(s) > t.limit() {
		t.line(ind + head)
		t.para(indent+4, s)
		return
	}
	lines := wrap(s, t.limit()-indent-hw)
	if len(lines) == 0 {
		t.line(ind + head)
		return
	}
	t.line(ind + head + lines[0])
	cont := strings.Repeat(" ", indent+hw)
	for _, l := range lines[1:] {
		t.line(cont + l)
	}
}

// kvs writes label/value lines at indent with the values aligned.
func (t *text) kvs(indent int, pairs []kv) {
	lw := 0
	for _, p := range pairs {
		lw = max(lw, width(p.label)+2)
	}
	for _, p := range pairs {
		t.hanging(indent, pad(t.st.Label.Render(p.label+":"), lw), p.value)
	}
}

// header writes a section header.
func (t *text) header(title string) {
	t.sections = append(t.sections, Section{Header: title, Line: t.lines})
	t.line(t.st.Header.Render(title))
}

// fields writes label/value pairs side by side, two spaces apart, on as few lines as fit. A
// pair too wide for one line gets lines of its own, wrapped.
func (t *text) fields(pairs []kv) {
	var parts []string
	flush := func() {
		for _, l := range pack(parts, "  ", t.limit()) {
			t.line(l)
		}
		parts = nil
	}
	for _, p := range pairs {
		head := t.st.Label.Render(p.label+":") + " "
		if width(head)+width(p.value) > t.limit() {
			flush()
			t.hanging(0, head, p.value)
			continue
		}
		parts = append(parts, head+p.value)
	}
	flush()
}

// flush writes everything accumulated to w.
func (t *text) flush(w io.Writer) error {
	_, err := io.WriteString(w, t.b.String())
	return err
}
