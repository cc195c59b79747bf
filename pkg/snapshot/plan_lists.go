package snapshot

import (
	"encoding/json"
	"reflect"
	"unsafe"
)

// The decoders of arrays and objects: slices and maps made their length.

// opened reads the start of an array (open '[') or an object ('{') into the slice or map at p:
// more is true when its members follow; a null sets the slice or map to nil and is all of
// the value (ok tells whether it was read), as is anything else (not ok).
func opened(s *scanner, p unsafe.Pointer, open byte) (more, ok bool) {
	switch s.next() {
	case 'n':
		if open == '[' {
			*(*[]byte)(p) = nil // a slice header, whatever its element
		} else {
			*(*unsafe.Pointer)(p) = nil // a map is one pointer
		}
		return false, null(s)
	case open:
		return true, true
	}
	return false, false
}

// slice counts the array's elements first and makes the slice just that long.
func (c *compiler) slice(t reflect.Type) decoder {
	if t == stringsType {
		return decodeStrings
	}
	elem := c.compile(t.Elem())
	size := t.Elem().Size()
	return func(s *scanner, p unsafe.Pointer) bool {
		if more, ok := opened(s, p, '['); !more {
			return ok
		}
		n, ok := s.count()
		if !ok {
			return false
		}
		v := reflect.MakeSlice(t, n, n)
		base := v.UnsafePointer()
		reflect.NewAt(t, p).Elem().Set(v)
		_, ok = s.items(func(i int) bool {
			if i >= n {
				return false
			}
			return elem(s, unsafe.Add(base, uintptr(i)*size))
		})
		return ok
	}
}

// mapOf decodes objects into maps of string keys, into the map there is (as json.Unmarshal
// does), made with room for every member when nil.
func (c *compiler) mapOf(t reflect.Type) decoder {
	kt := t.Key()
	if kt.Kind() != reflect.String || reflect.PointerTo(kt).Implements(textUnmarshalerType) {
		return c.fail()
	}
	if t == stringMapType {
		return decodeStringMap
	}
	elem := c.compile(t.Elem())
	et := t.Elem()
	return func(s *scanner, p unsafe.Pointer) bool {
		if more, ok := opened(s, p, '{'); !more {
			return ok
		}
		m := reflect.NewAt(t, p).Elem()
		if m.IsNil() {
			n, ok := s.count()
			if !ok {
				return false
			}
			m.Set(reflect.MakeMapWithSize(t, n))
		}
		return s.members(func(key []byte) bool {
			v := reflect.New(et)
			if !elem(s, v.UnsafePointer()) {
				return false
			}
			m.SetMapIndex(reflect.ValueOf(string(key)).Convert(kt), v.Elem())
			return true
		})
	}
}

// decodeStrings decodes an array of strings into a slice just its length, read once, the
// strings in one allocation: an interface's 15 or 50 addresses are one string each (16 bytes
// for an address of 9 to 15) when made apart.
func decodeStrings(s *scanner, p unsafe.Pointer) bool {
	if more, ok := opened(s, p, '['); !more {
		return ok
	}
	type item struct {
		raw []byte // the string's text when it needs no unquoting
		val string // else its value
	}
	var buf [32]item
	items := buf[:0]
	size := 0
	_, ok := s.items(func(int) bool {
		switch s.next() {
		case 'n':
			items = append(items, item{}) // null leaves the element empty
			return null(s)
		case '"':
		default:
			return false
		}
		start := s.i
		raw, escaped, ok := s.rawString()
		if !ok {
			return false
		}
		if escaped {
			var v string
			if json.Unmarshal(s.b[start:s.i], &v) != nil {
				return false
			}
			items = append(items, item{val: v})
			return true
		}
		items = append(items, item{raw: raw})
		size += len(raw)
		return true
	})
	if !ok {
		return false
	}
	text := make([]byte, 0, size)
	for _, it := range items {
		text = append(text, it.raw...)
	}
	all := unsafe.String(unsafe.SliceData(text), len(text))
	out := make([]string, len(items))
	off := 0
	for i, it := range items {
		if it.raw == nil {
			out[i] = it.val
			continue
		}
		out[i] = all[off : off+len(it.raw)]
		off += len(it.raw)
	}
	*(*[]string)(p) = out
	return true
}

// decodeStringMap decodes an object of strings into a map made for just its members, read
// once: into a buffer of a few members first, then into the map.
func decodeStringMap(s *scanner, p unsafe.Pointer) bool {
	if more, ok := opened(s, p, '{'); !more {
		return ok
	}
	type member struct {
		key []byte
		val string
	}
	var buf [32]member
	members := buf[:0]
	ok := s.members(func(key []byte) bool {
		var v string
		if !decodeString(s, unsafe.Pointer(&v)) {
			return false
		}
		members = append(members, member{key, v})
		return true
	})
	if !ok {
		return false
	}
	m := *(*map[string]string)(p)
	if m == nil {
		m = make(map[string]string, len(members))
		*(*map[string]string)(p) = m
	}
	for _, kv := range members {
		m[string(kv.key)] = kv.val
	}
	return true
}

// planField is a struct field a key names: its offset from the struct's start (through embedded
// structs) and its decoder.
type planField struct {
	index  int
	offset uintptr
	dec    decoder
}
