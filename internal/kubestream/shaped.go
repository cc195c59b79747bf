package kubestream

import (
	"strconv"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Shape names the members of a JSON object that a decode keeps. A member named with a nil
// shape is kept whole; one named with a shape is, when it is an object, kept with only the
// members that shape names (and whole when it is anything else). The rest is passed over.
type Shape map[string]Shape

// decodeShaped decodes item, one JSON value the json.Decoder has checked, into the map the
// unstructured decoder builds of it, but with only the members shape names: each value kept
// is what the unstructured decoder gives (objects as maps, where the last of repeated keys
// wins; arrays; strings; numbers as int64 when whole and in range, else float64; booleans;
// nil), and the members passed over are never decoded. It is not ok when item is not an
// object, or when a number anywhere in it is one the unstructured decoder refuses (out of
// float64's range): the caller decodes it the usual way, which fails as it did.
//
// At 10,000 NodeClaims this builds the few maps karpnet reads instead of every map of every
// object, and reads each object's text once.
func decodeShaped(item []byte, shape Shape) (map[string]any, bool) {
	return decodeShapedNames(item, shape, nil)
}

// decodeShapedNames is decodeShaped taking the objects' member names and short
// string values from names (nil for none): the items of one list share them.
func decodeShapedNames(item []byte, shape Shape, names *Names) (map[string]any, bool) {
	r := jsonReader{b: item, ok: true, names: names}
	r.space()
	if r.i >= len(r.b) || r.b[r.i] != '{' {
		return nil, false
	}
	m := r.object(shape)
	return m, r.ok
}

// jsonReader reads valid JSON from b at i. ok turns false, for good, at a value it is not
// sure to read as the unstructured decoder does.
type jsonReader struct {
	b     []byte
	i     int
	ok    bool
	names *Names
}

// Names holds the member names and the short string values read so far, so that the
// objects of a list share one of each instead of one each (a NodeClaim has about 60 names,
// and most of its values, "True", its labels', its conditions', are those of the others).
// Each is held as the interface value a decoded map holds, so one seen before costs no
// allocation at all; that, and holding at most namesMax strings of at most nameMax
// bytes for one list read by one goroutine, is why this is not the collection's
// snapshot.Interner. A nil *Names holds none.
type Names struct{ m map[string]any }

const (
	namesMax = 4096
	nameMax  = 128
)

func newNames() *Names { return &Names{m: map[string]any{}} }

// value returns the string of b, a member name or string value as written (no escape,
// ASCII), as an interface value.
func (n *Names) value(b []byte) any {
	if n == nil || len(b) > nameMax {
		return string(b)
	}
	if v, ok := n.m[string(b)]; ok {
		return v
	}
	var v any = string(b)
	if len(n.m) < namesMax {
		n.m[string(b)] = v
	}
	return v
}

// name is value as a string, for a member name.
func (n *Names) name(b []byte) string { return n.value(b).(string) }

// space moves past JSON whitespace.
func (r *jsonReader) space() { r.i = skipSpace(r.b, r.i) }

// object reads the object at i, keeping the members shape names (all of them when shape is
// nil).
func (r *jsonReader) object(shape Shape) map[string]any {
	m := map[string]any{}
	r.i++ // '{'
	for {
		r.space()
		if r.i >= len(r.b) || r.b[r.i] != '"' {
			r.i++ // '}'
			return m
		}
		key := r.stringBytes()
		r.space()
		r.i++ // ':'
		r.space()
		plain := plainString(key)
		switch {
		case shape == nil && plain:
			m[r.names.name(key[1:len(key)-1])] = r.value(nil)
		case shape == nil:
			m[r.unquote(key)] = r.value(nil)
		case plain:
			if sub, named := shape[string(key[1:len(key)-1])]; named {
				m[r.names.name(key[1:len(key)-1])] = r.value(sub)
			} else {
				r.skip()
			}
		default:
			k := r.unquote(key)
			if sub, named := shape[k]; named {
				m[k] = r.value(sub)
			} else {
				r.skip()
			}
		}
		r.space()
		if r.i < len(r.b) && r.b[r.i] == ',' {
			r.i++
		}
	}
}

// value reads the value at i: an object kept with the members shape names, anything else
// whole.
func (r *jsonReader) value(shape Shape) any {
	switch c := r.b[r.i]; {
	case c == '{':
		return r.object(shape)
	case c == '[':
		var list []any
		r.i++
		for {
			r.space()
			if r.i >= len(r.b) || r.b[r.i] == ']' {
				r.i++
				if list == nil {
					return []any{}
				}
				return list
			}
			list = append(list, r.value(nil))
			r.space()
			if r.i < len(r.b) && r.b[r.i] == ',' {
				r.i++
			}
		}
	case c == '"':
		b := r.stringBytes()
		if plainString(b) {
			return r.names.value(b[1 : len(b)-1])
		}
		return r.unquote(b)
	case c == 't':
		r.i += len("true")
		return true
	case c == 'f':
		r.i += len("false")
		return false
	case c == 'n':
		r.i += len("null")
		return nil
	default:
		v, ok := jsonNumber(r.number())
		if !ok {
			r.ok = false
		}
		return v
	}
}

// skip moves past the value at i, checking its numbers as the unstructured decoder does.
func (r *jsonReader) skip() {
	depth := 0
	for r.i < len(r.b) {
		switch c := r.b[r.i]; c {
		case '"':
			r.stringBytes()
		case '{', '[':
			depth++
			r.i++
		case '}', ']':
			depth--
			r.i++
		case ',', ':', ' ', '\t', '\n', '\r':
			r.i++
		case 't', 'f', 'n':
			for r.i < len(r.b) && r.b[r.i] >= 'a' && r.b[r.i] <= 'z' {
				r.i++
			}
		default:
			if _, ok := jsonNumber(r.number()); !ok {
				r.ok = false
			}
		}
		if depth == 0 {
			return
		}
	}
}

// stringBytes moves past the string at i and returns it, quotes included.
func (r *jsonReader) stringBytes() []byte {
	start := r.i
	for r.i++; r.i < len(r.b) && r.b[r.i] != '"'; r.i++ {
		if r.b[r.i] == '\\' {
			r.i++
		}
	}
	r.i++
	return r.b[start:min(r.i, len(r.b))]
}

// number moves past the number at i and returns it.
func (r *jsonReader) number() []byte {
	start := r.i
	for r.i < len(r.b) && strings.IndexByte(",:}] \t\n\r", r.b[r.i]) < 0 {
		r.i++
	}
	return r.b[start:r.i]
}

// unquote returns the string a JSON string (quotes included) stands for: as written when it
// has no escape and only ASCII, else as the unstructured decoder unquotes it (invalid UTF-8
// and lone surrogates become U+FFFD).
func (r *jsonReader) unquote(s []byte) string {
	if plainString(s) {
		return string(s[1 : len(s)-1])
	}
	var v string
	if err := utiljson.Unmarshal(s, &v); err != nil {
		r.ok = false
	}
	return v
}

// plainString reports whether s is a whole JSON string, quotes included, with no escape and
// only ASCII: what it stands for is what is written between its quotes.
func plainString(s []byte) bool {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return false
	}
	for _, c := range s[1 : len(s)-1] {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// jsonNumber converts a JSON number as the unstructured decoder does: an int64 when it
// has no decimal point and fits, else a float64; not ok when it is out of float64's range.
func jsonNumber(s []byte) (any, bool) {
	if !strings.Contains(string(s), ".") {
		if i, err := strconv.ParseInt(string(s), 10, 64); err == nil {
			return i, true
		}
	}
	f, err := strconv.ParseFloat(string(s), 64)
	if err != nil {
		return nil, false
	}
	return f, true
}
