package snapshot

import (
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
