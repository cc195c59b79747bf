package kubestream

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// jsonStream reads JSON values one after another from a reader, each whole in its buffer:
// a list answer of 100,000 NodeClaims is about 250 MB, and json.Decoder, which scans every
// byte through its state machine twice (to find a value's end, then to decode it into a
// RawMessage), spent two seconds of CPU on it. Here a value's end is found by a loop that
// only follows strings and brackets, and the value is then checked once by validJSON,
// which accepts what encoding/json accepts.
type jsonStream struct {
	r   io.Reader
	buf []byte
	pos int   // the next byte to read, in buf
	off int64 // where buf[0] stands in the answer
	err error // the reader's error, once it gave one (io.EOF at the end)
	max int   // the most bytes of one value, 0 for no bound
}

// ValueTooLongError is a value of a list answer (one of its items) longer than Items.MaxItem.
type ValueTooLongError struct {
	Limit int
}

func (e *ValueTooLongError) Error() string {
	return fmt.Sprintf("a value is longer than %d bytes", e.Limit)
}

// streamBuffer is the size a stream's buffer starts at; it doubles for a value that
// does not fit.
const streamBuffer = 256 << 10

func newJSONStream(r io.Reader) *jsonStream {
	return &jsonStream{r: r, buf: make([]byte, 0, streamBuffer)}
}

// fill moves buf[keep:] to the start of the buffer, reads more of the answer after it, and
// reports whether anything came.
func (s *jsonStream) fill(keep int) bool {
	if keep > 0 {
		n := copy(s.buf, s.buf[keep:])
		s.buf = s.buf[:n]
		s.pos -= keep
		s.off += int64(keep)
	}
	if s.err != nil {
		return false
	}
	if len(s.buf) == cap(s.buf) {
		s.buf = append(s.buf, make([]byte, cap(s.buf))...)[:len(s.buf)]
	}
	for {
		n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+n]
		if err != nil {
			s.err = err
		}
		if n > 0 || err != nil {
			return n > 0
		}
	}
}

// ended is the error for an answer that stops where more must follow: the reader's own when
// it failed, else io.ErrUnexpectedEOF, as json.Decoder says.
func (s *jsonStream) ended() error {
	if s.err != nil && !errors.Is(s.err, io.EOF) {
		return s.err
	}
	return io.ErrUnexpectedEOF
}

// space moves past JSON whitespace and returns the next byte, ok false at the end.
func (s *jsonStream) space() (byte, bool) {
	for {
		for s.pos < len(s.buf) {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return c, true
			}
		}
		if !s.fill(s.pos) {
			return 0, false
		}
	}
}

// expect moves past whitespace and the byte want, failing on anything else.
func (s *jsonStream) expect(want byte) error {
	c, ok := s.space()
	if !ok {
		return fmt.Errorf("%w, before %q", s.ended(), want)
	}
	if c != want {
		return s.invalid(fmt.Sprintf("got %q, want %q", c, want))
	}
	s.pos++
	return nil
}

// invalid is the error for the answer's text at pos.
func (s *jsonStream) invalid(what string) error {
	return fmt.Errorf("not valid JSON at byte %d: %s", s.off+int64(s.pos)+1, what)
}

// value returns the next JSON value, checked (validJSON), as a slice of the buffer that
// is good until the next call.
func (s *jsonStream) value() ([]byte, error) {
	if _, ok := s.space(); !ok {
		return nil, s.ended()
	}
	start, from, end := s.pos, s.pos, 0
	var scan valueEnd
	for {
		var ok bool
		if end, ok = scan.find(s.buf, from, start); ok {
			break
		}
		read := len(s.buf) - start // of the value, so far
		if s.max > 0 && read > s.max {
			return nil, &ValueTooLongError{Limit: s.max}
		}
		s.pos = len(s.buf)
		more := s.fill(start) // the value now starts at 0
		start, from = 0, read
		if !more {
			if scan.scalar {
				end = len(s.buf) // a number or literal that ends the answer
				break
			}
			return nil, s.ended()
		}
	}
	if s.max > 0 && end-start > s.max {
		return nil, &ValueTooLongError{Limit: s.max}
	}
	v := s.buf[start:end:end]
	if !validJSON(v) {
		var any json.RawMessage
		err := json.Unmarshal(v, &any)
		if err == nil {
			err = errors.New("a value encoding/json would refuse")
		}
		s.pos = start
		return nil, s.invalid(err.Error())
	}
	s.pos = end
	return v, nil
}

// valueEnd finds where a JSON value ends, following only strings (for their quotes and
// backslashes) and brackets; what it finds is then checked whole. Its state carries over
// from one part of the text to the next.
type valueEnd struct {
	depth    int
	inString bool
	escaped  bool
	started  bool
	scalar   bool // the value is a number or a literal, at the top level
}

// find scans b from i (the value starts at start) and returns the index just past the
// value's end, ok false when b ends first.
func (e *valueEnd) find(b []byte, i, start int) (int, bool) {
	if !e.started {
		e.started = true
		switch b[start] {
		case '{', '[', '"':
		default:
			e.scalar = true
		}
	}
	for ; i < len(b); i++ {
		c := b[i]
		if e.inString {
			switch {
			case e.escaped:
				e.escaped = false
			case c == '\\':
				e.escaped = true
			case c == '"':
				e.inString = false
				if e.depth == 0 {
					return i + 1, true
				}
			}
			continue
		}
		if e.scalar {
			switch c {
			case ',', ':', '}', ']', ' ', '\t', '\n', '\r', '{', '[', '"':
				return i, true
			}
			continue
		}
		switch c {
		case '"':
			e.inString = true
		case '{', '[':
			e.depth++
		case '}', ']':
			e.depth--
			if e.depth <= 0 {
				return i + 1, true
			}
		}
	}
	return i, false
}

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000
