package collect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// kubeStreamList lists gvr with opts through Collector.REST and decodes the answer one object
// at a time, passing each to visit, and returns the list's continue token. Objects are
// decoded exactly as the dynamic client decodes them, but the answer is never held whole:
// memory stays at one object however many thousands the list has.
func (c *Collector) kubeStreamList(ctx context.Context, gvr schema.GroupVersionResource, opts metav1.ListOptions, reads kubeShape, visit func(*unstructured.Unstructured)) (string, error) {
	req := c.REST.Get().AbsPath("/apis", gvr.Group, gvr.Version, gvr.Resource).SetHeader("Accept", "application/json")
	if opts.Limit > 0 {
		req = req.Param("limit", strconv.FormatInt(opts.Limit, 10))
	}
	if opts.Continue != "" {
		req = req.Param("continue", opts.Continue)
	}
	if opts.ResourceVersion != "" {
		req = req.Param("resourceVersion", opts.ResourceVersion)
	}
	body, err := req.Stream(ctx)
	if err != nil {
		return "", err
	}
	defer body.Close()
	next, err := kubeDecodeListStream(body, reads, visit)
	switch {
	case err == nil:
		return next, nil
	case kubeIsTimeout(err) || kubeIsTransport(err) || errors.Is(err, context.Canceled):
		return "", err // the answer stopped coming: a timeout, a lost connection
	}
	// The server answered, so a broken answer is a gap in what was read, not an unreachable
	// server.
	return "", &kubeAnswerError{what: gvr.Resource + " list", err: err}
}

// kubeDecodeListStream reads a JSON list object from r, passing each of its items to visit
// (only what reads names of each, when set: kubeDecodeItems), and returns metadata.continue.
func kubeDecodeListStream(r io.Reader, reads kubeShape, visit func(*unstructured.Unstructured)) (string, error) {
	dec := json.NewDecoder(r)
	if err := kubeExpectDelim(dec, '{'); err != nil {
		return "", err
	}
	var meta metav1.ListMeta
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		switch tok {
		case "items":
			if err := kubeDecodeItems(dec, reads, visit); err != nil {
				return "", err
			}
		case "metadata":
			if err := dec.Decode(&meta); err != nil {
				return "", fmt.Errorf("decoding the list metadata: %w", err)
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return "", err
			}
		}
	}
	return meta.Continue, kubeExpectDelim(dec, '}')
}

// kubeDecodeItems reads a JSON array of objects (or null), passing each to visit. With reads
// set, an object is decoded with only what reads names (kubeDecodeShaped), which is what
// visit reads of it; one that would not decode so, or that has no kind, is decoded whole,
// as the dynamic client decodes it, and fails as it does.
func kubeDecodeItems(dec *json.Decoder, reads kubeShape, visit func(*unstructured.Unstructured)) error {
	tok, err := dec.Token()
	if err != nil || tok == nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("items: got %v, want an array", tok)
	}
	var raw json.RawMessage
	for dec.More() {
		raw = raw[:0]
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if reads != nil {
			if obj, ok := kubeDecodeShaped(raw, reads); ok {
				if u := (&unstructured.Unstructured{Object: obj}); u.GroupVersionKind().Kind != "" {
					visit(u)
					continue
				}
			}
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(kubeWithoutManagedFields(raw)); err != nil {
			return fmt.Errorf("decoding an item: %w", err)
		}
		visit(u)
	}
	return kubeExpectDelim(dec, ']')
}

// kubeExpectDelim reads the next token and fails unless it is want.
func kubeExpectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("the answer ended early, before %q", want)
		}
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("got %v, want %q", tok, want)
	}
	return nil
}

// kubeWithoutManagedFields returns item, a JSON object the decoder has checked, without the
// managedFields of its metadata, in place. Nothing karpnet reads is in them (nodes drop them
// too), and in a NodeClaim they are nearly half the bytes and most of the maps a decode
// builds. A key spelled with escapes is left as it is (it then decodes, unread).
func kubeWithoutManagedFields(item []byte) []byte {
	if i := kubeJSONSpace(item, 0); i >= len(item) || item[i] != '{' {
		return item // not an object: the decode refuses it as it is
	}
	meta, ok := kubeJSONMember(item, 0, `"metadata"`)
	if !ok || meta.value >= len(item) || item[meta.value] != '{' {
		return item
	}
	fields, ok := kubeJSONMember(item, meta.value, `"managedFields"`)
	if !ok {
		return item
	}
	// Drop the member and the comma after it, or, for the last member, the comma before it.
	from, to := fields.key, fields.end
	if i := kubeJSONSpace(item, to); i < len(item) && item[i] == ',' {
		to = i + 1
	} else if fields.comma >= 0 {
		from = fields.comma
	}
	return append(item[:from], item[to:]...)
}

// kubeMember is where one member of a JSON object stands: its key, its value and the end of
// the value, and the comma before the key (-1 for the first member).
type kubeMember struct{ key, value, end, comma int }

// kubeJSONMember finds the member named key (with its quotes, as written) of the object that
// starts at item[at]. Only its own members are looked at, not those of the objects it holds;
// the last of several with that key is returned, as a decode keeps the last.
func kubeJSONMember(item []byte, at int, key string) (kubeMember, bool) {
	var found kubeMember
	ok := false
	i := kubeJSONSpace(item, at) + 1 // past '{'
	comma := -1
	for {
		i = kubeJSONSpace(item, i)
		if i >= len(item) || item[i] != '"' {
			return found, ok // '}' (or not an object)
		}
		keyAt := i
		i = kubeJSONSkip(item, i)
		name := item[keyAt:i]
		i = kubeJSONSpace(item, i) + 1 // past ':'
		valueAt := kubeJSONSpace(item, i)
		i = kubeJSONSkip(item, valueAt)
		if string(name) == key {
			found, ok = kubeMember{key: keyAt, value: valueAt, end: i, comma: comma}, true
		}
		i = kubeJSONSpace(item, i)
		if i >= len(item) || item[i] != ',' {
			return found, ok
		}
		comma = i
		i++
	}
}

// kubeJSONSpace returns the index of the first byte at or after i that is not JSON whitespace.
func kubeJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// kubeJSONSkip returns the index just past the JSON value that starts at b[i] (valid JSON).
func kubeJSONSkip(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			i++
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			i++
		case ',', ':', ' ', '\t', '\n', '\r':
			i++
		default:
			// A number, true, false or null.
			for i < len(b) && strings.IndexByte(",:}] \t\n\r", b[i]) < 0 {
				i++
			}
		}
		if depth == 0 {
			return i
		}
	}
	return i
}
