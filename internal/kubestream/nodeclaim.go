package kubestream

import (
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/karpnet/kubectl-karpnet/internal/kubeobj"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// NodeClaimReads is what kubeobj.DecodeNodeClaim reads of a NodeClaim: the NodeClaims list,
// thousands of objects, is decoded with only these parts (Items.Reads), when ReadNodeClaim
// leaves an item to the decode. Both change together; TestNodeClaimReadsIsWhatTheDecodeReads
// holds them to each other. It is a table, never changed.
var NodeClaimReads = Shape{
	"apiVersion": nil, "kind": nil,
	"metadata": {"name": nil, "labels": nil, "creationTimestamp": nil, "deletionTimestamp": nil},
	"spec":     {"nodeClassRef": nil, "resources": {"requests": nil}},
	"status":   {"providerID": nil, "nodeName": nil, "capacity": nil, "conditions": nil},
}

// ReadNodeClaim reads one NodeClaim of a list straight from its JSON text (valid JSON, as
// DecodeListStream hands it on) into what kubeobj.DecodeNodeClaim makes of the object the
// decode by parts (NodeClaimReads) gives of it, without building that object: the ~15 maps of a NodeClaim's
// unstructured form, which were most of its decode's garbage, are never made. Member names
// and short strings come from names (nil for none).
//
// It is not ok when it is not sure to read the item the same way, and the caller then decodes
// the item as before: an object member it reads whose name has an escape or non-ASCII, or
// that is repeated (the unstructured decoder keeps the last, objects whole); a kind that is
// not a non-empty string, or an apiVersion that does not parse (the list reader decodes those
// whole, and fails); a number the unstructured decoder refuses. FuzzReadNodeClaim holds it to
// the decode it replaces.
func ReadNodeClaim(raw []byte, names *Names) (snapshot.NodeClaim, bool) {
	var c snapshot.NodeClaim
	r := jsonReader{b: raw, ok: true, names: names}
	r.space()
	if r.i >= len(r.b) || r.b[r.i] != '{' {
		return c, false
	}
	var kind string
	var seen seenMembers
	r.i++
	for name, more := r.member(); more && r.ok; name, more = r.member() {
		switch string(name) {
		case "apiVersion":
			r.once(&seen, 0)
			c.APIVersion, _ = r.text()
		case "kind":
			r.once(&seen, 1)
			kind, _ = r.text()
		case "metadata":
			r.once(&seen, 2)
			r.claimMetadata(&c)
		case "spec":
			r.once(&seen, 3)
			r.claimSpec(&c)
		case "status":
			r.once(&seen, 4)
			r.claimStatus(&c)
		default:
			r.skip()
		}
	}
	if !r.ok || kind == "" {
		return snapshot.NodeClaim{}, false
	}
	if _, err := schema.ParseGroupVersion(c.APIVersion); err != nil {
		return snapshot.NodeClaim{}, false
	}
	return c, true
}

// seenMembers marks which of an object's members (by the reader's own numbering) were read.
type seenMembers uint16

// once marks member i as read in seen, and turns ok false when it was read before: the
// unstructured decoder keeps the last of repeated members, whole.
func (r *jsonReader) once(seen *seenMembers, i uint) {
	if *seen&(1<<i) != 0 {
		r.ok = false
	}
	*seen |= 1 << i
}

// member moves to the next member of the object the reader is in (just past its '{' or a
// member's value) and returns its name as written, without the quotes, with the reader at its
// value; false at the object's end, which it moves past. A name that is not plain (an escape,
// non-ASCII) turns ok false: the object is then not read at all.
func (r *jsonReader) member() ([]byte, bool) {
	key, plain, more := r.key()
	if more && !plain {
		r.ok = false
	}
	return key, more
}

// key is member for an object whose member names are data (labels, resource lists): a name
// that is not plain is returned quoted, with plain false, for unquote.
func (r *jsonReader) key() (key []byte, plain, more bool) {
	r.space()
	if r.i < len(r.b) && r.b[r.i] == ',' {
		r.i++
		r.space()
	}
	if r.i >= len(r.b) || r.b[r.i] != '"' {
		r.i++ // '}'
		return nil, false, false
	}
	key = r.stringBytes()
	r.space()
	r.i++ // ':'
	r.space()
	if plainString(key) {
		return key[1 : len(key)-1], true, true
	}
	return key, false, true
}

// keyName is the string a key returned by key stands for.
func (r *jsonReader) keyName(key []byte, plain bool) string {
	if plain {
		return r.names.name(key)
	}
	return r.unquote(key)
}

// text reads the value at the reader: its string when it is one, else it moves past it and
// returns "" and false, as kubeobj gives "" for a string of another type.
func (r *jsonReader) text() (string, bool) {
	if r.i >= len(r.b) || r.b[r.i] != '"' {
		r.skip()
		return "", false
	}
	b := r.stringBytes()
	if plainString(b) {
		return r.names.name(b[1 : len(b)-1]), true
	}
	return r.unquote(b), true
}

// timestamp reads the value at the reader as metadata's timestamps are read (RFC 3339, in
// UTC), the zero time for anything else.
func (r *jsonReader) timestamp() time.Time {
	s, _ := r.text()
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return kubeobj.UTC(t)
}

// enter reports whether the value at the reader is an object and, when it is, moves into it;
// else it moves past the value.
func (r *jsonReader) enter() bool {
	if r.i >= len(r.b) || r.b[r.i] != '{' {
		r.skip()
		return false
	}
	r.i++
	return true
}

// stringMap reads the object at the reader as kubeobj reads a string map: its string values
// (the last of a repeated name, which drops the name when it is not a string); nil for none,
// or when the value is not an object.
func (r *jsonReader) stringMap() map[string]string {
	if !r.enter() {
		return nil
	}
	var out map[string]string
	for key, plain, more := r.key(); more && r.ok; key, plain, more = r.key() {
		name := r.keyName(key, plain)
		if v, ok := r.text(); ok {
			if out == nil {
				out = map[string]string{}
			}
			out[name] = v
		} else {
			delete(out, name)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// quantities reads the object at the reader as kubeobj reads a map of quantities: strings as
// they are, numbers written as the unstructured decoder's int64 or float64 are, the rest
// dropped; only the names that start with prefix are kept.
func (r *jsonReader) quantities(prefix string) map[string]string {
	if !r.enter() {
		return nil
	}
	var out map[string]string
	for key, plain, more := r.key(); more && r.ok; key, plain, more = r.key() {
		name := r.keyName(key, plain)
		if !strings.HasPrefix(name, prefix) {
			r.skip()
			continue
		}
		var q string
		switch c := r.b[r.i]; {
		case c == '"':
			q, _ = r.text()
		case c == '-' || c >= '0' && c <= '9':
			switch n, ok := jsonNumber(r.number()); v := n.(type) {
			case int64:
				q = strconv.FormatInt(v, 10)
			case float64:
				q = strconv.FormatFloat(v, 'f', -1, 64)
			default:
				r.ok = ok
			}
		default:
			r.skip()
			delete(out, name)
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[name] = q
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
