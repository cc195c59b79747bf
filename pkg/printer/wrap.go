package printer

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// Width is the most columns any line of text output takes.
const Width = 100

// width returns the display width of s, ignoring ANSI escape sequences.
func width(s string) int { return lipgloss.Width(s) }

// runeWidth returns the display width of r alone, as width(string(r)) does for any rune but a
// newline.
func runeWidth(r rune) int { return ansi.StringWidth(string(r)) }

// wrap breaks text into lines of at most limit columns, at spaces. Newlines in text start new
// lines; a word longer than limit is cut. Text that fits on one line keeps its spacing; empty
// text gives no lines. It measures each word once, so its time grows linearly with text.
func wrap(text string, limit int) []string {
	limit = max(limit, 1)
	if !strings.Contains(text, "\n") && width(text) <= limit {
		if strings.TrimSpace(text) == "" {
			return nil
		}
		return []string{text}
	}
	var lines []string
	for _, para := range strings.Split(text, "\n") {
		var cur string
		for _, word := range strings.Fields(para) {
			if width(word) > limit {
				if cur != "" {
					lines = append(lines, cur)
					cur = ""
				}
				pieces := chop(word, limit)
				word = pieces[len(pieces)-1]
				lines = append(lines, pieces[:len(pieces)-1]...)
				if width(word) > limit {
					// A last piece of runes whose cluster is wider than its runes.
					lines = append(lines, word)
					word = ""
				}
			}
			switch {
			case cur == "":
				cur = word
			case width(cur)+1+width(word) <= limit:
				cur += " " + word
			default:
				lines = append(lines, cur)
				cur = word
			}
		}
		if cur != "" {
			lines = append(lines, cur)
		}
	}
	return lines
}

// chop splits s into pieces of at most limit columns, measured rune by rune as cut does, in
// one pass; every piece holds at least one rune.
func chop(s string, limit int) []string {
	var pieces []string
	start, w := 0, 0
	for i, r := range s {
		rw := runeWidth(r)
		if i > start && w+rw > limit {
			pieces = append(pieces, s[start:i])
			start, w = i, 0
		}
		w += rw
	}
	return append(pieces, s[start:])
}

// cut splits s after the most leading runes that fit in limit columns (at least one rune).
func cut(s string, limit int) (string, string) {
	w := 0
	for i, r := range s {
		rw := width(string(r))
		if i > 0 && w+rw > limit {
			return s[:i], s[i:]
		}
		w += rw
	}
	return s, ""
}

// pack joins already styled fields with sep into as few lines as fit limit columns; a field
// wider than limit gets lines of its own, wrapped at its spaces (its style carries on across
// them).
func pack(fields []string, sep string, limit int) []string {
	var lines []string
	var cur string
	for _, f := range fields {
		switch {
		case width(f) > limit:
			if cur != "" {
				lines = append(lines, cur)
				cur = ""
			}
			lines = append(lines, strings.Split(ansi.Wordwrap(f, limit, ""), "\n")...)
		case cur == "":
			cur = f
		case width(cur)+width(sep)+width(f) <= limit:
			cur += sep + f
		default:
			lines = append(lines, cur)
			cur = f
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// pad adds spaces after s, already styled, to make it n columns wide.
func pad(s string, n int) string {
	if w := width(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}
