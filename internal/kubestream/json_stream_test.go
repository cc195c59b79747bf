package kubestream

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// decodeListStreamByDecoder is the list decode as json.Decoder does it (the way it was
// done before jsonStream): the reference DecodeListStream is held to.
func decodeListStreamByDecoder(r io.Reader, items Items, visit func(*unstructured.Unstructured)) (string, error) {
	dec := json.NewDecoder(r)
	expect := func(want json.Delim) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); !ok || d != want {
			return fmt.Errorf("got %v, want %q", tok, want)
		}
		return nil
	}
	if err := expect('{'); err != nil {
		return "", err
	}
	var meta metav1.ListMeta
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		switch tok {
		case "items":
			tok, err := dec.Token()
			if err != nil {
				return "", err
			}
			if tok == nil {
				continue
			}
			if d, ok := tok.(json.Delim); !ok || d != '[' {
				return "", fmt.Errorf("items: got %v, want an array", tok)
			}
			for dec.More() {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return "", err
				}
				if err := decodeItem(raw, items, nil, visit); err != nil {
					return "", err
				}
			}
			if err := expect(']'); err != nil {
				return "", err
			}
		case "metadata":
			if err := dec.Decode(&meta); err != nil {
				return "", err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return "", err
			}
		}
	}
	return meta.Continue, expect('}')
}

// sameListDecode fails t unless DecodeListStream, reading body one byte at a time and
// whole, gives what json.Decoder's decode gives: the same objects, continue token, and an
// error exactly when it gives one.
func sameListDecode(t *testing.T, body []byte, reads Shape) {
	t.Helper()
	decode := func(dec func(io.Reader, Items, func(*unstructured.Unstructured)) (string, error), r io.Reader) ([]map[string]any, string, error) {
		var got []map[string]any
		next, err := dec(r, Items{Reads: reads}, func(u *unstructured.Unstructured) { got = append(got, u.Object) })
		return got, next, err
	}
	want, wantNext, wantErr := decode(decodeListStreamByDecoder, strings.NewReader(string(body)))
	for _, r := range []io.Reader{strings.NewReader(string(body)), iotest.OneByteReader(strings.NewReader(string(body)))} {
		got, next, err := decode(DecodeListStream, r)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("decoding %q: error %v, json.Decoder's %v", body, err, wantErr)
		}
		if err != nil {
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" || next != wantNext {
			t.Fatalf("decoding %q: continue %q, want %q; objects (-json.Decoder's +got):\n%s", body, next, wantNext, diff)
		}
	}
}

// TestListStreamDecodesAsJSONDecoder holds DecodeListStream to json.Decoder's decode over
// lists well and badly formed, read whole and a byte at a time, and over an item larger than
// the stream's first buffer.
func TestListStreamDecodesAsJSONDecoder(t *testing.T) {
	claim := fullNodeClaim("default-00001", true)
	for _, body := range []string{
		``, ` `, `{}`, `{ }`, `[]`, `null`, `{"items":null}`, `{"items":[]}`, `{"items":[ ]}`, `{"items": {}}`, `{"items": [1]}`,
		`{"items": [{"kind": "NodeClaim"}`, `{"items":[{"kind":"NodeClaim"}]}`, `{"items":[{"kind":"NodeClaim"},]}`,
		`{"items":[{"kind":"NodeClaim"}],}`, `{"items":[{"kind":"NodeClaim"}] "x":1}`, `{"metadata":{"continue":"abc"},"items":[]}`,
		`{"metadata":{"continue":7}}`, `{"\u0069tems":[{"kind":"X"}]}`, `{"items":[{"kind":"X","a":1e400}]}`, `{"items":nul}`,
		`{"items":[{"kind":"X","s":"\x01"}]}`, `{"items":[{"kind":"X","s":"\q"}]}`, `{"items":[{"kind":"X","n":-01}]}`,
		`{"items":[{"kind":"X"}]} trailing`, `{"a":1 "b":2}`, `{"a":[1,2}`, `{1:2}`, `{"items":[` + claim + `,` + claim + `],"metadata":{"continue":"c"}}`,
		`{"apiVersion":"v1","kind":"List","items":[` + claim + `]`,
	} {
		sameListDecode(t, []byte(body), NodeClaimReads)
		sameListDecode(t, []byte(body), nil)
	}
	big := `{"items":[{"kind":"NodeClaim","metadata":{"name":"big","annotations":{"a":"` + strings.Repeat(`x\"`, 300<<10) + `"}}}]}`
	sameListDecode(t, []byte(big), nil)
}

func FuzzDecodeListStream(f *testing.F) {
	for _, s := range []string{`{"items":[{"kind":"NodeClaim","metadata":{"name":"a"}}],"metadata":{"continue":"x"}}`,
		`{"items":null}`, `{"items":[1,"2",[3],{"4":5}]}`, fullNodeClaim("default-00002", false)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		sameListDecode(t, body, NodeClaimReads)
	})
}

// TestJSONValidIsJSONValid holds validJSON to json.Valid.
func TestJSONValidIsJSONValid(t *testing.T) {
	deep := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	for _, s := range []string{``, ` `, `0`, `-0`, `-`, `01`, `1.`, `1.5`, `1e`, `1e+`, `1E-5`, `.5`, `+1`, `"`, `"\u12"`, `"\u12ab"`,
		`"\uGGGG"`, `"a\/b"`, `"\x"`, "\"\x1f\"", "\"\x7f\xff\"", `tru`, `true`, `truex`, `nul`, `null `, ` false`, `{}`, `{"a"}`,
		`{"a":}`, `{"a":1,}`, `[1,]`, `[,1]`, `[1 2]`, `{"a":1}{}`, deep, "[" + deep + "]", "\t[\r\n]\n"} {
		if got, want := validJSON([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("validJSON(%.40q) = %v, json.Valid says %v", s, got, want)
		}
	}
}

func FuzzJSONValid(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.5e3,"x\u00e9\"",true,null,{}]}`, `[`, `"\`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid says %v", b, got, want)
		}
	})
}

// TestListStreamPassesOnTheReadersError: an answer cut by a failing connection fails with
// the connection's error, not as a malformed answer.
func TestListStreamPassesOnTheReadersError(t *testing.T) {
	lost := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader(`{"items":[{"kind":"NodeClaim","metadata":{"na`), iotest.ErrReader(lost))
	if _, err := DecodeListStream(r, Items{Reads: NodeClaimReads}, func(*unstructured.Unstructured) {}); !errors.Is(err, lost) {
		t.Fatalf("got %v, want the reader's error", err)
	}
}
