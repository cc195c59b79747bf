package snapshot

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

// Write encodes s as indented JSON, streaming its lists (stream.go). It fills in Kind,
// APIVersion and FormatVersion.
func Write(w io.Writer, s *Snapshot) error {
	s.Kind, s.APIVersion, s.FormatVersion = Kind, APIVersion, s.formatVersion()
	return encodeSnapshot(w, s)
}

// DefaultMaxBytes is the most JSON (after gzip) Read takes: 1 GiB holds a snapshot of about
// 100,000 nodes. ReadLimited takes another bound.
const DefaultMaxBytes int64 = 1 << 30

// MaxString is the longest string, and the longest run of whitespace, Read takes: 1 MiB. No
// field karpnet writes comes near it (Kubernetes caps a Node's annotations at 256 KiB).
const MaxString = 1 << 20

// MaxElements is the most elements any one list of a snapshot read with a bound of maxBytes
// holds: one per bytesPerElement (104,857 at the default 1 GiB, about what 100,000 nodes
// take), at least minElements. A node or instance takes hundreds of bytes of memory however
// little JSON it was written with, so the count, not the size, bounds a file of many tiny
// objects.
func MaxElements(maxBytes int64) int64 { return max(maxBytes/bytesPerElement, minElements) }

const (
	bytesPerElement = 10 << 10
	minElements     = 10_000
)

// Read decodes a snapshot written by Write, plain or gzip-compressed, of at most
// DefaultMaxBytes. It refuses truncated or malformed input, another kind, a format newer than
// this build reads, and values out of range, with an error that says which and where.
func Read(r io.Reader) (*Snapshot, error) { return ReadLimited(r, DefaultMaxBytes) }

// ReadLimited is Read with another bound on the JSON's size (after gzip).
func ReadLimited(r io.Reader, maxBytes int64) (*Snapshot, error) {
	var s Snapshot
	if err := readStream(r, maxBytes, &s); err != nil {
		return nil, err
	}
	switch {
	case s.Kind != Kind:
		return nil, fmt.Errorf("kind is %q, not %q: is this a karpnet snapshot?", s.Kind, Kind)
	case s.APIVersion != APIVersion:
		return nil, fmt.Errorf("apiVersion %q is not %q", s.APIVersion, APIVersion)
	case s.FormatVersion > FormatVersion:
		return nil, fmt.Errorf("format version %d is newer than this karpnet reads (%d): upgrade karpnet", s.FormatVersion, FormatVersion)
	case s.FormatVersion < 1:
		return nil, fmt.Errorf("format version %d is not valid", s.FormatVersion)
	case s.Taken.IsZero():
		return nil, errors.New("malformed: it has no taken time")
	}
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("malformed: %w", err)
	}
	if err := s.validateClusters(); err != nil {
		return nil, fmt.Errorf("malformed: %w", err)
	}
	s.Redact()
	return &s, nil
}

// readStream decodes the JSON text of r into s as it is read (stream.go), gunzipping it when
// it starts with gzip's magic bytes, through a guard that bounds its size, its strings and its
// runs of whitespace.
func readStream(r io.Reader, maxBytes int64, s *Snapshot) error {
	br := bufio.NewReaderSize(r, 64<<10)
	g := &guard{r: br, max: maxBytes, byteByByte: sequential.Load()}
	var zr *gzip.Reader
	var ms *members
	if isGzip(br) {
		g.packed = &counter{r: br}
		var err error
		if zr, err = gzip.NewReader(g.packed); err != nil {
			return fmt.Errorf("reading gzip header: %w", err)
		}
		defer zr.Close()
		zr.Multistream(false)
		ms = &members{zr: zr, packed: g.packed, n: 1}
		g.r = ms
	}
	if err := decodeSnapshot(g, maxBytes, s); err != nil {
		if errors.Is(err, errAfterSnapshot) && ms != nil && ms.n > 1 {
			return fmt.Errorf("%w: the file is %d gzip streams one after the other (as cat a.gz b.gz makes), and the snapshot ends before the second", err, ms.n)
		}
		return err
	}
	if zr != nil {
		if rest, _ := io.Copy(io.Discard, io.LimitReader(br, 1<<20)); rest > 0 {
			return fmt.Errorf("malformed: %s of unexpected data after the gzip stream", byteCount(rest))
		}
	}
	return nil
}

// byteCount renders n bytes for a message: "12 bytes", "1 MiB or more".
func byteCount(n int64) string {
	if n >= 1<<20 {
		return "1 MiB or more"
	}
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// isGzip tells whether what br reads next starts with gzip's magic bytes.
func isGzip(br *bufio.Reader) bool {
	magic, _ := br.Peek(2)
	return bytes.Equal(magic, []byte{0x1f, 0x8b})
}

// members reads the gzip streams of a file one after the other, as zcat does (cat a.gz b.gz
// makes such a file), and counts them. What follows the last stream and is not one is left
// in packed's reader.
type members struct {
	zr     *gzip.Reader
	packed *counter
	n      int
}

func (m *members) Read(p []byte) (int, error) {
	for {
		n, err := m.zr.Read(p)
		if err != io.EOF || !isGzip(m.packed.r) {
			return n, err
		}
		if err := m.zr.Reset(m.packed); err != nil {
			return n, err
		}
		m.zr.Multistream(false)
		m.n++
		if n > 0 {
			return n, nil
		}
	}
}
