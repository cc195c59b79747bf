package style

import (
	"reflect"
	"sync"
)

// PrintableCopy returns v with every string in it made Printable: the strings of its exported
// struct fields, slices, arrays, maps (keys too), pointers and interfaces, however deep. v is
// never modified; what holds no string that changes is shared with v, not copied. Printers and
// views call it once on the data they render, so every string read from a cluster or EC2 is
// escaped and bounded before anything measures or lays it out.
func PrintableCopy[T any](v T) T {
	out, changed := printableValue(reflect.ValueOf(&v).Elem())
	if !changed {
		return v
	}
	return out.Interface().(T)
}

// printableValue returns v with its strings made Printable, and whether any changed.
func printableValue(v reflect.Value) (reflect.Value, bool) {
	switch v.Kind() {
	case reflect.String:
		s := Printable(v.String())
		if s == v.String() {
			return v, false
		}
		out := reflect.New(v.Type()).Elem()
		out.SetString(s)
		return out, true
	case reflect.Struct:
		return printableStruct(v)
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		e, changed := printableValue(v.Elem())
		if !changed {
			return v, false
		}
		if v.Kind() == reflect.Interface {
			out := reflect.New(v.Type()).Elem()
			out.Set(e)
			return out, true
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(e)
		return p, true
	case reflect.Slice, reflect.Array:
		return printableList(v)
	case reflect.Map:
		return printableMap(v)
	}
	return v, false
}

// stringFields caches, by struct type, the indexes of its exported fields that can hold a
// string: the only ones printableStruct visits.
var stringFields sync.Map // reflect.Type -> []int

// fieldsToVisit returns the exported fields of struct type t that can hold a string.
func fieldsToVisit(t reflect.Type) []int {
	if f, ok := stringFields.Load(t); ok {
		return f.([]int)
	}
	var out []int
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && holdsString(f.Type, map[reflect.Type]bool{t: true}) {
			out = append(out, i)
		}
	}
	stringFields.Store(t, out)
	return out
}

// holdsString reports whether a value of type t can hold a string PrintableCopy would change;
// seen are the struct types being looked at, taken to hold one (a recursive type).
func holdsString(t reflect.Type, seen map[reflect.Type]bool) bool {
	switch t.Kind() {
	case reflect.String, reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsString(t.Elem(), seen)
	case reflect.Map:
		return holdsString(t.Key(), seen) || holdsString(t.Elem(), seen)
	case reflect.Struct:
		if seen[t] {
			return true
		}
		seen[t] = true
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && holdsString(f.Type, seen) {
				return true
			}
		}
	}
	return false
}

// printableStruct copies struct v once one of its exported fields changes.
func printableStruct(v reflect.Value) (reflect.Value, bool) {
	var out reflect.Value
	for _, i := range fieldsToVisit(v.Type()) {
		f, changed := printableValue(v.Field(i))
		if !changed {
			continue
		}
		if !out.IsValid() {
			out = reflect.New(v.Type()).Elem()
			out.Set(v)
		}
		out.Field(i).Set(f)
	}
	if !out.IsValid() {
		return v, false
	}
	return out, true
}

// printableList copies slice or array v once one of its elements changes.
func printableList(v reflect.Value) (reflect.Value, bool) {
	if v.Kind() == reflect.Slice && v.IsNil() {
		return v, false
	}
	var out reflect.Value
	for i := range v.Len() {
		e, changed := printableValue(v.Index(i))
		if !changed {
			continue
		}
		if !out.IsValid() {
			if v.Kind() == reflect.Slice {
				out = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
				reflect.Copy(out, v)
			} else {
				out = reflect.New(v.Type()).Elem()
				out.Set(v)
			}
		}
		out.Index(i).Set(e)
	}
	if !out.IsValid() {
		return v, false
	}
	return out, true
}

// printableMap copies map v once one of its keys or values changes.
func printableMap(v reflect.Value) (reflect.Value, bool) {
	if v.IsNil() {
		return v, false
	}
	type entry struct{ k, v reflect.Value }
	entries := make([]entry, 0, v.Len())
	changed := false
	for it := v.MapRange(); it.Next(); {
		k, kc := printableValue(it.Key())
		e, ec := printableValue(it.Value())
		changed = changed || kc || ec
		entries = append(entries, entry{k, e})
	}
	if !changed {
		return v, false
	}
	out := reflect.MakeMapWithSize(v.Type(), len(entries))
	for _, e := range entries {
		out.SetMapIndex(e.k, e.v)
	}
	return out, true
}
