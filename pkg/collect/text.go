package collect

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// shortText returns s on one line, at most n bytes (with "..." when cut): runs of white space
// become one space, and other control and format characters (escape sequences, bidi
// overrides) and bytes that are not UTF-8 are written as Go escapes (\x1b, \u202e), so text
// from a server can neither move the cursor, reorder a line nor break it.
func shortText(s string, n int) string {
	var b strings.Builder
	space := false
	for i, w := 0, 0; i < len(s); i += w {
		r, size := utf8.DecodeRuneInString(s[i:])
		w = size
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case r == utf8.RuneError && size == 1, unicode.In(r, unicode.Cc, unicode.Cf):
			if space {
				b.WriteByte(' ')
			}
			space = false
			switch {
			case r == utf8.RuneError:
				fmt.Fprintf(&b, `\x%02x`, s[i])
			case r < 0x100:
				fmt.Fprintf(&b, `\x%02x`, r)
			default:
				fmt.Fprintf(&b, `\u%04x`, r)
			}
			continue
		}
		if space {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	out := b.String()
	if len(out) > n {
		cut := n - 3
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = out[:cut] + "..."
	}
	return out
}
