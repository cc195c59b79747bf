package kubestream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/karpnet/kubectl-karpnet/internal/kubeobj"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// fullNodeClaim is a NodeClaim as the API server lists it, with every field Karpenter
// writes: managedFields, annotations, finalizers, requirements, taints, the status's
// allocatable and image, and all that kubeobj.DecodeNodeClaim reads.
func fullNodeClaim(name string, deleting bool) string {
	deletion := ""
	if deleting {
		deletion = `"deletionTimestamp":"2026-09-01T09:00:00Z","deletionGracePeriodSeconds":0,`
	}
	return `{"apiVersion":"karpenter.sh/v1","kind":"NodeClaim","metadata":{` +
		`"annotations":{"compatibility.karpenter.k8s.aws/cluster-name-tagged":"true","karpenter.k8s.aws/ec2nodeclass-hash":"4012513481623584108","karpenter.sh/nodepool-hash":"6821555240594823858"},` +
		`"creationTimestamp":"2026-09-01T08:00:00Z",` + deletion +
		`"finalizers":["karpenter.sh/termination"],"generateName":"default-","generation":1,` +
		`"labels":{"karpenter.k8s.aws/ec2nodeclass":"default","karpenter.sh/capacity-type":"on-demand","karpenter.sh/nodepool":"default","kubernetes.io/arch":"amd64","node.kubernetes.io/instance-type":"c6in.2xlarge","topology.kubernetes.io/zone":"us-west-2a"},` +
		`"managedFields":[{"apiVersion":"karpenter.sh/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:karpenter.sh/nodepool":{}}},"f:spec":{".":{},"f:nodeClassRef":{}}},"manager":"karpenter","operation":"Update","time":"2026-09-01T08:00:00Z"}],` +
		`"name":"` + name + `","ownerReferences":[{"apiVersion":"karpenter.sh/v1","blockOwnerDeletion":true,"kind":"NodePool","name":"default","uid":"7a3d4c58-0000-4000-8000-000000000001"}],` +
		`"resourceVersion":"123456","uid":"5b2c7d1e-0000-4000-8000-000000000002"},` +
		`"spec":{"expireAfter":"720h","nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"default"},` +
		`"requirements":[{"key":"node.kubernetes.io/instance-type","operator":"In","values":["c6in.2xlarge"]},{"key":"karpenter.sh/capacity-type","operator":"In","values":["on-demand"]},{"key":"karpenter.k8s.aws/instance-generation","operator":"Gt","values":["5"],"minValues":2}],` +
		`"resources":{"requests":{"cpu":"2150m","memory":"4Gi","pods":"9","vpc.amazonaws.com/efa":1}},` +
		`"taints":[{"effect":"NoSchedule","key":"example.com/gpu"}],"startupTaints":[{"effect":"NoExecute","key":"ebs.csi.aws.com/agent-not-ready"}]},` +
		`"status":{"allocatable":{"cpu":"7910m","memory":"14162Mi","pods":"58"},` +
		`"capacity":{"cpu":"8","memory":"15155Mi","pods":"58","vpc.amazonaws.com/efa":"1","vpc.amazonaws.com/pod-eni":"54"},` +
		`"conditions":[{"lastTransitionTime":"2026-09-01T08:00:30Z","message":"","observedGeneration":1,"reason":"Launched","status":"True","type":"Launched"},` +
		`{"lastTransitionTime":"2026-09-01T08:01:10Z","message":"","observedGeneration":1,"reason":"Registered","status":"True","type":"Registered"},` +
		`{"lastTransitionTime":"2026-09-01T08:01:30Z","message":"Node not ready: kubelet is not posting status","observedGeneration":1,"reason":"NodeNotReady","status":"False","type":"Ready"},` +
		`{"lastTransitionTime":"not a time","status":"Unknown","type":"Drifted"},{"status":"True"}],` +
		`"imageID":"ami-0a5ca1e0000000001","lastPodEventTime":"2026-09-01T08:05:00Z","nodeName":"ip-10-0-1-10.us-west-2.compute.internal","providerID":"aws:///us-west-2a/i-0123456789abcdef0"}}`
}

// prune keeps of the decoded value v only what shape names, as decodeShaped does.
func prune(v any, shape Shape) any {
	m, ok := v.(map[string]any)
	if !ok || shape == nil {
		return v
	}
	out := map[string]any{}
	for k, sub := range shape {
		if value, found := m[k]; found {
			out[k] = prune(value, sub)
		}
	}
	return out
}

// fullDecode decodes item as the dynamic client does, whole.
func fullDecode(item []byte) (map[string]any, error) {
	m := map[string]any{}
	err := utiljson.Unmarshal(item, &m)
	return m, err
}

// TestNodeClaimReadsIsWhatTheDecodeReads decodes NodeClaims, whole and by the parts
// NodeClaimReads names, and converts each: the NodeClaims are the same, and every field
// of the snapshot's NodeClaim is set, so a field the conversion reads that the parts lack
// shows.
func TestNodeClaimReadsIsWhatTheDecodeReads(t *testing.T) {
	for _, deleting := range []bool{false, true} {
		item := []byte(fullNodeClaim("default-abcde", deleting))
		whole := &unstructured.Unstructured{}
		if err := whole.UnmarshalJSON(item); err != nil {
			t.Fatal(err)
		}
		parts, ok := decodeShaped(item, NodeClaimReads)
		if !ok {
			t.Fatal("the NodeClaim did not decode by parts")
		}
		want := kubeobj.DecodeNodeClaim(whole)
		got := kubeobj.DecodeNodeClaim(&unstructured.Unstructured{Object: parts})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("by parts:\n%+v\nwhole:\n%+v", got, want)
		}
		if !deleting {
			continue
		}
		v := reflect.ValueOf(want)
		for i := range v.NumField() {
			if v.Field(i).IsZero() {
				t.Errorf("the NodeClaim of the test leaves %s unset: fill it, so that the parts are checked for it", v.Type().Field(i).Name)
			}
		}
	}
}

// TestDecodeShapedIsTheDecodePruned decodes objects of every shape JSON allows by parts and
// compares each with the whole decode pruned to the parts: repeated keys (the last wins,
// whole), escaped and non-ASCII keys and strings, numbers of every kind, parts of another type
// than an object, empty and nested containers, whitespace.
func TestDecodeShapedIsTheDecodePruned(t *testing.T) {
	shape := Shape{"a": nil, "m": {"x": nil, "y": {"z": nil}}, "l": nil, "é": nil}
	items := map[string]string{
		"nodeclaim":      fullNodeClaim("n", true),
		"repeated":       `{"m":{"x":1,"y":{"z":2}},"a":1,"m":{"y":{"q":3}},"a":[1,2]}`,
		"repeated inner": `{"m":{"x":"first","x":"second","y":{"z":1},"y":{"z":2,"z":3}}}`,
		"escaped keys":   `{"\u0061":"a by escape","m":{"\u0078":"\"quoted\"\n","y":"not an object"},"\u00e9":"e acute","é":"written"}`,
		"non-ASCII":      `{"a":"zone \u00e9t\u00e9 ☃","l":{"k\ud83d\ude00":"\ud800 lone","ascii":"x"}}`,
		"invalid UTF-8":  "{\"a\":\"\xff\xfe\",\"l\":{\"\xc3\":\"v\"}}",
		"numbers":        `{"a":[0,-1,9223372036854775807,9223372036854775808,1.5,1e3,-2E-2,1.0,123456789012345678901234567890],"l":{"f":0.1,"i":42,"n":-0}}`,
		"literals":       `{"a":[true,false,null],"m":null,"l":{}}`,
		"types":          `{"a":{},"m":[],"l":"s"}`,
		"empty":          `{}`,
		"nested":         `{"l":[[],[{}],[[1]],{"x":{"y":[]}}],"skipped":[{"a":[{"m":1}]}],"m":{"y":{"z":{"deep":[1,{"deeper":{}}]}}}}`,
		"whitespace":     " \n{ \"a\" :\t1 , \"m\" : { \"x\" : [ 1 , 2 ] } , \"skip\" : { \"k\" : [ true , null ] } }\r\n",
		"skipped heavy":  `{"skip":{"m":{"x":1},"a":"not this one"},"a":"this one","s":"\\\"}{[","t":[true,false,null,-1.5e-3]}`,
	}
	for name, item := range items {
		t.Run(name, func(t *testing.T) {
			whole, err := fullDecode([]byte(item))
			if err != nil {
				t.Fatal(err)
			}
			got, ok := decodeShaped([]byte(item), shape)
			if !ok {
				t.Fatal("not decoded by parts")
			}
			if want := prune(whole, shape); !reflect.DeepEqual(got, want) {
				t.Fatalf("by parts:\n%#v\nwhole, pruned:\n%#v", got, want)
			}
		})
	}
	for name, item := range map[string]string{
		"a number out of range, kept":    `{"a":1e999}`,
		"a number out of range, skipped": `{"skip":[{"n":-1e400}],"a":1}`,
		"an array":                       `[{"a":1}]`,
		"a string":                       `"a"`,
		"null":                           `null`,
	} {
		if _, ok := decodeShaped([]byte(item), shape); ok {
			t.Errorf("%s: decoded by parts, want it left to the whole decode", name)
		}
	}
}

// TestNodeClaimListDecodesByParts streams a NodeClaims list whose items are of every kind
// (well formed, deleting, without a kind, with a number out of range) through
// DecodeListStream, with and without the parts: the NodeClaims read, and the error, are
// the same.
func TestNodeClaimListDecodesByParts(t *testing.T) {
	list := func(items ...string) string {
		return `{"apiVersion":"karpenter.sh/v1","kind":"NodeClaimList","metadata":{"resourceVersion":"7"},"items":[` + strings.Join(items, ",") + `]}`
	}
	read := func(body string, reads Shape) ([]snapshot.NodeClaim, error) {
		var out []snapshot.NodeClaim
		_, err := DecodeListStream(strings.NewReader(body), Items{Reads: reads}, func(u *unstructured.Unstructured) {
			out = append(out, kubeobj.DecodeNodeClaim(u))
		})
		return out, err
	}
	noKind := strings.Replace(fullNodeClaim("c", false), `"kind":"NodeClaim",`, "", 1)
	badVersion := strings.Replace(fullNodeClaim("c", false), `"apiVersion":"karpenter.sh/v1"`, `"apiVersion":"a/b/c"`, 1)
	outOfRange := strings.Replace(fullNodeClaim("c", false), `"generation":1`, `"generation":1e999`, 1)
	for name, body := range map[string]string{
		"well formed":     list(fullNodeClaim("a", false), fullNodeClaim("b", true)),
		"no kind":         list(fullNodeClaim("a", false), noKind),
		"bad API version": list(badVersion),
		"out of range":    list(fullNodeClaim("a", false), outOfRange),
	} {
		t.Run(name, func(t *testing.T) {
			want, wantErr := read(body, nil)
			got, gotErr := read(body, NodeClaimReads)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("error by parts %v, whole %v", gotErr, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("by parts:\n%+v\nwhole:\n%+v", got, want)
			}
			if name == "well formed" && (len(got) != 2 || got[1].Deleting.IsZero()) {
				t.Fatalf("read %+v, want a and b, b deleting", got)
			}
		})
	}
}

// FuzzDecodeShaped holds decodeShaped to the whole decode on any JSON object: decoded by
// parts exactly when the whole decode takes it, and then the whole decode pruned; the same
// with the names and values of a list's items shared (Names), once new and once known.
func FuzzDecodeShaped(f *testing.F) {
	f.Add([]byte(fullNodeClaim("n", true)))
	f.Add([]byte(`{"metadata":{"name":"a","name":"\u0062"},"status":[1e5,-0.0],"spec":{"resources":{"requests":{"e":2}}}}`))
	f.Add([]byte(`{"kind":"x","skip":[[{"a":null}]],"metadata":{"labels":{"k":true}}}`))
	f.Fuzz(func(t *testing.T, item []byte) {
		if !json.Valid(item) || !bytes.HasPrefix(bytes.TrimLeft(item, " \t\r\n"), []byte("{")) {
			return // the list decoder hands over only values it has checked; non-objects are decoded whole
		}
		got, ok := decodeShaped(item, NodeClaimReads)
		whole, err := fullDecode(item)
		if ok != (err == nil) {
			t.Fatalf("decoded by parts: %t; the whole decode: %v", ok, err)
		}
		if ok && !reflect.DeepEqual(got, prune(whole, NodeClaimReads)) {
			t.Fatalf("by parts:\n%#v\nwhole, pruned:\n%#v", got, prune(whole, NodeClaimReads))
		}
		names := newNames()
		for range 2 {
			shared, sharedOK := decodeShapedNames(item, NodeClaimReads, names)
			if sharedOK != ok || !reflect.DeepEqual(shared, got) {
				t.Fatalf("with shared names (%t):\n%#v\nwithout (%t):\n%#v", sharedOK, shared, ok, got)
			}
		}
	})
}

// TestNamesAreBounded: past namesMax names and values, or for one longer than
// nameMax, each is still the string read, and none is kept.
func TestNamesAreBounded(t *testing.T) {
	n := newNames()
	for i := range namesMax + 100 {
		b := []byte(fmt.Sprintf("name-%d", i))
		if got := n.name(b); got != string(b) {
			t.Fatalf("name %q: got %q", b, got)
		}
		if got := n.value(b); got != string(b) {
			t.Fatalf("value %q: got %v", b, got)
		}
	}
	long := []byte(strings.Repeat("x", nameMax+1))
	if n.name(long) != string(long) || n.value(long) != string(long) {
		t.Fatal("a long name or value is not the string read")
	}
	if len(n.m) != namesMax {
		t.Fatalf("%d names and values kept, want at most %d", len(n.m), namesMax)
	}
	var none *Names
	if none.name([]byte("a")) != "a" || none.value([]byte("b")) != "b" {
		t.Fatal("a nil Names does not give the strings read")
	}
}

// BenchmarkDecodeNodeClaimList decodes a list of 1,000 NodeClaims as the API server writes
// them, and converts each: whole, as the dynamic client decodes them (managedFields cut
// first), by the parts the conversion reads, and read straight from their text
// (ReadNodeClaim).
func BenchmarkDecodeNodeClaimList(b *testing.B) {
	items := make([]string, 1000)
	for i := range items {
		items[i] = fullNodeClaim(fmt.Sprintf("default-%05d", i), i%50 == 0)
	}
	body := `{"apiVersion":"karpenter.sh/v1","kind":"NodeClaimList","metadata":{"resourceVersion":"7"},"items":[` + strings.Join(items, ",") + `]}`
	for _, bc := range []struct {
		name   string
		reads  Shape
		direct bool
	}{{"whole", nil, false}, {"parts", NodeClaimReads, false}, {"text", NodeClaimReads, true}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				n := 0
				how := Items{Reads: bc.reads}
				if bc.direct {
					how.Take = func(raw []byte, names *Names) bool {
						c, ok := ReadNodeClaim(raw, names)
						if ok && c.Name != "" {
							n++
						}
						return ok
					}
				}
				if _, err := DecodeListStream(strings.NewReader(body), how, func(u *unstructured.Unstructured) {
					if kubeobj.DecodeNodeClaim(u).Name != "" {
						n++
					}
				}); err != nil || n != len(items) {
					b.Fatalf("%d NodeClaims, %v", n, err)
				}
			}
		})
	}
}
