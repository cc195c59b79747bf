package printer

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// remedyPart is a piece of a remedy: prose, or one command to paste.
type remedyPart struct {
	text string
	cmd  bool
}

// commandStarts begin the commands remedies give: the AWS CLI and kubectl.
var commandStarts = []string{"aws ", "kubectl "}

// commandEnds end a command written in prose: the next clause or sentence, or a closing
// parenthesis.
var commandEnds = []string{"; ", " (", ")", ", or ", ", then ", " then ", ", and "}

// remedyParts cuts a remedy into prose and the commands in it: a `quoted` span, or from "aws "
// or "kubectl " at the start of a word to the end of its clause. Prose loses the punctuation
// that only joined it to a command (a parenthesis around it, a "; " after it).
func remedyParts(remedy string) []remedyPart {
	var parts []remedyPart
	open := false // the prose before the last command opened a parenthesis around it
	addProse := func(s string) {
		s = strings.TrimSpace(s)
		if open {
			// Close the parenthesis that held the command: drop its ")".
			if i := strings.IndexByte(s, ')'); i >= 0 && !strings.Contains(s[:i], "(") {
				s = s[:i] + s[i+1:]
			}
		}
		open = strings.HasSuffix(s, "(")
		s = strings.TrimSuffix(s, "(")
		s = strings.TrimPrefix(s, ";")
		s = strings.TrimPrefix(s, ",")
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, remedyPart{text: s})
		}
	}
	rest := remedy
	for rest != "" {
		start, quoted := commandStart(rest)
		if start < 0 {
			addProse(rest)
			break
		}
		addProse(rest[:start])
		rest = rest[start:]
		var cmd string
		if quoted {
			end := strings.IndexByte(rest[1:], '`')
			if end < 0 {
				addProse(rest)
				break
			}
			cmd, rest = rest[1:end+1], rest[end+2:]
		} else {
			end := len(rest)
			for _, e := range commandEnds {
				if i := strings.Index(rest, e); i >= 0 && i < end {
					end = i
				}
			}
			cmd, rest = strings.TrimRight(rest[:end], ".,;: "), rest[end:]
		}
		parts = append(parts, remedyPart{text: cmd, cmd: true})
	}
	return parts
}

// commandStart returns where the first command of s begins, and whether it is quoted; -1
// when s has none.
func commandStart(s string) (int, bool) {
	best, quoted := -1, false
	if i := strings.IndexByte(s, '`'); i >= 0 {
		best, quoted = i, true
	}
	for _, c := range commandStarts {
		for from := 0; from < len(s); {
			i := strings.Index(s[from:], c)
			if i < 0 {
				break
			}
			i += from
			if i == 0 || strings.ContainsRune(" (:", rune(s[i-1])) {
				if best < 0 || i < best {
					best, quoted = i, false
				}
				break
			}
			from = i + 1
		}
	}
	return best, quoted
}

// remedy writes a remedy at indent after head ("remedy: "): its prose wrapped, and each
// command on a line of its own, two columns in, never wrapped (a long one runs past the width
// rather than break), so that selecting the line copies the command. A remedy without a
// command is one wrapped paragraph, as before.
func (t *text) remedy(indent int, head, remedy string) {
	parts := remedyParts(remedy)
	if !containsCommand(parts) {
		t.hanging(indent, head, remedy)
		return
	}
	hw := width(head)
	pad := strings.Repeat(" ", indent+hw)
	for i, p := range parts {
		switch {
		case p.cmd:
			if i == 0 {
				t.line(strings.Repeat(" ", indent) + head)
			}
			t.line(pad + "  " + p.text)
		case i == 0:
			t.hanging(indent, head, withColon(p.text, parts, i))
		default:
			t.para(indent+hw, withColon(p.text, parts, i))
		}
	}
}

// findingRemedy writes f's remedy at indent after head, then its commands under it, one per
// line, lined up with the remedy's text and never wrapped. A finding without a remedy writes
// none, unless orNone asks for "<none>".
func (t *text) findingRemedy(indent int, head string, f diagnose.Finding, orNoneText bool) {
	switch {
	case f.Remedy != "":
		t.remedy(indent, head, f.Remedy)
	case orNoneText:
		t.remedy(indent, head, orNone(f.Remedy))
	}
	pad := strings.Repeat(" ", indent+width(head))
	for _, c := range f.Commands {
		t.line(pad + "  " + c.String())
	}
}

// withColon ends prose that leads into a command with a colon.
func withColon(prose string, parts []remedyPart, i int) string {
	if i+1 < len(parts) && parts[i+1].cmd && !strings.HasSuffix(prose, ":") {
		return prose + ":"
	}
	return prose
}

// containsCommand reports whether parts hold a command.
func containsCommand(parts []remedyPart) bool {
	for _, p := range parts {
		if p.cmd {
			return true
		}
	}
	return false
}

// isCommandLine reports whether a rendered line is one of a remedy's commands, which runs
// past the width rather than break: after the indent, a command remedyParts recognises.
func isCommandLine(line string) bool {
	s := strings.TrimLeft(ansi.Strip(line), " ")
	for _, c := range commandStarts {
		if strings.HasPrefix(s, c) {
			return true
		}
	}
	return false
}
