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
func (c *Collector) kubeStreamList(ctx context.Context, gvr schema.GroupVersionResource, opts metav1.ListOptions, items kubeItems, visit func(*unstructured.Unstructured)) (string, error) {
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
	next, err := kubeDecodeListStream(body, items, visit)
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
// (as items says: kubeDecodeItem), and returns metadata.continue.
// The answer is read one value at a time (kubeJSONStream), each checked as encoding/json
// checks it: an answer that is not JSON fails as it would with json.Decoder.
func kubeDecodeListStream(r io.Reader, items kubeItems, visit func(*unstructured.Unstructured)) (string, error) {
	s := newKubeJSONStream(r)
	if err := s.expect('{'); err != nil {
		return "", err
	}
	var meta metav1.ListMeta
	if c, ok := s.space(); ok && c == '}' {
		return "", nil
	}
	for {
		raw, err := s.value()
		if err != nil {
			return "", err
		}
		var key string
		if raw[0] != '"' || json.Unmarshal(raw, &key) != nil {
			return "", s.invalid("an object's key is not a string")
		}
		if err := s.expect(':'); err != nil {
			return "", err
		}
		switch key {
		case "items":
			if err := kubeDecodeItems(s, items, visit); err != nil {
				return "", err
			}
		case "metadata":
			v, err := s.value()
			if err != nil {
				return "", err
			}
			if err := json.Unmarshal(v, &meta); err != nil {
				return "", fmt.Errorf("decoding the list metadata: %w", err)
			}
		default:
			if _, err := s.value(); err != nil {
				return "", err
			}
		}
		c, ok := s.space()
		switch {
		case !ok:
			return "", fmt.Errorf("%w, before %q", s.ended(), '}')
		case c == '}':
			return meta.Continue, nil
		case c != ',':
			return "", s.invalid(fmt.Sprintf("got %q after a member, want ',' or '}'", c))
		}
		s.pos++
	}
}

// kubeDecodeItems reads a JSON array of objects (or null), passing each to visit
// (kubeDecodeItem); the items share their member names' strings.
func kubeDecodeItems(s *kubeJSONStream, items kubeItems, visit func(*unstructured.Unstructured)) error {
	c, ok := s.space()
	switch {
	case !ok:
		return fmt.Errorf("%w, before the items", s.ended())
	case c == 'n':
		v, err := s.value()
		if err == nil && string(v) != "null" {
			err = s.invalid("items: want an array")
		}
		return err
	case c != '[':
		v, err := s.value()
		if err == nil {
			err = fmt.Errorf("items: got %.20s, want an array", v)
		}
		return err
	}
	s.pos++
	if c, ok := s.space(); ok && c == ']' {
		s.pos++
		return nil
	}
	names := newKubeNames()
	for {
		raw, err := s.value()
		if err != nil {
			return err
		}
		if err := kubeDecodeItem(raw, items, names, visit); err != nil {
			return err
		}
		c, ok := s.space()
		switch {
		case !ok:
			return fmt.Errorf("%w, before %q", s.ended(), ']')
		case c == ']':
			s.pos++
			return nil
		case c != ',':
			return s.invalid(fmt.Sprintf("got %q after an item, want ',' or ']'", c))
		}
		s.pos++
	}
}

// kubeItems says how the items of a custom-resource list are decoded.
type kubeItems struct {
	// take, when set, reads an item straight from its JSON text into what the collection
	// keeps of it, before any decode; it is false to leave the item to the decode below.
	take func(raw []byte, names *kubeNames) bool
	// reads names the parts of an item the visit reads; nil decodes items whole.
	reads kubeShape
}

// kubeDecodeItem hands one item, valid JSON, to items.take, or passes it to visit. With
// items.reads set, an object is decoded with only what reads names (kubeDecodeShapedNames,
// its member names from names), which is what visit reads of it; one that would not decode
// so, or that has no kind, is decoded whole, as the dynamic client decodes it, and fails as it
// does. raw may be changed.
func kubeDecodeItem(raw []byte, items kubeItems, names *kubeNames, visit func(*unstructured.Unstructured)) error {
	if items.take != nil && items.take(raw, names) {
		return nil
	}
	if items.reads != nil {
		if obj, ok := kubeDecodeShapedNames(raw, items.reads, names); ok {
			if u := (&unstructured.Unstructured{Object: obj}); u.GroupVersionKind().Kind != "" {
				visit(u)
				return nil
			}
		}
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(kubeWithoutManagedFields(raw)); err != nil {
		return fmt.Errorf("decoding an item: %w", err)
	}
	visit(u)
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
