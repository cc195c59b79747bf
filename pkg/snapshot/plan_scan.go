package snapshot

import (
	"encoding/json"
	"unicode/utf8"
	"unsafe"
)

// scanner reads one JSON value's text for a plan (plan.go). It only says whether the text is
// what a plan can decode: where it is not sure, it says no, and the value goes to
// json.Unmarshal, which decodes it or says what is wrong with it.
type scanner struct {
	b     []byte
	i     int
	depth int
}

// maxPlanDepth is the deepest nesting a plan decodes (json.Unmarshal takes 10,000); deeper
// values go to json.Unmarshal.
const maxPlanDepth = 200

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next returns the first byte of the next value, after white space; 0 at the end.
func (s *scanner) next() byte {
	s.space()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// literal reads word (true, false or null) and reports whether it is there.
func (s *scanner) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// rawString reads a string's text, from its opening quote, and returns what is between the
// quotes, and whether it needs unquoting (escapes, or bytes that are not valid UTF-8).
func (s *scanner) rawString() (raw []byte, escaped, ok bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false, false
	}
	start := s.i + 1
	ascii := true
	for i := start; i < len(s.b); i++ {
		for i < len(s.b) && plainByte[s.b[i]] {
			i++
		}
		if i == len(s.b) {
			break
		}
		c := s.b[i]
		switch {
		case c == '"':
			s.i = i + 1
			raw = s.b[start:i]
			return raw, escaped || (!ascii && !utf8.Valid(raw)), true
		case c == '\\':
			escaped = true
			i++
			if i >= len(s.b) {
				return nil, false, false
			}
			switch s.b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(s.b) {
					return nil, false, false
				}
				for _, h := range s.b[i+1 : i+5] {
					if !isHex(h) {
						return nil, false, false
					}
				}
				i += 4
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false, false
}

// plainByte are the bytes a string holds as they are: not '"' or '\\', not control
// characters, ASCII.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// str reads a string and returns its value, as json.Unmarshal gives it.
func (s *scanner) str() (string, bool) {
	start := s.i
	raw, escaped, ok := s.rawString()
	if !ok {
		return "", false
	}
	if !escaped {
		return string(raw), true
	}
	var v string
	if json.Unmarshal(s.b[start:s.i], &v) != nil {
		return "", false
	}
	return v, true
}

// number reads a number and returns its text; false when the text is not a JSON number.
func (s *scanner) number() (string, bool) {
	start, i := s.i, s.i
	if i < len(s.b) && s.b[i] == '-' {
		i++
	}
	switch {
	case i < len(s.b) && s.b[i] == '0':
		i++
	case i < len(s.b) && '1' <= s.b[i] && s.b[i] <= '9':
		for i++; i < len(s.b) && '0' <= s.b[i] && s.b[i] <= '9'; i++ {
		}
	default:
		return "", false
	}
	if i < len(s.b) && s.b[i] == '.' {
		i++
		d := i
		for ; i < len(s.b) && '0' <= s.b[i] && s.b[i] <= '9'; i++ {
		}
		if i == d {
			return "", false
		}
	}
	if i < len(s.b) && (s.b[i] == 'e' || s.b[i] == 'E') {
		i++
		if i < len(s.b) && (s.b[i] == '+' || s.b[i] == '-') {
			i++
		}
		d := i
		for ; i < len(s.b) && '0' <= s.b[i] && s.b[i] <= '9'; i++ {
		}
		if i == d {
			return "", false
		}
	}
	s.i = i
	return unsafe.String(&s.b[start], i-start), true
}

// skip reads one value of any kind, checking that it is JSON.
func (s *scanner) skip() bool {
	switch s.next() {
	case '"':
		_, _, ok := s.rawString()
		return ok
	case '{':
		return s.members(func([]byte) bool { return s.skip() })
	case '[':
		_, ok := s.items(func(int) bool { return s.skip() })
		return ok
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		_, ok := s.number()
		return ok
	}
}

// members reads an object from its '{', calling member with each key (unquoted, as its text
// is: a key that needs unquoting fails) when the scanner is at the key's value.
func (s *scanner) members(member func(key []byte) bool) bool {
	if s.depth++; s.depth > maxPlanDepth {
		return false
	}
	s.i++ // '{'
	if s.next() == '}' {
		s.i++
		s.depth--
		return true
	}
	for {
		if s.next() != '"' {
			return false
		}
		key, escaped, ok := s.rawString()
		if !ok || escaped {
			return false
		}
		if s.next() != ':' {
			return false
		}
		s.i++
		if !member(key) {
			return false
		}
		switch s.next() {
		case ',':
			s.i++
		case '}':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// items reads an array from its '[', calling item with each element's index when the scanner
// is at it, and returns how many it read.
func (s *scanner) items(item func(int) bool) (int, bool) {
	if s.depth++; s.depth > maxPlanDepth {
		return 0, false
	}
	s.i++ // '['
	if s.next() == ']' {
		s.i++
		s.depth--
		return 0, true
	}
	for n := 0; ; n++ {
		if !item(n) {
			return 0, false
		}
		switch s.next() {
		case ',':
			s.i++
		case ']':
			s.i++
			s.depth--
			return n + 1, true
		default:
			return 0, false
		}
	}
}

// count returns how many elements the array or members the object at the scanner holds,
// without moving it; false when it is not JSON.
func (s *scanner) count() (int, bool) {
	save, depth := s.i, s.depth
	var n int
	var ok bool
	if s.next() == '[' {
		n, ok = s.items(func(int) bool { return s.skip() })
	} else {
		ok = s.members(func([]byte) bool { n++; return s.skip() })
	}
	s.i, s.depth = save, depth
	return n, ok
}
