package tui

import (
	"cmp"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// maxCopy is the most bytes `y` copies; longer text is cut at a character boundary, since
// terminals drop or truncate OSC 52 sequences past their own limits (xterm's is near 100 KB
// of base64).
const maxCopy = 64 << 10

// copier is a view with something to copy with y: the text and what the status line calls
// it; when there is nothing, ok is false and what, when set, says so ("no command to copy").
type copier interface {
	copyText() (text, what string, ok bool)
}

// proseCopier is a view that also copies a finding's remedy as prose, with Y.
type proseCopier interface {
	copyProse() (text, what string, ok bool)
}

// commandsClip is what y copies of finding f, as read from the cluster (not escaped for the
// screen): its commands, one per line, each exactly as diagnose.Command.String quotes it for
// a POSIX shell, so that the clipboard pastes into a shell as it is.
func commandsClip(f diagnose.Finding) (string, string, bool) {
	switch n := len(f.Commands); n {
	case 0:
		return "", "no command to copy", false
	case 1:
		return f.RemedyCommands(), "1 command", true
	default:
		return f.RemedyCommands(), fmt.Sprintf("%d commands", n), true
	}
}

// proseClip is what Y copies of finding f: its remedy's prose, as read from the cluster.
func proseClip(f diagnose.Finding) (string, string, bool) {
	if f.Remedy == "" {
		return "", "no remedy to copy", false
	}
	return f.Remedy, "the remedy's prose", true
}

// copiedMsg reports that text was copied, or that writing the sequence failed.
type copiedMsg struct {
	what string
	err  error
}

// clipSequence returns the OSC 52 sequence that puts text, cut to maxCopy bytes, on the
// system clipboard. The text is only base64-encoded: it is data, not something shown.
func clipSequence(text string) string {
	if len(text) > maxCopy {
		cut := maxCopy
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	return osc52.New(text).String()
}

// copyCmd writes the OSC 52 sequence for text to out, the terminal, so the copy works over
// SSH; with no terminal (nil out) it writes nothing. It reports a copiedMsg naming what.
func copyCmd(out io.Writer, text, what string) tea.Cmd {
	return func() tea.Msg {
		if out == nil {
			return copiedMsg{what: what}
		}
		_, err := io.WriteString(out, clipSequence(text))
		return copiedMsg{what: what, err: err}
	}
}

// copyText returns the name of the node or NodeClaim under the cursor.
func (m nodesModel) copyText() (string, string, bool) {
	name, ok := m.selectedName()
	if !ok {
		return "", "", false
	}
	r := m.d.rows[m.d.byName[name]]
	name = r.cells[colName]
	if r.claim >= 0 {
		name = m.d.report.NodeClaims[r.claim].Name
	}
	return name, name, true
}

// copyText returns the node's name.
func (m nodeModel) copyText() (string, string, bool) {
	name := m.report.Identity.Node
	return name, name, m.opened && name != ""
}

// copy copies text, which a view offers, or notes that it has nothing to copy.
func (m Model) copy(text, what string, ok bool) (Model, tea.Cmd) {
	if !ok {
		m.note = cmp.Or(what, "nothing to copy here")
		return m, nil
	}
	return m, copyCmd(m.clip, text, what)
}

// copiedNote is the status line's account of msg.
func copiedNote(msg copiedMsg) string {
	if msg.err != nil {
		return "✖ copying failed: " + style.Printable(msg.err.Error())
	}
	return "copied " + msg.what
}
