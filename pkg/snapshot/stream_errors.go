package snapshot

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// recorder keeps what the decoder read since a mark, so a syntax error inside one element can
// be placed in the whole file: json.Decoder's own offsets do not count the delimiters its
// Token method consumed.
type recorder struct {
	r    io.Reader
	base int64 // offset of buf[0] in the stream
	buf  []byte
	err  error // what the reader last failed with, io.EOF at the end
}

func (rc *recorder) Read(p []byte) (int, error) {
	n, err := rc.r.Read(p)
	rc.buf = append(rc.buf, p[:n]...)
	if err != nil {
		rc.err = err
	}
	return n, err
}

// mark lets go of what was read before offset off. The text is moved down only once at least
// half of it can go, so each byte is moved about once.
func (rc *recorder) mark(off int64) {
	if drop := off - rc.base; drop > 0 && drop <= int64(len(rc.buf)) && 2*drop >= int64(len(rc.buf)) {
		rc.buf = append(rc.buf[:0], rc.buf[drop:]...)
		rc.base = off
	}
}

// since returns the value read from offset start to offset end.
func (rc *recorder) since(start, end int64) ([]byte, bool) {
	if start < rc.base || end < start || end-rc.base > int64(len(rc.buf)) {
		return nil, false
	}
	text := rc.buf[start-rc.base : end-rc.base]
	return text[leadIn(text):], true
}

// leadIn is how many bytes of text come before the value it starts with. json.Decoder
// consumes the ':' after a key and the ',' between values only when it reads the value that
// follows them, so text read from an offset it gave may start with one, and whitespace.
func leadIn(text []byte) int {
	skip := len(text) - len(bytes.TrimLeft(text, " \t\r\n"))
	if skip < len(text) && (text[skip] == ':' || text[skip] == ',') {
		skip++
	}
	return skip
}

// syntaxAt says where in the stream the text read from offset start on goes wrong. The value
// there is decoded again on its own, whose offsets are the file's less start; when it decodes,
// the error was between values, where json.Decoder's offset is the file's less base, the
// offset in the file of the decoder's first byte.
func (rc *recorder) syntaxAt(start, base int64, err *json.SyntaxError) error {
	if start >= rc.base && start-rc.base <= int64(len(rc.buf)) {
		text := rc.buf[start-rc.base:]
		skip := leadIn(text)
		start += int64(skip)
		var raw json.RawMessage
		rerr := json.NewDecoder(bytes.NewReader(text[skip:])).Decode(&raw)
		var syn *json.SyntaxError
		if errors.As(rerr, &syn) {
			return fmt.Errorf("not valid JSON at byte %d: %v", start+syn.Offset, syn)
		}
		// The value is good, so the ',' or ':' before it is what is wrong (a list that
		// starts with a comma): json.Decoder counts that offset from what it scanned, not
		// from the file's start, so it is said here as json.Unmarshal says it.
		if skip > 0 && (text[skip-1] == ',' || text[skip-1] == ':') && strings.HasPrefix(err.Error(), "invalid character") {
			return fmt.Errorf("not valid JSON at byte %d: %v", start, err)
		}
	}
	return fmt.Errorf("not valid JSON at byte %d: %v", base+err.Offset, err)
}

// place is where a value is in the file, for its errors: the field at, or its element i
// when i is not negative. Its text is made only for an error, not for every element.
type place struct {
	at string
	i  int
}

func (p place) String() string {
	if p.i < 0 {
		return p.at
	}
	return fmt.Sprintf("%s[%d]", p.at, p.i)
}

// valueError says what is wrong with raw, a value that is JSON but not what its field holds,
// named by its place in the file (nodes[3]).
func valueError(raw []byte, err error, at string) error {
	if rel, value, ok := badValue(raw); ok {
		return fmt.Errorf("malformed: %s is %q: %v", joinPath(at, rel), value, err)
	}
	if len(raw) > 0 && raw[0] == '"' {
		var value string
		if json.Unmarshal(raw, &value) == nil {
			return fmt.Errorf("malformed: %s is %q: %v", at, value, err)
		}
	}
	return fmt.Errorf("malformed: %s: %w", at, err)
}

// readErr turns a read error into what the reader is told.
func readErr(err error) error {
	var refused *guardError
	switch {
	case errors.As(err, &refused):
		return err
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the file is empty or truncated")
	case errors.Is(err, gzip.ErrChecksum):
		return fmt.Errorf("malformed: %w", err)
	default:
		return fmt.Errorf("reading the snapshot: %w", err)
	}
}
