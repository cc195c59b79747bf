// Package shellwords splits text into words as a POSIX shell does, for tests that read wrapped
// commands back.
package shellwords

import "strings"

// Split splits s into words as a POSIX shell does for the quoting ShellQuote writes:
// blanks and newlines separate words, single quotes keep everything up to the next one, and
// outside them a backslash keeps the next character, or with a newline is a line continuation
// that disappears.
func Split(s string) []string {
	var words []string
	var cur strings.Builder
	in, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted:
			if c == '\'' {
				quoted = false
			} else {
				cur.WriteByte(c)
			}
		case c == '\'':
			quoted, in = true, true
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' {
				cur.WriteByte(s[i])
				in = true
			}
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
