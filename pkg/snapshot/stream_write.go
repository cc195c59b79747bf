package snapshot

import (
	"bufio"
	"encoding/json"
	"io"
	"reflect"
	"strings"
)

// encodeSnapshot writes s as json.Encoder with a one-space indent writes it, but element by
// element for its lists of structs and for every cluster's, each element marshalled on its own.
func encodeSnapshot(w io.Writer, s *Snapshot) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	e := &streamEncoder{w: bw}
	e.object(reflect.ValueOf(s).Elem(), 0)
	e.write("\n")
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

// streamEncoder writes indented JSON, keeping the first error.
type streamEncoder struct {
	w   *bufio.Writer
	err error
}

func (e *streamEncoder) write(s string) {
	if e.err == nil {
		_, e.err = e.w.WriteString(s)
	}
}

// marshal writes v as json.MarshalIndent does with prefix, the indent of its depth.
func (e *streamEncoder) marshal(v reflect.Value, prefix string) {
	if e.err != nil {
		return
	}
	b, err := json.MarshalIndent(v.Interface(), prefix, " ")
	if err != nil {
		e.err = err
		return
	}
	_, e.err = e.w.Write(b)
}

// object writes struct v at depth.
func (e *streamEncoder) object(v reflect.Value, depth int) {
	inner := "\n" + strings.Repeat(" ", depth+1)
	sep := "{"
	for _, f := range jsonFields(v.Type()) {
		fv := v.Field(f.index)
		if f.omitEmpty && emptyValue(fv) {
			continue
		}
		key, _ := json.Marshal(f.key)
		e.write(sep + inner + string(key) + ": ")
		sep = ","
		if fv.Kind() == reflect.Slice && !fv.IsNil() && fv.Type().Elem().Kind() == reflect.Struct {
			e.list(fv, depth+1)
		} else {
			e.marshal(fv, inner[1:])
		}
	}
	if sep == "{" {
		e.write("{}")
		return
	}
	e.write("\n" + strings.Repeat(" ", depth) + "}")
}

// list writes the elements of slice v at depth one by one.
func (e *streamEncoder) list(v reflect.Value, depth int) {
	if v.Len() == 0 {
		e.write("[]")
		return
	}
	inner := "\n" + strings.Repeat(" ", depth+1)
	snapshots := v.Type().Elem() == reflect.TypeFor[Snapshot]()
	sep := "["
	for i := range v.Len() {
		e.write(sep + inner)
		sep = ","
		if snapshots {
			e.object(v.Index(i), depth+1)
		} else {
			e.marshal(v.Index(i), inner[1:])
		}
	}
	e.write("\n" + strings.Repeat(" ", depth) + "]")
}

// emptyValue reports whether omitempty drops v, as encoding/json decides it.
func emptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}
