package snapshot

import (
	"fmt"
	"io"
)

// guardError is a guard's refusal: input too large to be a snapshot.
type guardError struct{ msg string }

func (e *guardError) Error() string { return e.msg }

// refuse returns a guardError with a formatted message.
func refuse(format string, args ...any) error { return &guardError{fmt.Sprintf(format, args...)} }

// guard passes JSON text through while bounding it in one linear pass: at most max bytes in
// all, no string longer than MaxString bytes and no run of whitespace longer than MaxString.
// A gzip bomb or a file of padding is refused as soon as it shows, before it is held whole.
type guard struct {
	r   io.Reader
	n   int64 // bytes passed so far
	max int64
	// inString and escaped follow the JSON string the text is in; str counts its bytes and
	// space the current run of whitespace outside strings.
	inString, escaped bool
	str, space        int
}

func (g *guard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	for i, c := range p[:n] {
		if g.inString {
			switch {
			case g.escaped:
				g.escaped = false
			case c == '\\':
				g.escaped = true
			case c == '"':
				g.inString = false
				continue
			}
			if g.str++; g.str > MaxString {
				return i, refuse("a string at byte %d is longer than 1 MiB, which no snapshot karpnet writes holds", g.n+int64(i)-int64(g.str))
			}
			continue
		}
		switch c {
		case '"':
			g.inString, g.str, g.space = true, 0, 0
		case ' ', '\t', '\n', '\r':
			if g.space++; g.space > MaxString {
				return i, refuse("more than 1 MiB of whitespace at byte %d, which no snapshot karpnet writes holds", g.n+int64(i)-int64(g.space))
			}
		default:
			g.space = 0
		}
	}
	g.n += int64(n)
	if g.n > g.max {
		return n, refuse("the snapshot is larger than %s uncompressed: pass --snapshot-max-size to read a larger one", sizeText(g.max))
	}
	return n, err
}

// sizeText renders a byte count as karpnet's flags take it: "1Gi", "512Mi", "100Ki" or bytes.
func sizeText(n int64) string {
	for _, u := range []struct {
		shift  uint
		suffix string
	}{{30, "Gi"}, {20, "Mi"}, {10, "Ki"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.suffix)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
