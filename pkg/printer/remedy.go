package printer

import (
	"strings"
	"unicode/utf8"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// remedy writes a remedy's prose at indent after head ("remedy: "), wrapped: its commands
// are data, written under it by findingRemedy, never parsed out of the prose.
func (t *text) remedy(indent int, head, remedy string) {
	t.hanging(indent, head, remedy)
}

// findingRemedy writes f's remedy at indent after head, then its commands under it, one per
// line, lined up with the remedy's text and never wrapped but on a screen (command). A
// finding without a remedy writes none, unless orNone asks for "<none>".
func (t *text) findingRemedy(indent int, head string, f diagnose.Finding, orNoneText bool) {
	switch {
	case f.Remedy != "":
		t.remedy(indent, head, f.Remedy)
	case orNoneText:
		t.remedy(indent, head, orNone(f.Remedy))
	}
	for _, c := range f.Commands {
		t.command(indent+width(head)+2, quoted(c.Argv))
	}
}

// quoted returns each argument of argv quoted for a POSIX shell, as Command.String joins them,
// a newline in one shown as \n, as every line of text output shows it.
func quoted(argv []string) []string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = diagnose.ShellQuote(escapeNewlines(a))
	}
	return q
}

// command writes a command, its words already quoted for a POSIX shell, at indent on one
// line, never wrapped: selecting the line copies the command. On a screen (t.screen), which
// cuts lines at its edge, a command longer than a line is wrapped so that every line fits and
// the lines stay one command a shell reads as it is written (wrapCommand).
func (t *text) command(indent int, words []string) {
	if !t.screen {
		t.line(strings.Repeat(" ", indent) + strings.Join(words, " "))
		return
	}
	for _, l := range wrapCommand(words, indent, t.limit()) {
		t.line(l)
	}
}

// wrapCommand lays out a command, its words quoted for a POSIX shell, in lines of at most
// limit columns, the first at indent. Lines break between words where they can: the line
// ends with " \" and the next word starts a line at indent+2. A word wider than the room left
// is itself broken, and the text stays the same word to a shell: inside single quotes the
// line ends with '\ (closing the quotes, then a line continuation) and the next starts with
// ' (opening them again); outside quotes it ends with \ alone. The rest of a broken word
// starts at column 0, since spaces there would end the word. Every line but the last thus
// ends with a backslash, the continuation mark.
func wrapCommand(words []string, indent, limit int) []string {
	const mark = 2 // the widest continuation mark, " \" or "'\", kept free on every line
	limit = max(limit, indent+mark+4, 8)
	var lines []string
	cur, curW, empty := strings.Repeat(" ", indent), indent, true
	newLine := func(end string, ind int) {
		lines = append(lines, cur+end)
		cur, curW, empty = strings.Repeat(" ", ind), ind, true
	}
	for i, w := range words {
		ww, last := width(w), i == len(words)-1
		reserve := mark
		if last {
			reserve = 0
		}
		sep := 1
		if empty {
			sep = 0
		}
		switch {
		case curW+sep+ww+reserve <= limit:
			// It fits where the line is.
		case !empty && indent+2+ww+reserve <= limit:
			// It fits on a line of its own.
			newLine(" \\", indent+2)
			sep = 0
		default:
			// Too wide for any line: break it, starting here when some room is left.
			if !empty && limit-curW-1-mark < 8 {
				newLine(" \\", indent+2)
			}
			if !empty {
				cur, curW = cur+" ", curW+1
			}
			pieces, ends := breakWord(w, limit-curW-mark, limit-mark)
			for j, p := range pieces {
				cur, curW, empty = cur+p, curW+width(p), false
				if j < len(pieces)-1 {
					newLine(ends[j], 0)
				}
			}
			continue
		}
		if sep == 1 {
			cur, curW = cur+" ", curW+1
		}
		cur, curW, empty = cur+w, curW+ww, false
	}
	return append(lines, cur)
}

// breakWord breaks w, one word quoted for a POSIX shell, into pieces: the first at most first
// columns wide, the others at most rest, each with the ' that opens the quotes again when it
// starts inside them. ends[i] is the continuation mark piece i ends with: '\ inside single
// quotes, \ outside them. It never breaks between a backslash and the character it escapes.
func breakWord(w string, first, rest int) (pieces, ends []string) {
	first, rest = max(first, 2), max(rest, 3)
	var b strings.Builder
	bw, room := 0, first
	quoted := false // inside single quotes before the atom
	for len(w) > 0 {
		// An atom is one character, or outside quotes a backslash and the character it
		// escapes, which stay together.
		_, n := utf8.DecodeRuneInString(w)
		if !quoted && w[0] == '\\' && len(w) > 1 {
			_, m := utf8.DecodeRuneInString(w[1:])
			n = 1 + m
		}
		atom := w[:n]
		w = w[n:]
		aw := width(atom)
		if bw > 0 && bw+aw > room {
			pieces = append(pieces, b.String())
			b.Reset()
			if quoted {
				ends = append(ends, "'\\")
				b.WriteByte('\'')
				bw = 1
			} else {
				ends = append(ends, "\\")
				bw = 0
			}
			room = rest
		}
		b.WriteString(atom)
		bw += aw
		if atom == "'" {
			quoted = !quoted
		}
	}
	return append(pieces, b.String()), ends
}
