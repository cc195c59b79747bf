package style

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxShown is the most bytes text output and the TUI show of any one string read from a
// cluster or from EC2 (an Event message, a security group name, a providerID), the note
// saying how much was cut included. JSON and YAML output keep every string whole.
const MaxShown = 4096

// cutRoom is what Printable keeps free for its "… (N more bytes cut)" note.
const cutRoom = 48

// Printable returns s as text output shows a string it did not write itself: a terminal
// prints it and never interprets it. A newline stays (text output breaks the line there) and a
// tab becomes a space; every other control character, C0 or DEL (\x1b, \x0d, \x07, \x7f), C1
// (\u009b), a bidirectional or line-separator format character (\u202e, \u2028) and each byte
// that is not UTF-8 (\xff) is shown as its Go escape, so an escape sequence is shown as text
// and cannot move the cursor, clear lines or set the window title. Past MaxShown bytes, s is
// cut at a character and ends with "… (N more bytes cut)". Printable of its own result returns
// that result unchanged, and a string that needs nothing is returned as it is.
func Printable(s string) string {
	if len(s) <= MaxShown && !needsEscape(s) {
		return s
	}
	var b strings.Builder
	// keepOut bytes of b, showing the first keepIn bytes of s, leave room for the note.
	keepOut, keepIn := 0, 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		piece := shown(s[i:i+size], r, size)
		if b.Len()+len(piece) > MaxShown {
			return b.String()[:keepOut] + "… (" + thousands(len(s)-keepIn) + " more bytes cut)"
		}
		b.WriteString(piece)
		i += size
		if b.Len() <= MaxShown-cutRoom {
			keepOut, keepIn = b.Len(), i
		}
	}
	return b.String()
}

// needsEscape reports whether s holds anything Printable changes.
func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n') || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if escaped(r, size) {
			return true
		}
		i += size
	}
	return false
}

// escaped reports whether rune r, size bytes long in its string, is shown as an escape.
func escaped(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true
	case r < 0x20:
		return r != '\n'
	case r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	}
	return invisibleFormat(r)
}

// invisibleFormat reports whether r reorders or breaks the text around it without showing
// itself: the bidirectional marks, embeddings, overrides and isolates, and the line and
// paragraph separators.
func invisibleFormat(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x2028 && r <= 0x202e:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// shown is how Printable writes one character: raw is its bytes, r and size what decoding
// them gave.
func shown(raw string, r rune, size int) string {
	switch {
	case r == '\t':
		return " "
	case !escaped(r, size):
		return raw
	case r == utf8.RuneError && size == 1, r < 0x80:
		return `\x` + hex2(raw[0])
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// hex2 writes b as two lower-case hex digits.
func hex2(b byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b>>4], digits[b&0xf]})
}

// thousands formats n with commas between groups of three digits, e.g. 12,345.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
