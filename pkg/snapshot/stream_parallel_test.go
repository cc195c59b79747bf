package snapshot_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestReadApartIsOneAtATime: Read, which splits the elements of a list and decodes them on
// every CPU, gives for each text what decoding every element with json.Decoder gives: the
// same snapshot, or the same error at the same byte and place. The texts are the shapes the
// split leaves to json.Decoder (an element that is not an object, a missing or extra comma,
// the input ending inside an element, an element a field refuses, more elements than the
// bound) and its own traps (brackets and escaped quotes in strings, non-ASCII text, \u
// escapes), alone and in a cluster of a snapshot of several.
func TestReadApartIsOneAtATime(t *testing.T) {
	var buf bytes.Buffer
	if err := snapshot.Write(&buf, multi()); err != nil {
		t.Fatal(err)
	}
	multiText := buf.String()
	node := func(name string) string { return `{"metadata":{"name":"` + name + `"}}` }
	with := func(list string) string {
		return `{"kind":"Snapshot","apiVersion":"karpnet/v1alpha1","formatVersion":1,"taken":"2026-11-20T09:30:00Z","nodes":` + list + `}`
	}
	two := with(`[` + node("a") + `,` + node("b") + `]`)
	many := strings.Repeat(node("n")+",", 700) + node("n")
	cases := map[string]string{
		"empty list":             with(`[]`),
		"empty list spaced":      with("[ \n\t]"),
		"null list":              with(`null`),
		"one":                    with(`[` + node("a") + `]`),
		"many":                   with(`[` + many + `]`),
		"bad in a first batch":   with(`[` + strings.Replace(many, node("n"), node("n")+`,{"metadata":{"name":7}}`, 100) + `]`),
		"bad in a second batch":  with(`[` + many + `,{"metadata":{"name":7}},` + many + `]`),
		"null in a second batch": with(`[` + many + `,null,` + many + `]`),
		"truncated in a batch":   with(`[` + many + `,` + many)[:len(many)*3/2],
		"null element":           with(`[` + node("a") + `,null,` + node("b") + `]`),
		"null first":             with(`[null,` + node("b") + `]`),
		"number element":         with(`[` + node("a") + `,7]`),
		"string element":         with(`[` + node("a") + `,"x"]`),
		"missing comma":          with(`[` + node("a") + ` ` + node("b") + `]`),
		"trailing comma":         with(`[` + node("a") + `,]`),
		"leading comma":          with(`[,` + node("a") + `]`),
		"leading comma later":    `{"kind":"Snapshot","subnets":[{"id":"a"},{"id":"b"}],"nodes":[ ,` + node("a") + `]}`,
		"colon first":            with(`[:` + node("a") + `]`),
		"double comma":           with(`[` + node("a") + `,,` + node("b") + `]`),
		"unclosed list":          with(`[` + node("a") + `,` + node("b")),
		"truncated element":      two[:len(two)-10],
		"truncated in string":    two[:len(two)-6],
		"bad syntax inside":      with(`[` + node("a") + `,{"metadata":{"name":"b",}}]`),
		"mismatched bracket":     with(`[` + node("a") + `,{"metadata":{"name":"b"]}]`),
		"wrong type inside":      with(`[` + node("a") + `,{"metadata":{"name":7}}]`),
		"bad time inside":        with(`[` + node("a") + `,{"metadata":{"name":"b","creationTimestamp":"yesterday"}}]`),
		"braces in strings":      with(`[{"metadata":{"name":"a{[","labels":{"k]}":"v\"}{\\"}}},` + node("b") + `]`),
		"non-ASCII":              with(`[{"metadata":{"name":"nœud","labels":{"k":"\xff\xfe"}}}]`),
		"escapes":                with(`[{"metadata":{"name":"\u00e9\ud800x","labels":{"k":"a\nb\/"}}}]`),
		"control character":      with("[{\"metadata\":{\"name\":\"a\x01b\"}}]"),
		"keys in other case":     with(`[{"METADATA":{"Name":"a"}}]`),
		"duplicate keys":         with(`[{"metadata":{"name":"a","name":"b"}}]`),
		"unknown members":        with(`[{"metadata":{"name":"a"},"x":{"y":[1,{"z":null}]}}]`),
		"after the document":     with(`[`+node("a")+`]`) + `{}`,
		"multi":                  multiText,
		"multi truncated":        multiText[:len(multiText)*2/3],
		"multi null in nodes":    strings.Replace(multiText, `"nodes": [`, `"nodes": [null, `, 1),
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			for _, data := range [][]byte{[]byte(text), gzipped(t, []byte(text))} {
				got, err := snapshot.Read(bytes.NewReader(data))
				want, wantErr := snapshot.ReadSequential(data, snapshot.DefaultMaxBytes)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Fatalf("Read gives error %v, one element at a time %v", err, wantErr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("Read gives another snapshot than one element at a time")
				}
			}
		})
	}
}

// TestReadSaysALeadingCommaWhereUnmarshalDoes: a list that starts with a comma is said at the
// byte json.Unmarshal says, whatever was decoded before it.
func TestReadSaysALeadingCommaWhereUnmarshalDoes(t *testing.T) {
	for _, text := range []string{
		`{"kind":"Snapshot","nodes":[,{}]}`,
		`{"kind":"Snapshot","subnets":[{"id":"a"},{"id":"b"}],"nodes":[ ,{}]}`,
		`{"kind":"Snapshot","subnets":[{"id":"a"}],"nodes":[:{}]}`,
	} {
		var v any
		var syn *json.SyntaxError
		if err := json.Unmarshal([]byte(text), &v); !errorsAs(err, &syn) {
			t.Fatalf("%s: json.Unmarshal gives %v", text, err)
		}
		want := fmt.Sprintf("not valid JSON at byte %d: %v", syn.Offset, syn)
		for _, read := range []func() error{
			func() error { _, err := snapshot.Read(strings.NewReader(text)); return err },
			func() error { _, err := snapshot.ReadSequential([]byte(text), snapshot.DefaultMaxBytes); return err },
		} {
			if err := read(); fmt.Sprint(err) != want {
				t.Errorf("%s: Read gives %v, want %s", text, err, want)
			}
		}
	}
}

// TestReadApartStopsAtTheBound: a list with more elements than the size bound allows is
// refused as one decoded element at a time refuses it.
func TestReadApartStopsAtTheBound(t *testing.T) {
	list := strings.Repeat(`{"metadata":{"name":"n"}},`, 10_000) + `{"metadata":{"name":"n"}}`
	data := []byte(`{"kind":"Snapshot","apiVersion":"karpnet/v1alpha1","formatVersion":1,"taken":"2026-11-20T09:30:00Z","nodes":[` + list + `]}`)
	_, err := snapshot.ReadLimited(bytes.NewReader(data), 1<<20)
	if err == nil || !strings.Contains(err.Error(), "nodes holds more than 10,000 elements") {
		t.Fatalf("Read gives %v, want the element bound", err)
	}
	if _, want := snapshot.ReadSequential(data, 1<<20); err.Error() != want.Error() {
		t.Fatalf("Read gives %v, one element at a time %v", err, want)
	}
}
