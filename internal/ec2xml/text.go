package ec2xml

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// text reads text up to the next '<', appending it unescaped to to (when not nil).
func (r *reader) text(to []byte) []byte {
	for r.i < len(r.b) && !r.bad {
		c := r.b[r.i]
		switch {
		case c == '<':
			return to
		case c == '&':
			to = r.entity(to)
			continue
		case c >= utf8.RuneSelf:
			ch, size := utf8.DecodeRune(r.b[r.i:])
			if !validChar(ch, size) {
				r.bad = true
				return to
			}
			if to != nil {
				to = append(to, r.b[r.i:r.i+size]...)
			}
			r.i += size
			continue
		case c < ' ' && c != '\t' && c != '\n':
			r.bad = true // carriage returns (which XML turns into newlines) and control characters
			return to
		}
		if to != nil {
			to = append(to, c)
		}
		r.i++
	}
	return to
}

// validChar reports whether a decoded rune is a character XML allows (and was valid UTF-8).
func validChar(ch rune, size int) bool {
	switch {
	case ch == utf8.RuneError && size == 1:
		return false
	case ch < 0xD800:
		return true
	case ch < 0xE000:
		return false
	case ch <= 0xFFFD:
		return true
	default:
		return ch >= 0x10000 && ch <= 0x10FFFF
	}
}

// plainText reports whether b is text XML allows, with no carriage return.
func plainText(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < ' ' && c != '\t' && c != '\n' {
				return false
			}
			i++
			continue
		}
		ch, size := utf8.DecodeRune(b[i:])
		if !validChar(ch, size) {
			return false
		}
		i += size
	}
	return true
}

// entity reads an entity or character reference after its '&'.
func (r *reader) entity(to []byte) []byte {
	end := bytes.IndexByte(r.b[r.i:min(len(r.b), r.i+12)], ';')
	if end < 0 {
		r.bad = true
		return to
	}
	ref := r.b[r.i+1 : r.i+end]
	r.i += end + 1
	var ch rune
	switch string(ref) {
	case "lt":
		ch = '<'
	case "gt":
		ch = '>'
	case "amp":
		ch = '&'
	case "apos":
		ch = '\''
	case "quot":
		ch = '"'
	default:
		if len(ref) < 2 || ref[0] != '#' {
			r.bad = true
			return to
		}
		base, digits := 10, ref[1:]
		if digits[0] == 'x' {
			base, digits = 16, digits[1:]
		}
		n, err := strconv.ParseUint(string(digits), base, 32)
		if err != nil || n > utf8.MaxRune || !validChar(rune(n), 0) || n == '\r' {
			r.bad = true
			return to
		}
		ch = rune(n)
		if ch < ' ' && ch != '\t' && ch != '\n' {
			r.bad = true
			return to
		}
	}
	if to != nil {
		to = utf8.AppendRune(to, ch)
	}
	return to
}

// value reads the text of the element just opened and its end tag: an element with a child,
// a comment or CDATA in it makes the reader give up.
func (r *reader) value(name []byte, empty bool) string {
	return r.readValue(name, empty, false)
}

// sharedValue reads a value as value does, the interner's copy of it.
func (r *reader) sharedValue(name []byte, empty bool) string {
	return r.readValue(name, empty, true)
}

// readValue reads the text of the element just opened, interned when shared.
func (r *reader) readValue(name []byte, empty, shared bool) string {
	if empty || r.bad {
		return ""
	}
	start := r.i
	end := bytes.IndexByte(r.b[start:], '<')
	if end < 0 {
		r.bad = true
		return ""
	}
	raw := r.b[start : start+end]
	var v string
	if bytes.IndexByte(raw, '&') < 0 {
		if !plainText(raw) {
			r.bad = true
			return ""
		}
		if shared {
			v = r.intern.Bytes(raw)
		} else {
			v = string(raw)
		}
		r.i = start + end
	} else if text := r.text(make([]byte, 0, len(raw))); shared {
		v = r.intern.Bytes(text)
	} else {
		v = string(text)
	}
	if r.bad || r.i+1 >= len(r.b) || r.b[r.i+1] != '/' {
		r.bad = true
		return ""
	}
	r.i += 2
	r.endTag(name)
	return v
}

// str reads a value as the SDK keeps it: a pointer, to "" for an empty element.
func (r *reader) str(name []byte, empty bool) *string {
	v := r.value(name, empty)
	if r.bad {
		return nil
	}
	return &v
}

// int32 reads an integer value as the SDK does (parsed as 64 bits, kept as 32).
func (r *reader) int32(name []byte, empty bool) int32 {
	v := r.value(name, empty)
	if r.bad {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		r.bad = true
		return 0
	}
	return int32(n)
}

// skip reads the element just opened through its end tag, whatever it holds (up to
// maxDepth levels).
func (r *reader) skip(name []byte, empty bool) {
	if empty || r.bad {
		return
	}
	r.open = append(r.open[:0], name)
	for len(r.open) > 0 && !r.bad {
		child, childEmpty, more := r.next(r.open[len(r.open)-1])
		switch {
		case !more:
			r.open = r.open[:len(r.open)-1]
		case !childEmpty:
			if len(r.open) == maxDepth {
				r.bad = true
				return
			}
			r.open = append(r.open, child)
		}
	}
}
