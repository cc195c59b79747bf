package kubestream

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// DecodeListStream reads a JSON list object from r, passing each of its items to visit
// (as items says: decodeItem), and returns metadata.continue. A value longer than
// items.MaxItem ends it with a *ValueTooLongError.
// The answer is read one value at a time (jsonStream), each checked as encoding/json
// checks it: an answer that is not JSON fails as it would with json.Decoder.
func DecodeListStream(r io.Reader, items Items, visit func(*unstructured.Unstructured)) (string, error) {
	s := newJSONStream(r)
	s.max = items.MaxItem
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
			if err := decodeItems(s, items, visit); err != nil {
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

// decodeItems reads a JSON array of objects (or null), passing each to visit
// (decodeItem); the items share their member names' strings.
func decodeItems(s *jsonStream, items Items, visit func(*unstructured.Unstructured)) error {
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
	names := newNames()
	for {
		raw, err := s.value()
		if err != nil {
			return err
		}
		if err := decodeItem(raw, items, names, visit); err != nil {
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

// Items says how the items of a custom-resource list are decoded.
type Items struct {
	// Take, when set, reads an item straight from its JSON text into what the collection
	// keeps of it, before any decode (ReadNodeClaim), with the member names and short
	// strings of names; it is false to leave the item to the decode below.
	Take func(raw []byte, names *Names) bool
	// Reads names the parts of an item the visit reads; nil decodes items whole.
	Reads Shape
	// MaxItem, when positive, is the most bytes of one item (or other member of the list):
	// a longer one ends the list with a *ValueTooLongError as soon as it passes the bound,
	// before it is held whole or decoded.
	MaxItem int
}

// decodeItem hands one item, valid JSON, to items.Take, or passes it to visit. With
// items.Reads set, an object is decoded with only what it names (decodeShapedNames,
// its member names from names), which is what visit reads of it; one that would not decode
// so, or that has no kind, is decoded whole, as the dynamic client decodes it, and fails as it
// does. raw may be changed.
func decodeItem(raw []byte, items Items, names *Names, visit func(*unstructured.Unstructured)) error {
	if items.Take != nil && items.Take(raw, names) {
		return nil
	}
	if items.Reads != nil {
		if obj, ok := decodeShapedNames(raw, items.Reads, names); ok {
			if u := (&unstructured.Unstructured{Object: obj}); u.GroupVersionKind().Kind != "" {
				visit(u)
				return nil
			}
		}
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(withoutManagedFields(raw)); err != nil {
		return fmt.Errorf("decoding an item: %w", err)
	}
	visit(u)
	return nil
}

// withoutManagedFields returns item, a JSON object the decoder has checked, without the
// managedFields of its metadata, in place. Nothing karpnet reads is in them (nodes drop them
// too), and in a NodeClaim they are nearly half the bytes and most of the maps a decode
// builds. A key spelled with escapes is left as it is (it then decodes, unread).
func withoutManagedFields(item []byte) []byte {
	if i := skipSpace(item, 0); i >= len(item) || item[i] != '{' {
		return item // not an object: the decode refuses it as it is
	}
	meta, ok := findMember(item, 0, `"metadata"`)
	if !ok || meta.value >= len(item) || item[meta.value] != '{' {
		return item
	}
	fields, ok := findMember(item, meta.value, `"managedFields"`)
	if !ok {
		return item
	}
	// Drop the member and the comma after it, or, for the last member, the comma before it.
	from, to := fields.key, fields.end
	if i := skipSpace(item, to); i < len(item) && item[i] == ',' {
		to = i + 1
	} else if fields.comma >= 0 {
		from = fields.comma
	}
	return append(item[:from], item[to:]...)
}

// memberAt is where one member of a JSON object stands: its key, its value and the end of
// the value, and the comma before the key (-1 for the first member).
type memberAt struct{ key, value, end, comma int }

// findMember finds the member named key (with its quotes, as written) of the object that
// starts at item[at]. Only its own members are looked at, not those of the objects it holds;
// the last of several with that key is returned, as a decode keeps the last.
func findMember(item []byte, at int, key string) (memberAt, bool) {
	var found memberAt
	ok := false
	i := skipSpace(item, at) + 1 // past '{'
	comma := -1
	for {
		i = skipSpace(item, i)
		if i >= len(item) || item[i] != '"' {
			return found, ok // '}' (or not an object)
		}
		keyAt := i
		i = skipValue(item, i)
		name := item[keyAt:i]
		i = skipSpace(item, i) + 1 // past ':'
		valueAt := skipSpace(item, i)
		i = skipValue(item, valueAt)
		if string(name) == key {
			found, ok = memberAt{key: keyAt, value: valueAt, end: i, comma: comma}, true
		}
		i = skipSpace(item, i)
		if i >= len(item) || item[i] != ',' {
			return found, ok
		}
		comma = i
		i++
	}
}

// skipSpace returns the index of the first byte at or after i that is not JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value that starts at b[i] (valid JSON).
func skipValue(b []byte, i int) int {
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
