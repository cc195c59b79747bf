package printer

import (
	"bytes"
	"encoding/json"
	"testing"
)

// indentedAsJSONIndent fails t unless appendIndented gives what json.Indent gives for src,
// compacted first as encoding/json writes it.
func indentedAsJSONIndent(t *testing.T, src []byte) {
	t.Helper()
	var compact bytes.Buffer
	if err := json.Compact(&compact, src); err != nil {
		return // not JSON: appendIndented is only given encoding/json's output
	}
	var want bytes.Buffer
	if err := json.Indent(&want, compact.Bytes(), "    ", "  "); err != nil {
		t.Fatalf("json.Indent(%q): %v", compact.Bytes(), err)
	}
	if got := appendIndented(nil, compact.Bytes(), "    ", "  "); !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("appendIndented(%q):\n%s\nwant json.Indent's:\n%s", compact.Bytes(), got, want.Bytes())
	}
}

// TestAppendIndentedIsJSONIndent holds appendIndented to json.Indent over the shapes a report
// has (empty objects and arrays, nesting, escaped quotes and backslashes in strings, keys with
// the punctuation the indenter acts on) and over whole reports of every kind of node.
func TestAppendIndentedIsJSONIndent(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `""`, `0`, `null`, `{"a":{}}`, `{"a":[]}`, `[[],{}]`, `[[[]]]`, `{"a":[1,2,{"b":null}]}`,
		`{"k,:{}[]":"v,:{}[]"}`, `["\"","\\","\\\"","a\\\\\"b",""]`, `{"\\":"\\\\"}`, `"\u00e9\n\t"`,
		`[1.5e10,-0,true,false]`, `{"a":"}","b":"]"}`,
	} {
		indentedAsJSONIndent(t, []byte(s))
	}
	r := publicReport(manyNodesReport(30))
	for _, n := range r.Nodes {
		b, err := json.Marshal(n)
		if err != nil {
			t.Fatal(err)
		}
		indentedAsJSONIndent(t, b)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	indentedAsJSONIndent(t, b)
}

func FuzzAppendIndented(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"c\"d"}],"e":{}}`, `["\\\\",[],""]`, `{"":{"":[{}]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) { indentedAsJSONIndent(t, src) })
}
