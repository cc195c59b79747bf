package ec2xml

import (
	"bytes"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// reader reads an XML document in place. Once bad is set (it gave up), every method
// returns at once and what it returns is not used.
type reader struct {
	b   []byte
	i   int
	bad bool
	// fold holds a name in lower case for lower.
	fold [48]byte
	// open are the names of the elements skip is inside.
	open [][]byte
	// intern holds the values shared and sharedValue return.
	intern *snapshot.Interner
	// skipID, when set, names the instances read past undecoded.
	skipID func(id string) bool
	// ips gathers an interface's private addresses and tags an instance's tags, for
	// finishENI and tagMap (scratch reused from one to the next).
	ips  []listedIP
	tags []tag
}

// lower returns name in ASCII lower case, nil for a name longer than any karpnet reads,
// valid until the next call: it is only compared (string(r.lower(name)) == "item" copies
// nothing).
func (r *reader) lower(name []byte) []byte {
	if len(name) > len(r.fold) {
		return nil
	}
	for i, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		r.fold[i] = c
	}
	return r.fold[:len(name)]
}

// root reads up to the first element's start tag and returns its name; a declaration
// before it must be XML 1.0 in UTF-8.
func (r *reader) root() (name []byte, empty bool) {
	r.space()
	if bytes.HasPrefix(r.b[r.i:], []byte("<?xml")) {
		end := bytes.Index(r.b[r.i:], []byte("?>"))
		if end < 0 || !plainDeclaration(r.b[r.i:r.i+end+2]) {
			r.bad = true
			return nil, false
		}
		r.i += end + 2
		r.space()
	}
	if r.i >= len(r.b) || r.b[r.i] != '<' {
		r.bad = true
		return nil, false
	}
	r.i++
	return r.startTag()
}

// plainDeclaration reports whether decl is an XML declaration for version 1.0, in UTF-8
// or with no encoding.
func plainDeclaration(decl []byte) bool {
	rest, ok := bytes.CutPrefix(decl, []byte(`<?xml version="1.0"`))
	if !ok {
		return false
	}
	if enc, ok := bytes.CutPrefix(rest, []byte(` encoding="`)); ok {
		if len(enc) < 5 || !bytes.EqualFold(enc[:5], []byte("utf-8")) {
			return false
		}
		rest = enc[5:]
		if !bytes.HasPrefix(rest, []byte(`"`)) {
			return false
		}
		rest = rest[1:]
	}
	return string(rest) == "?>"
}

func (r *reader) space() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n':
			r.i++
		default:
			return
		}
	}
}

// children calls visit for each child element of the element just opened (named name,
// empty when it was <name/>), and reads its end tag. visit must read the child through.
func (r *reader) children(name []byte, empty bool, visit func(name []byte, empty bool)) {
	if empty || r.bad {
		return
	}
	for !r.bad {
		child, childEmpty, more := r.next(name)
		if !more {
			return
		}
		visit(child, childEmpty)
	}
}

// items calls visit for each child named item (the members of an EC2 list) and skips the
// others.
func (r *reader) items(name []byte, empty bool, visit func(name []byte, empty bool)) {
	r.children(name, empty, func(name []byte, empty bool) {
		if string(r.lower(name)) == "item" {
			visit(name, empty)
			return
		}
		r.skip(name, empty)
	})
}

// next reads the text up to the next tag inside the element named parent: a start tag is
// read and its name returned; parent's end tag is read and more is false.
func (r *reader) next(parent []byte) (name []byte, empty, more bool) {
	r.text(nil)
	if r.bad || r.i+1 >= len(r.b) {
		r.bad = true
		return nil, false, false
	}
	r.i++ // '<'
	if r.b[r.i] == '/' {
		r.i++
		r.endTag(parent)
		return nil, false, false
	}
	name, empty = r.startTag()
	return name, empty, !r.bad
}

// startTag reads a start tag after its '<': the name, attributes (skipped) and '>' or '/>'.
func (r *reader) startTag() (name []byte, empty bool) {
	name = r.name()
	for !r.bad {
		hadSpace := r.i
		r.space()
		if r.i >= len(r.b) {
			r.bad = true
			break
		}
		switch r.b[r.i] {
		case '>':
			r.i++
			return name, false
		case '/':
			if r.i+1 < len(r.b) && r.b[r.i+1] == '>' {
				r.i += 2
				return name, true
			}
			r.bad = true
		default:
			if hadSpace == r.i {
				r.bad = true
				break
			}
			r.attribute()
		}
	}
	return nil, false
}

// attribute reads name="value" (or 'value'), checking the value's text.
func (r *reader) attribute() {
	if !nameStart(r.b[r.i]) {
		r.bad = true
		return
	}
	for r.i < len(r.b) && (nameByte(r.b[r.i]) || r.b[r.i] == ':') {
		r.i++
	}
	r.space()
	if r.i+1 >= len(r.b) || r.b[r.i] != '=' {
		r.bad = true
		return
	}
	r.i++
	r.space()
	if r.i >= len(r.b) || r.b[r.i] != '"' && r.b[r.i] != '\'' {
		r.bad = true
		return
	}
	quote := r.b[r.i]
	r.i++
	end := bytes.IndexByte(r.b[r.i:], quote)
	if end < 0 {
		r.bad = true
		return
	}
	value := r.b[r.i : r.i+end]
	if bytes.IndexByte(value, '<') >= 0 || bytes.IndexByte(value, '&') >= 0 || !plainText(value) {
		r.bad = true
		return
	}
	r.i += end + 1
}

// endTag reads an end tag after its "</", which must close want.
func (r *reader) endTag(want []byte) {
	name := r.name()
	r.space()
	if r.bad || r.i >= len(r.b) || r.b[r.i] != '>' || !bytes.Equal(name, want) {
		r.bad = true
		return
	}
	r.i++
}

// name reads an element name: ASCII letters, digits, '_', '-' and '.', not starting with a
// digit, '-' or '.'.
func (r *reader) name() []byte {
	start := r.i
	for r.i < len(r.b) && nameByte(r.b[r.i]) {
		r.i++
	}
	if r.i == start || !nameStart(r.b[start]) {
		r.bad = true
		return nil
	}
	return r.b[start:r.i]
}

func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

func nameStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}
