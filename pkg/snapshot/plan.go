package snapshot

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// A plan decodes the JSON of one Go type straight into memory, as json.Unmarshal would, from a
// table of the type's fields made once: json.Unmarshal looks each field and type up by
// reflection for every value, which was most of reading a snapshot. A plan decodes only what it
// is sure to decode as json.Unmarshal does: UTF-8 keys spelt as the fields' names, each key
// once an object, and values of the kinds the fields hold. Anything else (a key in another
// case, a duplicate key, a number where a string goes, text that is not JSON) makes it fail,
// and the element is decoded again by json.Unmarshal, from zero: what a plan decodes equals
// what json.Unmarshal makes of the same text, and FuzzPlan holds it to that.
type decoder func(s *scanner, p unsafe.Pointer) bool

// plans holds each type's decoder, nil for a type a plan does not decode (one with
// interfaces, arrays, TextUnmarshalers, embedded pointers or ",string" fields).
var plans sync.Map // reflect.Type → decoder

// planFor returns t's decoder, nil when a plan does not decode t.
func planFor(t reflect.Type) decoder {
	if d, ok := plans.Load(t); ok {
		return d.(decoder)
	}
	c := compiler{pending: map[reflect.Type]*decoder{}}
	d := c.compile(t)
	if c.failed {
		d = nil
	}
	plans.Store(t, d)
	return d
}

// decodePlanned decodes text, one JSON value, into p, a pointer to a value of t's zero value,
// and reports whether it did; false leaves *p to be zeroed and decoded by json.Unmarshal.
func decodePlanned(d decoder, text []byte, p unsafe.Pointer) bool {
	s := scanner{b: text}
	if !d(&s, p) {
		return false
	}
	s.space()
	return s.i == len(s.b)
}

type compiler struct {
	pending map[reflect.Type]*decoder // types being compiled, for recursive types
	failed  bool
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	stringMapType       = reflect.TypeFor[map[string]string]()
	stringsType         = reflect.TypeFor[[]string]()
)

func (c *compiler) compile(t reflect.Type) decoder {
	if d, ok := c.pending[t]; ok {
		return func(s *scanner, p unsafe.Pointer) bool { return (*d)(s, p) }
	}
	d := new(decoder)
	c.pending[t] = d
	*d = c.build(t)
	return *d
}

func (c *compiler) fail() decoder {
	c.failed = true
	return nil
}

func (c *compiler) build(t reflect.Type) decoder {
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return unmarshaler(t)
	}
	if t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return c.fail()
	}
	switch t.Kind() {
	case reflect.String:
		return decodeString
	case reflect.Bool:
		return decodeBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return decodeInt(t)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return decodeUint(t)
	case reflect.Float32, reflect.Float64:
		return decodeFloat(t)
	case reflect.Pointer:
		return c.pointer(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return c.fail() // base64
		}
		return c.slice(t)
	case reflect.Map:
		return c.mapOf(t)
	case reflect.Struct:
		return c.structOf(t)
	}
	return c.fail()
}

// unmarshaler hands the value's text to the type's UnmarshalJSON, as json.Unmarshal does
// (null included, for a value that is not a pointer).
func unmarshaler(t reflect.Type) decoder {
	return func(s *scanner, p unsafe.Pointer) bool {
		s.space()
		start := s.i
		if !s.skip() {
			return false
		}
		u := reflect.NewAt(t, p).Interface().(json.Unmarshaler)
		return u.UnmarshalJSON(s.b[start:s.i]) == nil
	}
}

// null reads a null, which leaves a string, number, bool or struct as it was.
func null(s *scanner) bool { return s.literal("null") }

func decodeString(s *scanner, p unsafe.Pointer) bool {
	switch s.next() {
	case '"':
		v, ok := s.str()
		*(*string)(p) = v
		return ok
	case 'n':
		return null(s)
	}
	return false
}

func decodeBool(s *scanner, p unsafe.Pointer) bool {
	switch s.next() {
	case 't':
		*(*bool)(p) = true
		return s.literal("true")
	case 'f':
		*(*bool)(p) = false
		return s.literal("false")
	case 'n':
		return null(s)
	}
	return false
}

// number decodes a JSON number (null leaves it as it was) with parse, which checks its range for
// the field, and store, which writes it at the field's size.
func number[T any](parse func(text string) (T, error), store func(p unsafe.Pointer, n T)) decoder {
	return func(s *scanner, p unsafe.Pointer) bool {
		if s.next() == 'n' {
			return null(s)
		}
		text, ok := s.number()
		if !ok {
			return false
		}
		n, err := parse(text)
		if err != nil {
			return false
		}
		store(p, n)
		return true
	}
}

func decodeInt(t reflect.Type) decoder {
	bits := t.Bits()
	return number(func(text string) (int64, error) { return strconv.ParseInt(text, 10, bits) },
		func(p unsafe.Pointer, n int64) { storeBits(p, uint64(n), bits) })
}

func decodeUint(t reflect.Type) decoder {
	bits := t.Bits()
	return number(func(text string) (uint64, error) { return strconv.ParseUint(text, 10, bits) },
		func(p unsafe.Pointer, n uint64) { storeBits(p, n, bits) })
}

// storeBits writes the low bits of v at p, an integer of that many bits: an int8 of -1 and a
// uint8 of 255 are the same byte.
func storeBits(p unsafe.Pointer, v uint64, bits int) {
	switch bits {
	case 8:
		*(*uint8)(p) = uint8(v)
	case 16:
		*(*uint16)(p) = uint16(v)
	case 32:
		*(*uint32)(p) = uint32(v)
	default:
		*(*uint64)(p) = v
	}
}

func decodeFloat(t reflect.Type) decoder {
	bits := t.Bits()
	return number(func(text string) (float64, error) { return strconv.ParseFloat(text, bits) },
		func(p unsafe.Pointer, n float64) {
			if bits == 32 {
				*(*float32)(p) = float32(n)
			} else {
				*(*float64)(p) = n
			}
		})
}

// pointer sets nil for null, else decodes into what the pointer points to, made when nil.
func (c *compiler) pointer(t reflect.Type) decoder {
	elem := c.compile(t.Elem())
	et := t.Elem()
	return func(s *scanner, p unsafe.Pointer) bool {
		if s.next() == 'n' {
			*(*unsafe.Pointer)(p) = nil
			return null(s)
		}
		q := *(*unsafe.Pointer)(p)
		if q == nil {
			q = reflect.New(et).UnsafePointer()
			*(*unsafe.Pointer)(p) = q
		}
		return elem(s, q)
	}
}

// structOf decodes the members whose keys name a field exactly, once each; a member no field
// takes, in any case, is read and dropped, as json.Unmarshal drops it.
func (c *compiler) structOf(t reflect.Type) decoder {
	named := map[string]*planField{}
	var lower []string
	if !c.fields(t, 0, named, map[reflect.Type]bool{}) {
		return c.fail()
	}
	if len(named) > 64 {
		return c.fail()
	}
	i := 0
	for name, f := range named {
		f.index = i
		i++
		lower = append(lower, strings.ToLower(name))
	}
	return func(s *scanner, p unsafe.Pointer) bool {
		switch s.next() {
		case 'n':
			return null(s)
		case '{':
		default:
			return false
		}
		var seen uint64
		return s.members(func(key []byte) bool {
			f, ok := named[string(key)]
			if !ok {
				k := strings.ToLower(string(key))
				for _, l := range lower {
					if l == k {
						return false // json.Unmarshal would take it for the field
					}
				}
				return s.skip()
			}
			if seen&(1<<f.index) != 0 {
				return false
			}
			seen |= 1 << f.index
			return f.dec(s, unsafe.Add(p, f.offset))
		})
	}
}

// fields adds t's fields to named by their JSON names, those of embedded structs without a
// name too. A name two fields take fails: json.Unmarshal's rules for them are not repeated here.
func (c *compiler) fields(t reflect.Type, base uintptr, named map[string]*planField, inside map[reflect.Type]bool) bool {
	if inside[t] {
		return false
	}
	inside[t] = true
	defer delete(inside, t)
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, hasTag := sf.Tag.Lookup("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",string,") {
			return false
		}
		if sf.Anonymous && name == "" {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				return false
			}
			if ft.Kind() == reflect.Struct {
				if !c.fields(ft, base+sf.Offset, named, inside) {
					return false
				}
				continue
			}
			if !sf.IsExported() {
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		if name == "" || !hasTag {
			name = sf.Name
		}
		if !validTagName(name) {
			for _, r := range name {
				if r >= 0x80 {
					return false // json's rule takes letters of every script
				}
			}
			name = sf.Name
		}
		if _, taken := named[name]; taken {
			return false
		}
		for other := range named {
			if strings.EqualFold(other, name) {
				return false
			}
		}
		named[name] = &planField{offset: base + sf.Offset, dec: c.compile(sf.Type)}
	}
	return true
}

// validTagName is json's rule for a usable name in a tag; names it refuses, the field's own
// name is used.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return true
}
