package snapshot

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Write encodes s as indented JSON. It fills in Kind, APIVersion and FormatVersion.
func Write(w io.Writer, s *Snapshot) error {
	s.Kind, s.APIVersion, s.FormatVersion = Kind, APIVersion, FormatVersion
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(s)
}

// Read decodes a snapshot written by Write, plain or gzip-compressed. It refuses truncated or
// malformed input, another kind, and a format newer than this build reads, with an error that
// says which.
func Read(r io.Reader) (*Snapshot, error) {
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("reading gzip header: %w", err)
		}
		defer zr.Close()
		br = bufio.NewReader(zr)
	}
	var s Snapshot
	dec := json.NewDecoder(br)
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errors.New("the file is empty or truncated")
		}
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return nil, fmt.Errorf("not valid JSON at byte %d: %v", syn.Offset, syn)
		}
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			return nil, fmt.Errorf("malformed: field %q holds a JSON %s", typ.Field, typ.Value)
		}
		return nil, fmt.Errorf("malformed: %w", err)
	}
	// A gzip stream is only checked, and may only turn out cut short, after the JSON ends.
	switch _, err := dec.Token(); {
	case errors.Is(err, io.EOF):
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, errors.New("the file is empty or truncated")
	case errors.Is(err, gzip.ErrChecksum):
		return nil, fmt.Errorf("malformed: %w", err)
	default:
		return nil, errors.New("malformed: unexpected data after the snapshot")
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
	return &s, nil
}
