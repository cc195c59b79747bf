package snapshot

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// A snapshot of 100,000 nodes is over 500 MiB of JSON. Reading it whole and then decoding it
// held the text and the decoded snapshot at once, and writing it built the whole text before
// the first byte went out. The reader and writer here take the top-level lists (nodes,
// NodeClaims, instances, and every cluster's lists in a snapshot of several) one element at a
// time, so only one element's text is held, and intern each element's strings as soon as it
// is decoded. The result is the same as json.Unmarshal and json.Encoder give.

// field is one JSON field of a struct: its key, index and whether omitempty drops it.
type field struct {
	key       string
	index     int
	omitEmpty bool
}

var fieldsByType sync.Map // reflect.Type -> []field

// jsonFields returns the JSON fields of struct type t in declaration order.
func jsonFields(t reflect.Type) []field {
	if f, ok := fieldsByType.Load(t); ok {
		return f.([]field)
	}
	var fs []field
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() || sf.Anonymous {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		fs = append(fs, field{key: name, index: i, omitEmpty: strings.Contains(","+opts+",", ",omitempty,")})
	}
	fieldsByType.Store(t, fs)
	return fs
}

// lookup finds the field a key decodes into as encoding/json does: an exact match first, then
// one that differs only in case.
func lookup(fs []field, key string) (field, bool) {
	for _, f := range fs {
		if f.key == key {
			return f, true
		}
	}
	for _, f := range fs {
		if strings.EqualFold(f.key, key) {
			return f, true
		}
	}
	return field{}, false
}

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

// streamDecoder decodes one snapshot document from a stream.
type streamDecoder struct {
	dec  *json.Decoder
	rec  *recorder
	skip json.RawMessage // a value no field takes, reused
	in   interner
	// maxElems bounds every list (MaxElements); maxBytes is the size bound it follows from.
	maxElems, maxBytes int64
	// base is the offset in the file of dec's first byte: a list's elements are split and
	// decoded apart from dec (stream_parallel.go), and dec is then made again where they end.
	base int64
	// spare is text a batch of elements is done with, for the next to reuse.
	spare []byte
	// nest is the '{' and '[' the decoder is inside, outermost first: what a decoder made
	// again is given first, to be inside them too.
	nest []byte
}

// offset is the decoder's offset in the file.
func (d *streamDecoder) offset() int64 { return d.base + d.dec.InputOffset() }

// decodeSnapshot decodes the document of r into s, interning the strings of every node,
// NodeClaim and instance as it is decoded.
func decodeSnapshot(r io.Reader, maxBytes int64, s *Snapshot) error {
	rec := &recorder{r: r}
	d := &streamDecoder{dec: json.NewDecoder(rec), rec: rec, in: newInterner(),
		maxElems: MaxElements(maxBytes), maxBytes: maxBytes}
	tok, err := d.token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		if tok == nil {
			return d.end() // null decodes into nothing, as json.Unmarshal has it
		}
		return fmt.Errorf("malformed: field %q holds a JSON %s", "", jsonKind(tok))
	}
	d.nest = append(d.nest, '{')
	if err := d.object(reflect.ValueOf(s).Elem(), "", ""); err != nil {
		return err
	}
	return d.end()
}

// errAfterSnapshot is what end says of anything after the document but whitespace.
var errAfterSnapshot = errors.New("malformed: unexpected data after the snapshot")

// end refuses anything after the document but whitespace.
func (d *streamDecoder) end() error {
	switch _, err := d.dec.Token(); {
	case errors.Is(err, io.EOF):
		return nil
	case err == nil:
		return errAfterSnapshot
	default:
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return errAfterSnapshot
		}
		return readErr(err)
	}
}

// token reads the next token, turning the end of the input into "truncated".
func (d *streamDecoder) token() (json.Token, error) {
	start := d.offset()
	d.rec.mark(start)
	tok, err := d.dec.Token()
	if err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return nil, d.rec.syntaxAt(start, d.base, syn)
		}
		return nil, readErr(err)
	}
	return tok, nil
}

// object decodes the members of the object whose '{' was just read into struct v. path is
// the dotted key path of v, as encoding/json names fields in its errors, and at its place in
// the file (clusters[1]); both are "" at the top.
func (d *streamDecoder) object(v reflect.Value, path, at string) error {
	fs := jsonFields(v.Type())
	for d.dec.More() {
		tok, err := d.token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		f, ok := lookup(fs, key)
		if !ok {
			if err := d.value(nil, "", place{i: -1}); err != nil {
				return err
			}
			continue
		}
		fv, fpath, fat := v.Field(f.index), joinPath(path, f.key), joinPath(at, f.key)
		if fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.Struct {
			err = d.list(fv, fpath, fat)
		} else {
			err = d.value(fv.Addr().Interface(), fpath, place{at: fat, i: -1})
		}
		if err != nil {
			return err
		}
	}
	_, err := d.token() // '}'
	return err
}

// list decodes a JSON array into slice v one element at a time; null leaves it nil.
func (d *streamDecoder) list(v reflect.Value, path, at string) error {
	tok, err := d.token()
	if err != nil {
		return err
	}
	switch tok {
	case nil:
		v.SetZero()
		return nil
	case json.Delim('['):
	default:
		return fmt.Errorf("malformed: field %q holds a JSON %s", path, jsonKind(tok))
	}
	v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	snapshots := v.Type().Elem() == reflect.TypeFor[Snapshot]()
	d.nest = append(d.nest, '[')
	apart := !snapshots && !sequential.Load()
	for i := 0; ; i++ {
		if apart {
			// As many elements as split and decode apart. One that does not (malformed, or
			// not an object) is decoded below, and the rest of the list with it.
			n, whole, err := d.elements(v, i)
			if err != nil {
				return err
			}
			i, apart = n, whole
		}
		if !d.dec.More() {
			break
		}
		if int64(i) >= d.maxElems {
			return refuse("%s holds more than %s elements, the most a snapshot of at most %s holds (one per %d KiB): pass --snapshot-max-size to read a larger one",
				at, thousands(d.maxElems), sizeText(d.maxBytes), bytesPerElement>>10)
		}
		v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
		elem := v.Index(i)
		if snapshots {
			// A cluster of a snapshot of several: its own lists are streamed too.
			tok, err := d.token()
			if err != nil {
				return err
			}
			if tok != json.Delim('{') {
				return fmt.Errorf("malformed: field %q holds a JSON %s", path, jsonKind(tok))
			}
			d.nest = append(d.nest, '{')
			if err := d.object(elem, path, place{at: at, i: i}.String()); err != nil {
				return err
			}
			d.nest = d.nest[:len(d.nest)-1]
			continue
		}
		if err := d.element(elem.Addr().Interface(), path, place{at: at, i: i}); err != nil {
			return err
		}
	}
	d.nest = d.nest[:len(d.nest)-1]
	if v.Cap() > v.Len()+v.Len()/8 {
		// Appending doubles the list's array: what it read is kept in one just its size.
		exact := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(exact, v)
		v.Set(exact)
	}
	_, err = d.token() // ']'
	return err
}

// element decodes the next value into p, an element of the list at path, and interns its
// strings.
func (d *streamDecoder) element(p any, path string, at place) error {
	if err := d.value(p, path, at); err != nil {
		return err
	}
	switch e := p.(type) {
	case *corev1.Node:
		internNode(d.in, e)
	case *NodeClaim:
		internClaim(d.in, e)
	case *Instance:
		internInstance(d.in, e)
	}
	return nil
}

// value decodes the next value into p, or skips it when p is nil. The decoder reads the
// value's text once to find its end and once to decode it, as json.Unmarshal does; the text
// is looked at again only to say what is wrong with it.
func (d *streamDecoder) value(p any, path string, at place) error {
	start := d.offset()
	d.rec.mark(start)
	if p == nil {
		p = &d.skip
	}
	err := d.dec.Decode(p)
	d.skip = d.skip[:0]
	if err == nil {
		return nil
	}
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		return d.rec.syntaxAt(start, d.base, syn)
	case d.rec.err != nil && (errors.Is(err, d.rec.err) || errors.Is(err, io.ErrUnexpectedEOF)):
		return readErr(err) // the input failed or ended, not the value
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return fmt.Errorf("malformed: field %q holds a JSON %s", joinPath(path, typ.Field), typ.Value)
	}
	if raw, ok := d.rec.since(start, d.offset()); ok {
		return valueError(raw, err, at.String())
	}
	return readErr(err)
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
