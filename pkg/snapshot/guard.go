package snapshot

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
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
	// packed counts the compressed bytes read so far when the file is gzipped; nil otherwise.
	packed *counter
	// inString and escaped follow the JSON string the text is in; str counts its bytes and
	// space the current run of whitespace outside strings.
	inString, escaped bool
	str, space        int
	// refused is the refusal once the guard has refused.
	refused *guardError
	// byteByByte turns quick off, as the tests compare.
	byteByByte bool
}

// Read passes text on until the guard refuses it; from then on every Read returns the refusal
// alone. json.Decoder drops an error that comes with data, so a refusal must come again.
func (g *guard) Read(p []byte) (int, error) {
	if g.refused != nil {
		return 0, g.refused
	}
	n, err := g.read(p)
	if rerr, ok := err.(*guardError); ok {
		g.refused = rerr
	}
	return n, err
}

func (g *guard) read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	for i := 0; i < n; {
		if j, ok := g.quick(p[:n], i); ok {
			i = j
			continue
		}
		if g.inString {
			if g.escaped {
				g.escaped = false
			} else if run := plainRun(p[i:n]); run > 0 {
				// A run of bytes that neither end the string nor escape: counted at once.
				if g.str+run > MaxString {
					i += MaxString - g.str
					g.str = MaxString + 1
					return i, refuse("a string at byte %d is longer than 1 MiB, which no snapshot karpnet writes holds", g.n+int64(i)-int64(g.str))
				}
				g.str += run
				i += run
				continue
			} else if p[i] == '\\' {
				g.escaped = true
			} else { // '"'
				g.inString = false
				i++
				continue
			}
			if g.str++; g.str > MaxString {
				return i, refuse("a string at byte %d is longer than 1 MiB, which no snapshot karpnet writes holds", g.n+int64(i)-int64(g.str))
			}
			i++
			continue
		}
		switch c := p[i]; {
		case c == '"':
			g.inString, g.str, g.space = true, 0, 0
			i++
		case guardBytes[c]: // white space: a run at a time
			j := i + 1
			for j < n && guardBytes[p[j]] && p[j] != '"' {
				j++
			}
			if g.space+j-i > MaxString {
				k := i + MaxString - g.space // the byte past 1 MiB of it
				g.space = MaxString + 1
				return k, refuse("more than 1 MiB of whitespace at byte %d, which no snapshot karpnet writes holds", g.n+int64(k)-int64(g.space))
			}
			g.space += j - i
			i = j
		default: // neither a quote nor white space: a run at a time
			g.space = 0
			for i++; i < n && !guardBytes[p[i]]; i++ {
			}
		}
	}
	g.n += int64(n)
	if g.packed != nil && g.n > bombFloor && g.n > maxRatio*g.packed.n {
		return n, refuse("the gzip stream expands more than %d times (%s from %s), which no snapshot karpnet writes does", maxRatio, humanSize(g.n), humanSize(g.packed.n))
	}
	if g.n > g.max {
		return n, refuse("the snapshot is larger than %s uncompressed: pass --snapshot-max-size to read a larger one", sizeText(g.max))
	}
	return n, err
}

// quick passes what p holds from i to the next quote at once when it cannot break a bound,
// which is all of a snapshot karpnet writes: a string without escapes, or the text between
// two strings. It returns where it stopped, and false when the byte at i needs a closer look.
func (g *guard) quick(p []byte, i int) (int, bool) {
	if g.escaped || g.byteByByte {
		return i, false
	}
	q := bytes.IndexByte(p[i:], '"')
	end := len(p)
	if q >= 0 {
		end = i + q
	}
	seg := p[i:end]
	if g.inString {
		if g.str+len(seg) > MaxString || bytes.IndexByte(seg, '\\') >= 0 {
			return i, false
		}
		g.str += len(seg)
		if q >= 0 {
			g.inString = false
			end++
		}
		return end, true
	}
	if g.space+len(seg) > MaxString {
		return i, false
	}
	t := len(seg)
	for t > 0 && guardBytes[seg[t-1]] {
		t--
	}
	if t == 0 {
		g.space += len(seg)
	} else {
		g.space = len(seg) - t
	}
	if q >= 0 {
		g.inString, g.str, g.space = true, 0, 0
		end++
	}
	return end, true
}

// guardBytes are the bytes outside strings the guard looks at: quotes and white space.
var guardBytes = [256]bool{'"': true, ' ': true, '\t': true, '\n': true, '\r': true}

// plainRun is how many bytes text starts with that are neither '"' nor '\\'. Strings are
// short: a loop is quicker than bytes.IndexByte's call.
func plainRun(text []byte) int {
	for i, c := range text {
		if c == '"' || c == '\\' {
			return i
		}
	}
	return len(text)
}

// A gzipped snapshot may expand at most maxRatio times once past its first bombFloor bytes. Snapshots
// compress about 15 to 1 (each node's names, IDs and addresses differ); deflate's limit is
// about 1,000 to 1, which only runs of repeated bytes reach.
const (
	maxRatio  = 200
	bombFloor = 1 << 20
)

// counter counts the bytes read through it. It reads bytes one by one too, so gzip and
// flate read through it without a buffer of their own and leave what follows the gzip stream
// in r.
type counter struct {
	r *bufio.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *counter) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
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

// humanSize renders a byte count for a message: "64.0 MiB", "63.9 KiB", "120 bytes".
func humanSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// thousands renders n with commas: "104,857".
func thousands(n int64) string {
	t := strconv.FormatInt(n, 10)
	for i := len(t) - 3; i > 0; i -= 3 {
		t = t[:i] + "," + t[i:]
	}
	return t
}
