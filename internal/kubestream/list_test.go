package kubestream

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

func TestDecodeListStreamRejectsNonLists(t *testing.T) {
	for _, body := range []string{``, `[]`, `{"items": {}}`, `{"items": [1]}`, `{"items": [{"kind": "NodeClaim"}`} {
		if _, err := DecodeListStream(strings.NewReader(body), Items{}, func(*unstructured.Unstructured) {}); err == nil {
			t.Errorf("decoding %q: got no error, want one", body)
		}
	}
}

// decodedWithout decodes a JSON object as an unstructured object does, without
// metadata.managedFields.
func decodedWithout(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := utiljson.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	if meta, ok := m["metadata"].(map[string]any); ok {
		delete(meta, "managedFields")
	}
	return m
}

// TestWithoutManagedFieldsDropsOnlyThem: an object without its metadata's managedFields
// decodes to what the whole object decodes to, less those, wherever the member stands, and
// a managedFields anywhere else (another object, a string, the top level) is kept.
func TestWithoutManagedFieldsDropsOnlyThem(t *testing.T) {
	mf := `[{"manager":"karpenter","fieldsV1":{"f:status":{".":{},"f:conditions":{}}},"time":"2026-12-01T00:00:00Z"}]`
	cases := []string{
		`{"kind":"NodeClaim","metadata":{"managedFields":` + mf + `,"name":"a"},"spec":{}}`,
		`{"kind":"NodeClaim","metadata":{"name":"a","managedFields":` + mf + `}}`,
		`{"kind":"NodeClaim","metadata":{"name":"a","managedFields":` + mf + `,"labels":{"x":"y"}}}`,
		`{"kind":"NodeClaim","metadata":{"managedFields":` + mf + `}}`,
		"{ \"kind\" : \"NodeClaim\" ,\n \"metadata\" :\t{ \"name\" : \"a\" ,\r\n \"managedFields\" : " + mf + " } }",
		`{"kind":"NodeClaim","metadata":{"name":"a \"managedFields\": {[","annotations":{"managedFields":"kept"}},"spec":{"managedFields":[1]}}`,
		`{"managedFields":[1],"kind":"NodeClaim","metadata":{"name":"a"}}`,
		`{"kind":"NodeClaim","metadata":{"name":"first","managedFields":[1]},"metadata":{"name":"second","managedFields":[2,{"a":null}]}}`,
		`{"kind":"NodeClaim","metadata":{"managedFields":[1],"managedFields":[2],"name":"a"}}`,
		`{"kind":"NodeClaim","metadata":{"manag\u0065dFields":[1],"name":"a"}}`,
		`{"kind":"NodeClaim","metadata":"not an object"}`,
		`{"kind":"NodeClaim","metadata":{"n":-1.5e3,"b":true,"z":null,"managedFields":[false,0,"\\"]}}`,
		`{}`,
		`["metadata",{"managedFields":[1]}]`,
	}
	for _, c := range cases {
		got := withoutManagedFields([]byte(c))
		if !strings.HasPrefix(c, "{") {
			if string(got) != c {
				t.Fatalf("%s, not an object, became %s", c, got)
			}
			continue
		}
		if !json.Valid(got) {
			t.Fatalf("%s became invalid JSON: %s", c, got)
		}
		if want, have := decodedWithout(t, []byte(c)), decodedWithout(t, got); !reflect.DeepEqual(have, want) {
			t.Fatalf("%s\n became %s:\n got %v\nwant %v", c, got, have, want)
		}
	}
	if got := string(withoutManagedFields([]byte(cases[2]))); strings.Contains(got, "managedFields") {
		t.Fatalf("managedFields kept: %s", got)
	}
}

// FuzzWithoutManagedFields: for any JSON object, the object without its metadata's
// managedFields is JSON and decodes to the same, less those.
func FuzzWithoutManagedFields(f *testing.F) {
	f.Add([]byte(`{"kind":"NodeClaim","metadata":{"name":"a","managedFields":[{"f":{"g":"}"}}],"labels":{}}}`))
	f.Add([]byte(`{"metadata":{"managedFields":[]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var probe map[string]any
		if json.Unmarshal(b, &probe) != nil {
			return
		}
		in := bytes.Clone(b)
		got := withoutManagedFields(in)
		if !json.Valid(got) {
			t.Fatalf("%q became invalid JSON: %q", b, got)
		}
		if want, have := decodedWithout(t, b), decodedWithout(t, got); !reflect.DeepEqual(have, want) {
			t.Fatalf("%q became %q:\n got %v\nwant %v", b, got, have, want)
		}
	})
}

// TestDecodeListStreamMaxItem: an item longer than Items.MaxItem ends the list with a
// *ValueTooLongError, also when it spans reads of the answer; items within it decode.
func TestDecodeListStreamMaxItem(t *testing.T) {
	item := func(n int) string {
		return `{"apiVersion":"v1","kind":"Thing","metadata":{"name":"a"},"pad":"` + strings.Repeat("x", n) + `"}`
	}
	for _, tc := range []struct {
		name string
		pad  int
		max  int
		long bool
	}{
		{"no bound", 1 << 20, 0, false},
		{"within", 100, 1000, false},
		{"past, in one read", 2000, 1000, true},
		{"past, over many reads", 1 << 20, 300 << 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"kind":"ThingList","metadata":{},"items":[` + item(10) + `,` + item(tc.pad) + `]}`
			n := 0
			_, err := DecodeListStream(strings.NewReader(body), Items{MaxItem: tc.max}, func(*unstructured.Unstructured) { n++ })
			var long *ValueTooLongError
			if got := errors.As(err, &long); got != tc.long {
				t.Fatalf("error %v: want a ValueTooLongError %v", err, tc.long)
			}
			if !tc.long && n != 2 {
				t.Errorf("%d items, want 2", n)
			}
		})
	}
}
