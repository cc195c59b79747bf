package kubestream

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ProtobufPrefix starts every protobuf answer of the API server, before the runtime.Unknown
// envelope that holds the object.
const ProtobufPrefix = "k8s\x00"

// NodePage is one page of a protobuf node list: the list metadata and each node's protobuf,
// not decoded (DecodeNode decodes one), slices of Buf.
type NodePage struct {
	Meta  metav1.ListMeta
	Items [][]byte
	// Buf holds the items, a buffer of the Buffers the page was read with: whoever takes the
	// page gives it back (Buffers.Put) once nothing refers to the items.
	Buf *bytes.Buffer
	// More is set when more pages of the same answer follow.
	More bool
}

// Buffers hands out the buffers a stream reads pages into, reused from page to page and from
// answer to answer, and takes back those nothing refers to any more. Read is told the length
// of each page read, so that the next buffers come with room for the longest. The caller owns
// them: StreamNodeList keeps none.
type Buffers interface {
	Get() *bytes.Buffer
	Put(*bytes.Buffer)
	Read(n int)
}

// AnswerError is an answer that is not a NodeList in the Kubernetes protobuf envelope.
type AnswerError struct{ Err error }

func (e *AnswerError) Error() string { return e.Err.Error() }
func (e *AnswerError) Unwrap() error { return e.Err }

// StreamNodeList reads a protobuf NodeList answer from in as it comes: its envelope, its
// list metadata, then its nodes, each kept as its bytes (not decoded) in pages of at most
// batch nodes (all of them in one when batch is 0), each page passed to emit with a buffer of
// its own from bufs (nil: a new buffer each). It returns the list metadata. An answer that is
// not a NodeList in the Kubernetes protobuf envelope (no prefix, another kind, a content
// encoding, no object or two) is an *AnswerError; an answer that stops coming fails as
// Request.Do fails when it cannot read an answer; an error of emit ends the read and is
// returned as it is.
func StreamNodeList(in *bufio.Reader, batch int, bufs Buffers, emit func(*NodePage) error) (metav1.ListMeta, error) {
	if bufs == nil {
		bufs = unpooled{}
	}
	r := &protoStream{in: in, bufs: bufs}
	meta, err := r.list(batch, emit)
	switch {
	case err == nil:
		return meta, nil
	case r.readErr != nil:
		return meta, fmt.Errorf("unexpected error when reading response body. Please retry. Original error: %w", r.readErr)
	case errors.Is(err, errEmit):
		return meta, errors.Unwrap(err)
	}
	return meta, &AnswerError{Err: err}
}

// unpooled are Buffers that make a new buffer each time and keep none.
type unpooled struct{}

func (unpooled) Get() *bytes.Buffer { return new(bytes.Buffer) }
func (unpooled) Put(*bytes.Buffer)  {}
func (unpooled) Read(int)           {}

// errEmit wraps an error of emit, which StreamNodeList returns as it is.
var errEmit = errors.New("emit")

// protoStream reads protobuf from in, counting what it has read. readErr is an error of
// in other than its end, which ends reading.
type protoStream struct {
	in      *bufio.Reader
	bufs    Buffers
	read    int64
	readErr error
}

// errProtoShort is an answer that ends inside a field.
var errProtoShort = errors.New("malformed protobuf: unexpected EOF")

func (r *protoStream) fail(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errProtoShort
	}
	r.readErr = err
	return err
}

// varint reads a varint.
func (r *protoStream) varint() (uint64, error) {
	v, err := binary.ReadUvarint(r)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || r.readErr != nil {
			return 0, r.fail(err)
		}
		return 0, fmt.Errorf("malformed protobuf: %w", err)
	}
	return v, nil
}

// ReadByte reads a byte of in, for binary.ReadUvarint.
func (r *protoStream) ReadByte() (byte, error) {
	b, err := r.in.ReadByte()
	if err == nil {
		r.read++
	} else if !errors.Is(err, io.EOF) {
		r.readErr = err
	}
	return b, err
}

// tag reads a field's tag, at most end bytes into the stream.
func (r *protoStream) tag() (protowire.Number, protowire.Type, error) {
	v, err := r.varint()
	if err != nil {
		return 0, 0, err
	}
	num, typ := protowire.DecodeTag(v)
	if num < protowire.MinValidNumber {
		return 0, 0, fmt.Errorf("malformed protobuf: %w", protowire.ParseError(-1))
	}
	return num, typ, nil
}

// length reads the length of a length-delimited field that must end by end.
func (r *protoStream) length(end int64) (int64, error) {
	n, err := r.varint()
	if err != nil {
		return 0, err
	}
	if n > uint64(end-r.read) {
		return 0, errProtoShort
	}
	return int64(n), nil
}

// protoFieldMax bounds the envelope's and the list metadata's fields, which are read
// whole: a few hundred bytes in any real answer.
const protoFieldMax = 1 << 20

// bytes reads n bytes into buf, which grows only as they come: a length the answer does not
// hold makes no room up front.
func (r *protoStream) bytes(buf *bytes.Buffer, n int64) error {
	got, err := buf.ReadFrom(io.LimitReader(r.in, n))
	r.read += got
	if err != nil {
		return r.fail(err)
	}
	if got < n {
		return errProtoShort
	}
	return nil
}

// small reads a field of n bytes that is read whole.
func (r *protoStream) small(n int64) ([]byte, error) {
	if n > protoFieldMax {
		return nil, fmt.Errorf("a field of %d bytes in the answer's envelope or list metadata, which karpnet does not read", n)
	}
	var buf bytes.Buffer
	err := r.bytes(&buf, n)
	return buf.Bytes(), err
}

// skip passes over the value of a field of type typ that must end by end.
func (r *protoStream) skip(typ protowire.Type, end int64) error {
	var n int64
	switch typ {
	case protowire.VarintType:
		_, err := r.varint()
		return err
	case protowire.Fixed32Type:
		n = 4
	case protowire.Fixed64Type:
		n = 8
	case protowire.BytesType:
		var err error
		if n, err = r.length(end); err != nil {
			return err
		}
	default:
		return fmt.Errorf("malformed protobuf: %w", protowire.ParseError(-1))
	}
	if n > end-r.read {
		return errProtoShort
	}
	if _, err := r.in.Discard(int(n)); err != nil {
		return r.fail(err)
	}
	r.read += n
	return nil
}

// field reads the next field of a message that ends by end and whose fields 1 to known are
// all length-delimited: one of them that wanted names comes back with the length of its value,
// which is read next; any other is passed over (skipped). One of them of another wire type is
// refused, as the generated decoder refuses it.
func (r *protoStream) field(end int64, known protowire.Number, wanted func(protowire.Number) bool) (num protowire.Number, n int64, skipped bool, err error) {
	num, typ, err := r.tag()
	if err != nil {
		return 0, 0, false, err
	}
	if num <= known && typ != protowire.BytesType {
		return 0, 0, false, fmt.Errorf("malformed protobuf: wire type %d for field %d, which is length-delimited", typ, num)
	}
	if typ != protowire.BytesType || !wanted(num) {
		return num, 0, true, r.skip(typ, end)
	}
	n, err = r.length(end)
	return num, n, false, err
}

// list reads the envelope (runtime.Unknown) and the NodeList in it.
func (r *protoStream) list(batch int, emit func(*NodePage) error) (metav1.ListMeta, error) {
	var meta metav1.ListMeta
	magic := make([]byte, len(ProtobufPrefix))
	if _, err := io.ReadFull(r.in, magic); err != nil || string(magic) != ProtobufPrefix {
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return meta, r.fail(err)
		}
		return meta, errors.New("a protobuf answer without the Kubernetes protobuf prefix")
	}
	r.read = int64(len(magic))
	const noEnd = int64(1) << 62
	var typeMeta runtime.TypeMeta
	listed := false
	for {
		if _, err := r.in.Peek(1); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return meta, r.fail(err)
		}
		num, n, skipped, err := r.field(noEnd, 4, func(num protowire.Number) bool { return num >= 1 && num <= 3 })
		if err != nil {
			return meta, err
		}
		if skipped {
			continue
		}
		switch num {
		case 1: // runtime.Unknown.typeMeta
			b, err := r.small(n)
			if err != nil {
				return meta, err
			}
			if err := typeMeta.Unmarshal(b); err != nil {
				return meta, err
			}
		case 2: // runtime.Unknown.raw: the NodeList, read as it comes once it is known to be one
			if listed {
				return meta, errors.New("a protobuf answer that holds two objects, which karpnet does not read")
			}
			if typeMeta.Kind != "NodeList" {
				if typeMeta.Kind != "" {
					return meta, fmt.Errorf("a %q where a NodeList was asked for", typeMeta.Kind)
				}
				return meta, errors.New("a protobuf answer whose object comes before its kind, which karpnet does not read")
			}
			if meta, err = r.nodeList(r.read+n, batch, emit); err != nil {
				return meta, err
			}
			listed = true
		case 3: // runtime.Unknown.contentEncoding
			b, err := r.small(n)
			if err != nil {
				return meta, err
			}
			if len(b) > 0 {
				return meta, fmt.Errorf("content encoding %q, which karpnet does not read", b)
			}
		}
	}
	if !listed {
		return meta, errors.New("a protobuf answer that holds no object")
	}
	if typeMeta.Kind != "NodeList" { // a kind the envelope changed after its object
		return meta, fmt.Errorf("a %q where a NodeList was asked for", typeMeta.Kind)
	}
	return meta, nil
}

// nodeList reads the fields of a NodeList that ends end bytes into the stream, passing its
// nodes on in pages of batch.
func (r *protoStream) nodeList(end int64, batch int, emit func(*NodePage) error) (metav1.ListMeta, error) {
	var meta metav1.ListMeta
	page := &NodePage{Buf: r.bufs.Get()}
	var bounds [][2]int
	sent := false
	// send passes the page on; more says whether more of the answer's nodes follow.
	send := func(more bool) error {
		b := page.Buf.Bytes()
		for _, at := range bounds {
			page.Items = append(page.Items, b[at[0]:at[1]])
		}
		page.Meta, page.More = meta, more
		r.bufs.Read(page.Buf.Len())
		next := page
		page, bounds, sent = &NodePage{Buf: r.bufs.Get()}, nil, true
		if err := emit(next); err != nil {
			return fmt.Errorf("%w: %w", errEmit, err)
		}
		return nil
	}
	defer func() { r.bufs.Put(page.Buf) }() // the page being read, never passed on
	for r.read < end {
		num, n, skipped, err := r.field(end, 2, func(num protowire.Number) bool { return num == 1 || num == 2 })
		if err != nil {
			return meta, err
		}
		if skipped {
			continue
		}
		if num == 1 { // NodeList.metadata
			b, err := r.small(n)
			if err != nil {
				return meta, err
			}
			if err := meta.Unmarshal(b); err != nil {
				return meta, err
			}
			continue
		}
		// NodeList.items: one node, kept as its bytes in the page's buffer.
		start := page.Buf.Len()
		if err := r.bytes(page.Buf, n); err != nil {
			return meta, err
		}
		bounds = append(bounds, [2]int{start, page.Buf.Len()})
		if batch > 0 && len(bounds) >= batch {
			if err := send(true); err != nil {
				return meta, err
			}
		}
	}
	if r.read != end {
		return meta, errProtoShort
	}
	if len(bounds) > 0 || !sent {
		if err := send(false); err != nil {
			return meta, err
		}
	}
	return meta, nil
}
