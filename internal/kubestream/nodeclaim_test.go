package kubestream

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/karpnet/kubectl-karpnet/internal/kubeobj"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// nodeClaimByParts is what a list read made of one NodeClaim item before
// ReadNodeClaim: the decode by parts, converted; not ok when the list reader would have
// decoded the item whole instead.
func nodeClaimByParts(item []byte, names *Names) (snapshot.NodeClaim, bool) {
	obj, ok := decodeShapedNames(item, NodeClaimReads, names)
	if !ok {
		return snapshot.NodeClaim{}, false
	}
	u := &unstructured.Unstructured{Object: obj}
	if u.GroupVersionKind().Kind == "" {
		return snapshot.NodeClaim{}, false
	}
	return kubeobj.DecodeNodeClaim(u), true
}

// sameNodeClaim fails t unless ReadNodeClaim, with names new and known, reads item
// as the decode by parts does when it reads it at all; it returns whether it did.
func sameNodeClaim(t *testing.T, item []byte) bool {
	t.Helper()
	want, wantOK := nodeClaimByParts(item, nil)
	names := newNames()
	var read bool
	for i := range 2 {
		got, ok := ReadNodeClaim(item, names)
		if i == 1 && ok != read {
			t.Fatalf("read %t with new names, %t with known ones", read, ok)
		}
		read = ok
		if !ok {
			continue
		}
		if !wantOK {
			t.Fatalf("read %+v where the decode by parts leaves the item to the whole decode", got)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("read:\n%#v\nby parts:\n%#v", got, want)
		}
	}
	return read
}

// TestReadNodeClaimIsTheDecodeByParts reads NodeClaims of every shape the conversion meets
// straight from their text and holds each to the decode by parts, converted: fields of
// another type than expected, labels and quantities of every kind of value (a repeated label
// whose last value is not a string is dropped), conditions without a type or that are not
// objects, escaped and non-ASCII names and values, timestamps that do not parse, v1beta1's
// nodeClassRef. Each of these is read, not left to the decode.
func TestReadNodeClaimIsTheDecodeByParts(t *testing.T) {
	claim := fullNodeClaim("default-abcde", false)
	items := map[string]string{
		"nodeclaim": claim,
		"deleting":  fullNodeClaim("default-abcde", true),
		"v1beta1": `{"apiVersion":"karpenter.sh/v1beta1","kind":"NodeClaim","metadata":{"name":"b"},` +
			`"spec":{"nodeClassRef":{"apiVersion":"karpenter.k8s.aws/v1beta1","name":"default"}}}`,
		"auto mode": `{"apiVersion":"karpenter.sh/v1","kind":"NodeClaim","spec":{"nodeClassRef":{"group":"eks.amazonaws.com","name":"default"}}}`,
		"no group":  `{"apiVersion":"karpenter.sh/v1","kind":"NodeClaim","spec":{"nodeClassRef":{"name":"default","kind":7}}}`,
		"labels": `{"kind":"NodeClaim","metadata":{"labels":{"a":"1","b":2,"c":null,"d":{"x":1},"e":"first","e":false,` +
			`"f":true,"f":"last","\u0067":"escaped","h\u00e9":"\u00e9t\u00e9","i":"\ud800","j":""}}}`,
		"no string labels": `{"kind":"NodeClaim","metadata":{"labels":{"a":1}}}`,
		"empty labels":     `{"kind":"NodeClaim","metadata":{"labels":{}}}`,
		"quantities": `{"kind":"NodeClaim","spec":{"resources":{"requests":{"a":"1","b":2,"c":1.5,"d":-0,"e":1e3,"f":-2E-2,` +
			`"g":9223372036854775808,"h":true,"i":null,"j":[1],"k":{"l":2},"m":"x","m":7,"n":7,"n":[],"o":1.0}}},` +
			`"status":{"capacity":{"cpu":"8","vpc.amazonaws.com/efa":2,"vpc.amazonaws.com/pod-eni":"54","vpc.amazonaws.com/x":null}}}`,
		"only other capacity": `{"kind":"NodeClaim","status":{"capacity":{"cpu":"8"}}}`,
		"conditions": `{"kind":"NodeClaim","status":{"conditions":[1,"a",null,[],{},{"status":"True"},{"type":""},` +
			`{"type":"Ready","status":"True","reason":7,"message":"m\n\"q\"","lastTransitionTime":"2026-09-01T08:00:00+02:00"},` +
			`{"type":"Drifted","lastTransitionTime":"not a time"},{"type":"Launched","lastTransitionTime":12}]}}`,
		"no conditions": `{"kind":"NodeClaim","status":{"conditions":[]}}`,
		"types": `{"apiVersion":7,"kind":"NodeClaim","metadata":{"name":7,"labels":[],"creationTimestamp":1,"deletionTimestamp":null},` +
			`"spec":{"nodeClassRef":"default","resources":{"requests":"x"}},"status":{"providerID":[],"nodeName":{},"capacity":1,"conditions":{}}}`,
		"parts of another type": `{"kind":"NodeClaim","metadata":"m","spec":[],"status":null}`,
		"spec resources":        `{"kind":"NodeClaim","spec":{"resources":null}}`,
		"times":                 `{"kind":"NodeClaim","metadata":{"creationTimestamp":"null","deletionTimestamp":"0001-01-01T00:00:00Z"}}`,
		"offset times": `{"kind":"NodeClaim","metadata":{"creationTimestamp":"2026-09-01T10:00:00+02:00",` +
			`"deletionTimestamp":"2026-09-01T10:00:00.5-07:00"}}`,
		"escaped values": `{"kind":"NodeClaim","metadata":{"name":"\u0061b"},"status":{"providerID":"aws:\/\/\/us-west-2a\/i-1","nodeName":"n\u00e9"}}`,
		"invalid UTF-8":  "{\"kind\":\"NodeClaim\",\"metadata\":{\"name\":\"\xff\",\"labels\":{\"\xc3\":\"v\"}}}",
		"skipped":        `{"kind":"NodeClaim","x":{"metadata":{"name":"no"}},"metadata":{"x":[{"name":"no"}],"name":"yes"},"y":[1e300,-1.5,true,null,"}"]}`,
		"whitespace":     " \n{ \"kind\" : \"NodeClaim\" ,\t\"metadata\" : { \"name\" : \"a\" , \"labels\" : { \"k\" : \"v\" } } , \"status\" : { \"conditions\" : [ { \"type\" : \"Ready\" } , 1 ] } }\r\n",
		"empty strings":  `{"apiVersion":"","kind":"NodeClaim","metadata":{"name":""}}`,
	}
	for name, item := range items {
		t.Run(name, func(t *testing.T) {
			if !json.Valid([]byte(item)) {
				t.Fatal("the test's item is not JSON")
			}
			if !sameNodeClaim(t, []byte(item)) {
				t.Fatal("left to the decode, want it read")
			}
		})
	}
}

// TestReadNodeClaimLeavesWhatItIsNotSureOf: items the reader would have to decode unlike
// the unstructured decoder, or that the list reader decodes whole, are left to the decode,
// and a list read with the reader gives for them what it gave without.
func TestReadNodeClaimLeavesWhatItIsNotSureOf(t *testing.T) {
	claim := fullNodeClaim("c", false)
	for name, item := range map[string]string{
		"repeated metadata":  `{"kind":"NodeClaim","metadata":{"name":"a"},"metadata":{"labels":{"k":"v"}}}`,
		"repeated name":      `{"kind":"NodeClaim","metadata":{"name":"a","name":"b"}}`,
		"repeated labels":    `{"kind":"NodeClaim","metadata":{"labels":{"a":"1"},"labels":{"b":"2"}}}`,
		"repeated kind":      `{"kind":"NodeClaim","kind":"NodeClaim"}`,
		"repeated requests":  `{"kind":"NodeClaim","spec":{"resources":{"requests":{"a":"1"},"requests":{}}}}`,
		"repeated condition": `{"kind":"NodeClaim","status":{"conditions":[{"type":"A","type":"B"}]}}`,
		"repeated ref name":  `{"kind":"NodeClaim","spec":{"nodeClassRef":{"name":"a","name":"b"}}}`,
		"escaped member":     `{"kind":"NodeClaim","\u006detadata":{"name":"a"}}`,
		"escaped inner":      `{"kind":"NodeClaim","metadata":{"n\u0061me":"a"}}`,
		"non-ASCII member":   `{"kind":"NodeClaim","métadata":{}}`,
		"no kind":            strings.Replace(claim, `"kind":"NodeClaim",`, "", 1),
		"kind not a string":  `{"kind":1,"metadata":{"name":"a"}}`,
		"empty kind":         `{"kind":"","metadata":{"name":"a"}}`,
		"bad API version":    strings.Replace(claim, `"apiVersion":"karpenter.sh/v1"`, `"apiVersion":"a/b/c"`, 1),
		"out of range, kept": `{"kind":"NodeClaim","spec":{"resources":{"requests":{"a":1e999}}}}`,
		"out of range":       strings.Replace(claim, `"generation":1`, `"generation":1e999`, 1),
		"an array":           `[{"kind":"NodeClaim"}]`,
		"a string":           `"NodeClaim"`,
	} {
		t.Run(name, func(t *testing.T) {
			if sameNodeClaim(t, []byte(item)) {
				t.Fatal("read, want it left to the decode")
			}
			list := `{"items":[` + item + `,` + claim + `]}`
			read := func(items Items) ([]snapshot.NodeClaim, error) {
				var out []snapshot.NodeClaim
				if items.Reads != nil {
					items.Take = func(raw []byte, names *Names) bool {
						c, ok := ReadNodeClaim(raw, names)
						if ok {
							out = append(out, c)
						}
						return ok
					}
				}
				_, err := DecodeListStream(strings.NewReader(list), items, func(u *unstructured.Unstructured) {
					out = append(out, kubeobj.DecodeNodeClaim(u))
				})
				return out, err
			}
			want, wantErr := read(Items{})
			got, err := read(Items{Reads: NodeClaimReads})
			if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
				t.Fatalf("with the reader %+v, %v; decoded whole %+v, %v", got, err, want, wantErr)
			}
		})
	}
}

// FuzzReadNodeClaim holds ReadNodeClaim to the decode by parts it replaces on any JSON
// object: whatever it reads, with a list's names new or known, is what that decode and the
// conversion give, and it reads nothing that decode leaves to the whole decode.
func FuzzReadNodeClaim(f *testing.F) {
	f.Add([]byte(fullNodeClaim("n", true)))
	f.Add([]byte(`{"kind":"NodeClaim","metadata":{"labels":{"a":"1","a":2}},"spec":{"resources":{"requests":{"e":1.5,"e":"2"}}}}`))
	f.Add([]byte(`{"apiVersion":"karpenter.sh/v1beta1","kind":"NodeClaim","spec":{"nodeClassRef":{"apiVersion":"x/v1","name":"n"}},"status":{"conditions":[{"type":"Ready","lastTransitionTime":"2026-01-01T00:00:00Z"},1]}}`))
	f.Fuzz(func(t *testing.T, item []byte) {
		if !json.Valid(item) || !bytes.HasPrefix(bytes.TrimLeft(item, " \t\r\n"), []byte("{")) {
			return // the list decoder hands over only values it has checked; non-objects are decoded whole
		}
		sameNodeClaim(t, item)
	})
}
