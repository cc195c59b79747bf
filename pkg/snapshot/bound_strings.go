package snapshot

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
)

// The string half of Bound: a walk over the snapshot that cuts every string longer than the
// reader takes, and names what it cut.

// cutter cuts, in place, every string of a value whose JSON text is longer than MaxString.
type cutter struct {
	path []step
	cuts []string // the first few cut strings: path (size)
	n    int
}

// step is one level of the path the walk is at: a field or map key, or a list index.
type step struct {
	key   string
	index int // -1 for a key
}

// maxCutsNamed is how many cut strings the note names.
const maxCutsNamed = 5

func (c *cutter) note() string {
	more := ""
	if c.n > len(c.cuts) {
		more = fmt.Sprintf(" and %d more", c.n-len(c.cuts))
	}
	return fmt.Sprintf("%d %s longer than 1 MiB as JSON, which no snapshot holds, %s cut to %d KiB (the cut is marked): %s%s", c.n,
		plural(c.n, "string", "strings"), plural(c.n, "was", "were"), CutString>>10, strings.Join(c.cuts, ", "), more)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// cut returns s cut to CutString, marked, and records where.
func (c *cutter) cut(s string) string {
	c.n++
	if len(c.cuts) < maxCutsNamed {
		size := thousands(int64(len(s))) + " bytes"
		if j := jsonLen(s); j != len(s) {
			size += ", " + thousands(int64(j)) + " as JSON"
		}
		c.cuts = append(c.cuts, fmt.Sprintf("%s (%s)", c.pathText(), size))
	}
	end := prefixWithin(s, CutString)
	return s[:end] + fmt.Sprintf(" [cut by karpnet: %s more bytes]", thousands(int64(len(s)-end)))
}

func (c *cutter) pathText() string {
	var b strings.Builder
	for i, p := range c.path {
		switch {
		case p.index >= 0:
			fmt.Fprintf(&b, "[%d]", p.index)
		case i > 0:
			b.WriteString("." + clip(p.key, 64))
		default:
			b.WriteString(clip(p.key, 64))
		}
	}
	return b.String()
}

// walk cuts the long strings of v, which is settable and of a type that holds strings.
func (c *cutter) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if s := v.String(); tooLong(s) {
			v.SetString(c.cut(s))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			c.walk(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.String {
			for i := range v.Len() {
				if e := v.Index(i); tooLong(e.String()) {
					c.path = append(c.path, step{index: i})
					e.SetString(c.cut(e.String()))
					c.path = c.path[:len(c.path)-1]
				}
			}
			return
		}
		for i := range v.Len() {
			c.path = append(c.path, step{index: i})
			c.walk(v.Index(i))
			c.path = c.path[:len(c.path)-1]
		}
	case reflect.Struct:
		for _, f := range walkFields(v.Type()) {
			c.path = append(c.path, step{key: f.key, index: -1})
			c.walk(v.Field(f.index))
			c.path = c.path[:len(c.path)-1]
		}
	case reflect.Map:
		switch v.Type() {
		case stringMap:
			c.walkStringMap(v.Interface().(map[string]string))
			return
		case resourceList:
			for k := range v.Interface().(corev1.ResourceList) {
				if tooLong(string(k)) {
					c.walkMap(v)
					return
				}
			}
			return
		}
		c.walkMap(v)
	}
}

var (
	stringMap    = reflect.TypeFor[map[string]string]()
	resourceList = reflect.TypeFor[corev1.ResourceList]()
)

// walkStringMap is walkMap for the most common map, labels, annotations and tags, without
// reflection.
func (c *cutter) walkStringMap(m map[string]string) {
	var long []string
	for k, v := range m {
		if tooLong(k) || tooLong(v) {
			long = append(long, k)
		}
	}
	for _, k := range long {
		v := m[k]
		c.path = append(c.path, step{key: k, index: -1})
		nk := k
		if tooLong(k) {
			nk = c.cut(k)
			delete(m, k)
		}
		if tooLong(v) {
			v = c.cut(v)
		}
		m[nk] = v
		c.path = c.path[:len(c.path)-1]
	}
}

// walkMap cuts the long keys and values of map v.
func (c *cutter) walkMap(v reflect.Value) {
	if v.IsNil() {
		return
	}
	kt, vt := v.Type().Key(), v.Type().Elem()
	stringKeys, valueStrings := kt.Kind() == reflect.String, holdsStrings(vt)
	if !stringKeys || (!valueStrings && !anyLongKey(v)) {
		return
	}
	type entry struct{ k, v reflect.Value }
	var changed []entry
	var removed []reflect.Value
	it := v.MapRange()
	for it.Next() {
		k, val := it.Key(), it.Value()
		c.path = append(c.path, step{key: k.String(), index: -1})
		nk, keyCut := k, tooLong(k.String())
		if keyCut {
			nk = reflect.New(kt).Elem()
			nk.SetString(c.cut(k.String()))
		}
		nv, n := val, c.n
		switch {
		case !valueStrings:
		case vt.Kind() == reflect.String:
			if tooLong(val.String()) {
				nv = reflect.New(vt).Elem()
				nv.SetString(c.cut(val.String()))
			}
		default:
			nv = reflect.New(vt).Elem()
			nv.Set(val)
			c.walk(nv)
		}
		c.path = c.path[:len(c.path)-1]
		if keyCut {
			removed = append(removed, k)
		}
		if keyCut || c.n != n {
			changed = append(changed, entry{nk, nv})
		}
	}
	for _, k := range removed {
		v.SetMapIndex(k, reflect.Value{})
	}
	for _, e := range changed {
		v.SetMapIndex(e.k, e.v)
	}
}

// anyLongKey reports whether map v has a key too long for a snapshot.
func anyLongKey(v reflect.Value) bool {
	for _, k := range v.MapKeys() {
		if tooLong(k.String()) {
			return true
		}
	}
	return false
}

// tooLong reports whether s's JSON text is longer than MaxString: at most 6 bytes a byte.
func tooLong(s string) bool {
	return len(s) > MaxString/6 && jsonLen(s) > MaxString
}

// jsonLen is the length of s's JSON text without its quotes, as encoding/json writes it
// (HTML escaping on), or a little more: every control character counts as \u00XX.
func jsonLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		w, size := charLen(s[i:])
		n += w
		i += size
	}
	return n
}

// charLen is the JSON text length of the character s starts with, and its length in s.
func charLen(s string) (int, int) {
	b := s[0]
	if b < utf8.RuneSelf {
		switch {
		case b == '"' || b == '\\' || b == '\n' || b == '\r' || b == '\t':
			return 2, 1
		case b < 0x20 || b == '<' || b == '>' || b == '&':
			return 6, 1
		}
		return 1, 1
	}
	r, size := utf8.DecodeRuneInString(s)
	if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
		return 6, size
	}
	return size, size
}

// prefixWithin is the length of the longest prefix of s, ending at a character's end, whose
// JSON text is at most limit bytes.
func prefixWithin(s string, limit int) int {
	n, i := 0, 0
	for i < len(s) {
		w, size := charLen(s[i:])
		if n+w > limit {
			break
		}
		n += w
		i += size
	}
	return i
}

// walkField is a field the cutter walks: exported, embedded ones too (their fields are the
// outer object's in JSON, so key is the field's type name there).
type walkField struct {
	key   string
	index int
}

var walkFieldsByType, stringsByType sync.Map

// walkFields returns the fields of struct type t the cutter walks: the exported ones that can
// hold a string.
func walkFields(t reflect.Type) []walkField {
	if f, ok := walkFieldsByType.Load(t); ok {
		return f.([]walkField)
	}
	var fs []walkField
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() || !holdsStrings(sf.Type) {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		fs = append(fs, walkField{key: name, index: i})
	}
	walkFieldsByType.Store(t, fs)
	return fs
}

var marshaler = reflect.TypeFor[json.Marshaler]()

// holdsStrings reports whether a value of type t can hold a string the walk can cut: types
// that write their own JSON (times, quantities) and interfaces are not walked.
func holdsStrings(t reflect.Type) bool {
	if h, ok := stringsByType.Load(t); ok {
		return h.(bool)
	}
	stringsByType.Store(t, false) // a recursive type is settled by its other fields
	h := false
	switch {
	case t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler):
	case t.Kind() == reflect.String:
		h = true
	case t.Kind() == reflect.Pointer, t.Kind() == reflect.Slice, t.Kind() == reflect.Array:
		h = t.Elem().Kind() != reflect.Uint8 && holdsStrings(t.Elem())
	case t.Kind() == reflect.Map:
		h = t.Key().Kind() == reflect.String || holdsStrings(t.Elem())
	case t.Kind() == reflect.Struct:
		for i := range t.NumField() {
			if sf := t.Field(i); sf.IsExported() && holdsStrings(sf.Type) {
				h = true
				break
			}
		}
	}
	stringsByType.Store(t, h)
	return h
}
