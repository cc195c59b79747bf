package printer

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// emptyLists returns v with every nil slice or map that JSON would write as null (a field
// without omitempty or omitzero) made empty, at any depth, so JSON and YAML consumers can
// always iterate a list the schema has. It never changes v: structs, slices and pointers on
// the way to a nil list are copied, and values that need no change are returned as they are.
// Values that encode themselves (time.Time, Kubernetes quantities) are left alone.
func emptyLists(v any) any {
	if v == nil {
		return nil
	}
	rv := reflect.ValueOf(v)
	if out, changed := fillLists(rv); changed {
		return out.Interface()
	}
	return v
}

var (
	// listTypes caches mayHoldLists by reflect.Type.
	listTypes sync.Map

	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// selfEncoding reports whether values of t encode themselves to JSON.
func selfEncoding(t reflect.Type) bool {
	return t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) ||
		t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)
}

// mayHoldLists reports whether a value of t can hold a nil slice or map below it that
// fillLists would fill, cached per type.
func mayHoldLists(t reflect.Type) bool {
	if v, ok := listTypes.Load(t); ok {
		return v.(bool)
	}
	listTypes.Store(t, false) // a recursive type is answered by its other fields
	r := holdsLists(t)
	listTypes.Store(t, r)
	return r
}

func holdsLists(t reflect.Type) bool {
	if selfEncoding(t) {
		return false
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return mayHoldLists(t.Elem())
	case reflect.Map:
		return mayHoldLists(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			opts, ok := jsonField(f)
			if !ok {
				continue
			}
			k := f.Type.Kind()
			if (k == reflect.Slice || k == reflect.Map) && !omitted(opts) && !selfEncoding(f.Type) {
				return true
			}
			if mayHoldLists(f.Type) {
				return true
			}
		}
	}
	return false
}

// omitted reports whether a field with these json tag options leaves a nil value out.
func omitted(opts string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == "omitempty" || o == "omitzero" {
			return true
		}
	}
	return false
}

// fillLists returns v with its nil lists filled and whether anything changed; when nothing
// did, it returns v itself.
func fillLists(v reflect.Value) (reflect.Value, bool) {
	t := v.Type()
	if !mayHoldLists(t) {
		return v, false
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		e, changed := fillLists(v.Elem())
		if !changed {
			return v, false
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(e)
		return p, true
	case reflect.Slice, reflect.Array:
		var out reflect.Value
		for i := range v.Len() {
			e, changed := fillLists(v.Index(i))
			if !changed {
				continue
			}
			if !out.IsValid() {
				if t.Kind() == reflect.Slice {
					out = reflect.MakeSlice(t, v.Len(), v.Len())
				} else {
					out = reflect.New(t).Elem()
				}
				reflect.Copy(out, v)
			}
			out.Index(i).Set(e)
		}
		if out.IsValid() {
			return out, true
		}
		return v, false
	case reflect.Map:
		var out reflect.Value
		iter := v.MapRange()
		for iter.Next() {
			e, changed := fillLists(iter.Value())
			if !changed {
				continue
			}
			if !out.IsValid() {
				out = reflect.MakeMapWithSize(t, v.Len())
				for k, val := range v.Seq2() {
					out.SetMapIndex(k, val)
				}
			}
			out.SetMapIndex(iter.Key(), e)
		}
		if out.IsValid() {
			return out, true
		}
		return v, false
	case reflect.Struct:
		var out reflect.Value
		for i := range t.NumField() {
			f := t.Field(i)
			opts, ok := jsonField(f)
			if !ok {
				continue
			}
			fv := v.Field(i)
			var nv reflect.Value
			changed := false
			k := f.Type.Kind()
			switch {
			case (k == reflect.Slice || k == reflect.Map) && fv.IsNil() && !omitted(opts) && !selfEncoding(f.Type):
				if k == reflect.Slice {
					nv = reflect.MakeSlice(f.Type, 0, 0)
				} else {
					nv = reflect.MakeMap(f.Type)
				}
				changed = true
			default:
				nv, changed = fillLists(fv)
			}
			if !changed {
				continue
			}
			if !out.IsValid() {
				out = reflect.New(t).Elem()
				out.Set(v)
			}
			out.Field(i).Set(nv)
		}
		if out.IsValid() {
			return out, true
		}
	}
	return v, false
}

// jsonField returns the options of a struct field's json tag, and false for a field
// encoding/json leaves out: unexported, or tagged "-".
func jsonField(f reflect.StructField) (opts string, ok bool) {
	if !f.IsExported() {
		return "", false
	}
	name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	return opts, name != "-" || opts != ""
}
