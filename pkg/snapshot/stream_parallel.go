package snapshot

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
)

// Decoding the elements of a list is most of reading a snapshot, and json.Decoder decodes
// one value at a time. elements splits a list's elements with a scan that only matches
// braces and quotes, decodes them in batches on every CPU with json.Unmarshal while it splits
// the next batch, and interns them in order. An element decoded apart is the same as json.Decoder makes of it: the text between
// the braces is the same value, and json.Unmarshal checks it whole before decoding it. What
// the split does not take as an element (not an object, no ',' or ']' after it, the end of
// the input), an element json.Unmarshal refuses, and the element past MaxElements are left
// to json.Decoder, made again at that place, so every error says what it said before.

const (
	// A batch of elements split before they are decoded: at most batchElems elements, or
	// batchBytes of text.
	batchElems = 512
	batchBytes = 2 << 20
	// readChunk is how much the split reads at a time.
	readChunk = 256 << 10
)

// sequential turns elements and the guard's quick passes off: every element is decoded by
// json.Decoder and every byte looked at by the guard, as the tests compare.
var sequential atomic.Bool

// splitter holds the text of a list from the decoder's offset on.
type splitter struct {
	src io.Reader
	buf []byte
	off int64 // offset in the file of buf[0]
	err error // what src failed with, io.EOF at its end
}

// more reads another chunk; false when the input has ended or failed.
func (s *splitter) more() bool {
	if s.err != nil {
		return false
	}
	if cap(s.buf)-len(s.buf) < readChunk {
		s.buf = append(s.buf, make([]byte, readChunk)...)[:len(s.buf)]
	}
	n, err := s.src.Read(s.buf[len(s.buf) : len(s.buf)+readChunk])
	s.buf = s.buf[:len(s.buf)+n]
	if err != nil {
		s.err = err
	}
	return n > 0 || err == nil
}

// space returns the index of the first byte at or after i that is not JSON whitespace, reading
// more as needed; len(buf) when the input ends first.
func (s *splitter) space(i int) int {
	for {
		for ; i < len(s.buf); i++ {
			switch s.buf[i] {
			case ' ', '\t', '\n', '\r':
			default:
				return i
			}
		}
		if !s.more() {
			return i
		}
	}
}

// object returns the index just after the '}' that closes the object whose '{' is at buf[i],
// counting brackets outside strings; false when the input ends first.
func (s *splitter) object(i int) (int, bool) {
	depth := 0
	for {
		for i < len(s.buf) {
			if !splitBytes[s.buf[i]] {
				i++
				continue
			}
			switch s.buf[i] {
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, true
				}
			case '"':
				end, ok := closeQuote(s.buf, i+1)
				if !ok {
					goto more
				}
				i = end
			}
			i++
		}
	more:
		if !s.more() {
			return 0, false
		}
	}
}

// splitBytes are the bytes the split looks at: brackets and quotes.
var splitBytes = [256]bool{'{': true, '[': true, '}': true, ']': true, '"': true}

// closeQuote returns the index of the '"' that ends the string whose text starts at text[i].
func closeQuote(text []byte, i int) (int, bool) {
	for {
		q := bytes.IndexByte(text[i:], '"')
		if q < 0 {
			return 0, false
		}
		q += i
		escapes := 0
		for j := q - 1; j >= i && text[j] == '\\'; j-- {
			escapes++
		}
		if escapes%2 == 0 {
			return q, true
		}
		i = q + 1
	}
}

// span is one element's text in a batch's text, and where the text before it starts.
type span struct{ before, start, end int }

// job is a batch of elements, the text they are split from and what they decode into, on
// GOMAXPROCS goroutines while the next batch is split.
type job struct {
	text   []byte
	off    int64 // offset in the file of text[0]
	spans  []span
	vals   reflect.Value // a slice of len(spans) elements
	failed []bool
	wg     sync.WaitGroup
}

// elements decodes the elements of the list in v from the i'th on, where the decoder is: after
// the '[' or after element i-1. It returns how many elements v has then, and whether the list
// was read to its ']'; either way the decoder is made again after the last element decoded.
//
// The batches' elements are kept as they are decoded and put into v once, in a slice just
// their length: appending them to v batch by batch copied a list of 100,000 nodes about
// twenty times over (a fifth of reading it).
func (d *streamDecoder) elements(v reflect.Value, i int) (int, bool, error) {
	var batches []reflect.Value
	n, whole, err := d.batches(v.Type(), i, &batches)
	if len(batches) > 0 {
		total := v.Len()
		for _, b := range batches {
			total += b.Len()
		}
		all := reflect.MakeSlice(v.Type(), total, total)
		at := reflect.Copy(all, v)
		for _, b := range batches {
			at += reflect.Copy(all.Slice(at, total), b)
		}
		v.Set(all)
	}
	return n, whole, err
}

// batches splits and decodes the elements of elements, appending each batch's to out.
func (d *streamDecoder) batches(t reflect.Type, i int, out *[]reflect.Value) (int, bool, error) {
	s := &splitter{src: d.rec.r, buf: bytesOf(d.dec.Buffered()), off: d.offset()}
	split := i // elements split so far
	var pending *job
	// d.spare is the text of a batch that is done with, for the next to reuse: a snapshot is
	// read with three buffers of text, however long it is.
	for {
		// Split the next batch from the text after element split-1.
		var spans []span
		p, held, whole, full := 0, 0, false, false
		for int64(split) < d.maxElems {
			if len(spans) >= batchElems || held >= batchBytes {
				full = true
				break
			}
			q := s.space(p)
			if q < len(s.buf) && s.buf[q] == ']' {
				whole = true
				break
			}
			if split > 0 {
				if q == len(s.buf) || s.buf[q] != ',' {
					break
				}
				q = s.space(q + 1)
			}
			if q == len(s.buf) || s.buf[q] != '{' {
				break
			}
			end, ok := s.object(q)
			if !ok {
				break
			}
			spans = append(spans, span{before: p, start: q, end: end})
			held += end - q
			p = end
			split++
		}
		var next *job
		if len(spans) > 0 {
			// The batch takes the text it was split from; what follows is moved to a buffer
			// of its own, large enough for the next batch to be read into it whole.
			next = &job{text: s.buf[:p], off: s.off, spans: spans}
			buf := d.spare
			if cap(buf) < batchBytes+2*readChunk || cap(buf) < 2*(len(s.buf)-p) {
				buf = make([]byte, 0, max(batchBytes+4*readChunk, 2*(len(s.buf)-p)))
			}
			s.buf = append(buf[:0], s.buf[p:]...)
			s.off += int64(p)
			p = 0
			d.start(t, next)
			d.spare = nil
		}
		if pending != nil {
			n := d.finish(out, pending)
			i += n
			if n == len(pending.spans) {
				// Its text is done with: the batch after next takes it.
				d.spare = pending.text
			} else {
				before := pending.spans[n].before
				parts := [][]byte{pending.text[before:]}
				if next != nil {
					next.wg.Wait()
					parts = append(parts, next.text)
				}
				return i, false, d.remake(pending.off+int64(before), append(parts, s.buf), s, i > 0)
			}
		}
		pending = next
		if full {
			continue
		}
		if pending != nil {
			n := d.finish(out, pending)
			i += n
			if n < len(pending.spans) {
				before := pending.spans[n].before
				return i, false, d.remake(pending.off+int64(before), [][]byte{pending.text[before:], s.buf}, s, i > 0)
			}
		}
		return i, whole, d.remake(s.off+int64(p), [][]byte{s.buf[p:]}, s, i > 0)
	}
}

// bytesOf returns the bytes r holds.
func bytesOf(r io.Reader) []byte {
	b, _ := io.ReadAll(r)
	return b
}

// start decodes j's elements into a new slice of type t, on GOMAXPROCS goroutines.
func (d *streamDecoder) start(t reflect.Type, j *job) {
	j.vals = reflect.MakeSlice(t, len(j.spans), len(j.spans))
	j.failed = make([]bool, len(j.spans))
	plan := planFor(t.Elem())
	var next atomic.Int64
	work := func() {
		for {
			k := int(next.Add(1)) - 1
			if k >= len(j.spans) {
				return
			}
			sp := j.spans[k]
			text, elem := j.text[sp.start:sp.end], j.vals.Index(k)
			if plan != nil {
				if decodePlanned(plan, text, elem.Addr().UnsafePointer()) {
					continue
				}
				elem.SetZero()
			}
			j.failed[k] = json.Unmarshal(text, elem.Addr().Interface()) != nil
		}
	}
	for range min(runtime.GOMAXPROCS(0), len(j.spans)) {
		j.wg.Go(work)
	}
}

// finish waits for j, interns its elements in order up to the first that did not decode, and
// appends them to out. It returns how many it appended.
func (d *streamDecoder) finish(out *[]reflect.Value, j *job) int {
	j.wg.Wait()
	n := len(j.spans)
	for k := range n {
		if j.failed[k] {
			n = k
			break
		}
		switch e := j.vals.Index(k).Addr().Interface().(type) {
		case *corev1.Node:
			internNode(d.in, e)
		case *NodeClaim:
			internClaim(d.in, e)
		case *Instance:
			internInstance(d.in, e)
		}
	}
	if n > 0 {
		*out = append(*out, j.vals.Slice(0, n))
	}
	return n
}

// remake makes the decoder again at offset at of the file, inside the objects and lists the
// list is in and after an element when comma, fed the text from there (parts, then what s
// reads from).
func (d *streamDecoder) remake(at int64, parts [][]byte, s *splitter, comma bool) error {
	var prefix []byte
	for _, c := range d.nest {
		if c == '{' {
			prefix = append(prefix, `{"":`...)
		} else {
			prefix = append(prefix, '[')
		}
	}
	if comma {
		prefix = append(prefix, "{}"...)
	}
	rest := io.Reader(s.src)
	if s.err != nil {
		rest = failing{s.err}
	}
	d.base = at - int64(len(prefix))
	readers := []io.Reader{bytes.NewReader(prefix)}
	for _, part := range parts {
		readers = append(readers, bytes.NewReader(part))
	}
	d.rec = &recorder{r: io.MultiReader(append(readers, rest)...), base: d.base}
	d.dec = json.NewDecoder(d.rec)
	for _, c := range d.nest {
		if _, err := d.dec.Token(); err != nil {
			return err
		}
		if c == '{' {
			if _, err := d.dec.Token(); err != nil {
				return err
			}
		}
	}
	if comma {
		var skip json.RawMessage
		return d.dec.Decode(&skip)
	}
	return nil
}

// failing is a reader that fails as the input did.
type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }
