// Package oneline makes text read from a server safe to show on one line of an error or a
// report: bounded in length, white space collapsed, control characters escaped.
package oneline

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text is Bytes for a string.
func Text(s string, n int) string { return Bytes([]byte(s), n) }

// Bytes returns the start of b on one line, about n bytes long, with "..." when b goes on:
// runs of white space become one space, and control and format characters (terminal escape
// sequences, bidi overrides) and bytes that are not UTF-8 are written as Go escapes (\x1b,
// \u202e), so text from a server can neither move the cursor, reorder nor break the line it
// is shown on.
func Bytes(b []byte, n int) string {
	var out strings.Builder
	space := false
	for len(b) > 0 && out.Len() < n {
		r, size := utf8.DecodeRune(b)
		switch {
		case unicode.IsSpace(r):
			space = out.Len() > 0
		case r == utf8.RuneError && size == 1:
			writeSpace(&out, &space)
			fmt.Fprintf(&out, `\x%02x`, b[0])
		case unicode.In(r, unicode.Cc, unicode.Cf):
			writeSpace(&out, &space)
			if r < 0x100 {
				fmt.Fprintf(&out, `\x%02x`, r)
			} else {
				fmt.Fprintf(&out, `\u%04x`, r)
			}
		default:
			writeSpace(&out, &space)
			out.WriteRune(r)
		}
		b = b[size:]
	}
	if len(b) > 0 {
		out.WriteString("...")
	}
	return out.String()
}

func writeSpace(b *strings.Builder, space *bool) {
	if *space {
		b.WriteByte(' ')
	}
	*space = false
}
