package hostiletext

import (
	"reflect"
	"regexp"
	"unicode/utf8"
)

// Text is what a forged Event message or resource name may carry: an OSC window title, a line
// clear and cursor up, a carriage return, DEL, an 8-bit CSI (raw and as UTF-8 C1) and a
// right-to-left override.
const Text = "\x1b]0;pwned\x07\x1b[2K\x1b[1A\rforged\x7f\x9b31m\u009b2J\u202eevil"

// Escaped is Text as text output shows it.
const Escaped = `\x1b]0;pwned\x07\x1b[2K\x1b[1A\x0dforged\x7f\x9b31m\u009b2J\u202eevil`

// Poison returns a copy of v with Text appended to every string of its exported fields,
// slices and pointers; v itself is not modified.
func Poison[T any](v T) T {
	poison(reflect.ValueOf(&v).Elem())
	return v
}

func poison(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(v.String() + Text)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				poison(v.Field(i))
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			c := reflect.New(v.Type().Elem())
			c.Elem().Set(v.Elem())
			poison(c.Elem())
			v.Set(c)
		}
	case reflect.Slice:
		if !v.IsNil() {
			c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(c, v)
			for i := range c.Len() {
				poison(c.Index(i))
			}
			v.Set(c)
		}
	}
}

// sgr matches the styling escapes karpnet writes itself: SGR sequences only.
var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// RawControls returns, with some context each, what in out a terminal would interpret besides
// a newline and, when colour is on, SGR styling: C0 controls, DEL, C1 controls, bidirectional
// overrides and bytes that are not UTF-8. None means out is safe to print.
func RawControls(out string, colour bool) []string {
	if colour {
		out = sgr.ReplaceAllString(out, "")
	}
	var bad []string
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRuneInString(out[i:])
		switch {
		case r == utf8.RuneError && size == 1,
			r < 0x20 && r != '\n', r == 0x7f, r >= 0x80 && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			bad = append(bad, out[max(i-20, 0):min(i+20, len(out))])
		}
		i += size
	}
	return bad
}
