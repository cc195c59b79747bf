package snapshot_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// streamShapes are snapshots whose JSON the streamed writer and reader must get exactly as
// encoding/json does: one cluster, several, empty, and lists that are nil or empty.
func streamShapes() map[string]*snapshot.Snapshot {
	empty := snapshot.New(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC))
	nilNodes := full()
	nilNodes.Nodes, nilNodes.Instances = nil, nil
	emptyLists := full()
	emptyLists.Nodes, emptyLists.Subnets = emptyLists.Nodes[:0], emptyLists.Subnets[:0]
	return map[string]*snapshot.Snapshot{"full": full(), "multi": multi(), "empty": empty, "nil nodes": nilNodes, "empty lists": emptyLists}
}

// TestWriteStreamsWhatEncoderWrites: Write gives, byte for byte, what json.Encoder with the
// same indent gives for the whole snapshot at once.
func TestWriteStreamsWhatEncoderWrites(t *testing.T) {
	for name, s := range streamShapes() {
		t.Run(name, func(t *testing.T) {
			var got bytes.Buffer
			if err := snapshot.Write(&got, s); err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", " ")
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Fatalf("Write differs from json.Encoder:\n got %.400q\nwant %.400q", got.String(), want.String())
			}
		})
	}
}

// TestReadStreamsWhatUnmarshalReads: Read decodes each shape, and the same text with its keys
// in another case, unknown members and null lists, as json.Unmarshal decodes it.
func TestReadStreamsWhatUnmarshalReads(t *testing.T) {
	for name, s := range streamShapes() {
		var buf bytes.Buffer
		if err := snapshot.Write(&buf, s); err != nil {
			t.Fatal(err)
		}
		text := buf.String()
		variants := map[string]string{
			"as written": text,
			"other case": strings.Replace(strings.Replace(text, `"nodes":`, `"NODES":`, 1), `"instances":`, `"Instances":`, 1),
			"unknown":    strings.Replace(text, `"kind":`, `"later": {"nodes": [1, {"x": [2]}]}, "alsoLater": [{}], "kind":`, 1),
			"null lists": strings.Replace(strings.Replace(text, `"kind":`, `"subnets": null, "gaps": null, "kind":`, 1), `"regions":`, `"ignored":`, 1),
		}
		for variant, text := range variants {
			t.Run(name+"/"+variant, func(t *testing.T) {
				var want snapshot.Snapshot
				if err := json.Unmarshal([]byte(text), &want); err != nil {
					t.Fatal(err)
				}
				want.Redact()
				got, err := snapshot.Read(strings.NewReader(text))
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				if !reflect.DeepEqual(*got, want) {
					t.Fatalf("Read differs from json.Unmarshal")
				}
			})
		}
	}
}

// TestReadPlacesSyntaxErrors: a byte that breaks the JSON inside a node, an instance, a
// cluster's node or a key is said at the byte json.Unmarshal says, though the lists are
// decoded one element at a time.
func TestReadPlacesSyntaxErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := snapshot.Write(&buf, multi()); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	at := regexp.MustCompile(`at byte (\d+)`)
	for _, marker := range []string{`"providerID": "`, `"instanceId": "`, `"instanceType": "`, `"context": "`, `"taken": "`, `"nodeClaims": [`, `"kind": "`} {
		for _, i := range allIndexes(text, marker) {
			i += len(marker)
			bad := text[:i] + "\x01" + text[i:]
			var v any
			var syn *json.SyntaxError
			if err := json.Unmarshal([]byte(bad), &v); !errorsAs(err, &syn) {
				t.Fatalf("%s at %d: json.Unmarshal gives %v, want a syntax error", marker, i, err)
			}
			_, err := snapshot.Read(strings.NewReader(bad))
			m := at.FindStringSubmatch(fmt.Sprint(err))
			if m == nil {
				t.Fatalf("%s at %d: Read gives %v, want a syntax error at a byte", marker, i, err)
			}
			if got, _ := strconv.ParseInt(m[1], 10, 64); got != syn.Offset {
				t.Errorf("%s at %d: Read says byte %d, json.Unmarshal %d (%v)", marker, i, got, syn.Offset, err)
			}
		}
	}
}

// TestReadSaysWhereInACluster: a value that is JSON but not what its field holds is named by
// its place in the file, inside the cluster and node it is in.
func TestReadSaysWhereInACluster(t *testing.T) {
	var buf bytes.Buffer
	if err := snapshot.Write(&buf, multi()); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	ts := regexp.MustCompile(`"creationTimestamp": "[^"]*"`)
	i := ts.FindStringIndex(text)
	if i == nil {
		t.Fatal("the multi-cluster snapshot has no creationTimestamp")
	}
	bad := text[:i[0]] + `"creationTimestamp": "yesterday"` + text[i[1]:]
	_, err := snapshot.Read(strings.NewReader(bad))
	want := `malformed: clusters[0].nodes[0].metadata.creationTimestamp is "yesterday"`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Read gives %v, want %s...", err, want)
	}
	typed := strings.Replace(text, `"context": "`, `"context": 7, "was": "`, 1)
	if _, err := snapshot.Read(strings.NewReader(typed)); err == nil || err.Error() != `malformed: field "clusters.context" holds a JSON number` {
		t.Fatalf("Read gives %v, want the field clusters.context named", err)
	}
}

func allIndexes(s, sub string) []int {
	var out []int
	for i := 0; ; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			return out
		}
		out = append(out, i+j)
		i += j + 1
	}
}

func errorsAs(err error, syn **json.SyntaxError) bool {
	s, ok := err.(*json.SyntaxError)
	*syn = s
	return ok
}
