package snapshot

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// planned are the element types a snapshot is mostly made of, which plans decode.
var planned = []reflect.Type{reflect.TypeFor[corev1.Node](), reflect.TypeFor[Instance](), reflect.TypeFor[NodeClaim]()}

// samePlanned decodes text into a value of t with t's plan and with json.Unmarshal. It fails
// the test when the plan decodes what json.Unmarshal refuses or makes something else of it,
// and reports whether the plan decoded it.
func samePlanned(t testing.TB, ty reflect.Type, text []byte) bool {
	t.Helper()
	d := planFor(ty)
	if d == nil {
		t.Fatalf("no plan for %s", ty)
	}
	got := reflect.New(ty)
	if !decodePlanned(d, text, got.UnsafePointer()) {
		return false
	}
	want := reflect.New(ty)
	if err := json.Unmarshal(text, want.Interface()); err != nil {
		t.Fatalf("the %s plan decodes what json.Unmarshal refuses (%v): %s", ty, err, text)
	}
	if !reflect.DeepEqual(got.Interface(), want.Interface()) {
		t.Fatalf("the %s plan decodes %s\nas  %#v\nnot %#v", ty, text, got.Elem().Interface(), want.Elem().Interface())
	}
	return true
}

func TestPlanTypes(t *testing.T) {
	for _, ty := range planned {
		if planFor(ty) == nil {
			t.Errorf("no plan decodes %s: it is read by json.Unmarshal, element by element", ty)
		}
	}
	type withAny struct {
		V any `json:"v"`
	}
	type withString struct {
		N int `json:"n,string"`
	}
	type ambiguous struct {
		A string `json:"name"`
		B string `json:"Name"`
	}
	for _, ty := range []reflect.Type{reflect.TypeFor[withAny](), reflect.TypeFor[withString](), reflect.TypeFor[ambiguous](),
		reflect.TypeFor[[]byte](), reflect.TypeFor[[2]int]()} {
		if planFor(ty) != nil {
			t.Errorf("a plan decodes %s, which json.Unmarshal decodes by rules plans do not repeat", ty)
		}
	}
}

// TestPlanSnapshots decodes every node, instance and NodeClaim of the snapshots kept in the
// repository (the demo clusters, the check worlds, the read tests) with plans and with
// json.Unmarshal: every one must decode by plan, to the same value.
func TestPlanSnapshots(t *testing.T) {
	files := 0
	decoded := map[reflect.Type]int{}
	err := filepath.WalkDir("../..", func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (e.Name() == ".git" || e.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if e.IsDir() || !(strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".json.gz")) || strings.Contains(path, "golden") {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".gz") {
			z, err := gzip.NewReader(bytes.NewReader(text))
			if err != nil {
				return err
			}
			if text, err = io.ReadAll(z); err != nil {
				return err
			}
		}
		var lists struct {
			Kind       string            `json:"kind"`
			Nodes      []json.RawMessage `json:"nodes"`
			Instances  []json.RawMessage `json:"instances"`
			NodeClaims []json.RawMessage `json:"nodeClaims"`
		}
		if json.Unmarshal(text, &lists) != nil || lists.Kind != Kind {
			return nil
		}
		files++
		for i, list := range [][]json.RawMessage{lists.Nodes, lists.Instances, lists.NodeClaims} {
			for _, elem := range list {
				if !samePlanned(t, planned[i], elem) {
					t.Errorf("%s: a %s is not decoded by its plan: %s", path, planned[i], elem)
				}
				decoded[planned[i]]++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Fatalf("read %d snapshots in the repository, want the demo's, the worlds' and the tests' (10 or more)", files)
	}
	for _, ty := range planned {
		if decoded[ty] == 0 {
			t.Errorf("no %s in %d snapshots", ty, files)
		}
	}
}

func TestPlanEdges(t *testing.T) {
	node := reflect.TypeFor[corev1.Node]()
	instance := reflect.TypeFor[Instance]()
	for _, c := range []struct {
		ty      reflect.Type
		text    string
		planned bool // the plan decodes it (else json.Unmarshal does, or refuses it)
	}{
		{node, `{"metadata":{"name":"a","labels":{"k":"v"}},"spec":{"providerID":"aws:///z/i-1"}}`, true},
		{node, `{"metadata":{"name":"a\u00e9\n","labels":null,"annotations":{}},"status":{"conditions":[]}}`, true},
		{node, "{\"metadata\":{\"name\":\"caf\xe9\"}}", true}, // invalid UTF-8, replaced as json does
		{node, `{"metadata":{"name":"a","unknown":[1,{"x":null}],"uid":"u"},"extra":true}`, true},
		{node, `{"metadata":{"deletionTimestamp":null,"creationTimestamp":"2026-01-02T03:04:05Z"}}`, true},
		{node, `{"metadata":{"deletionTimestamp":"2026-01-02T03:04:05Z","deletionGracePeriodSeconds":30}}`, true},
		{node, `{"status":{"capacity":{"pods":"110","cpu":"2"},"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}}}}`, true},
		{node, `{"kind":"Node","apiVersion":"v1","metadata":{"name":"a"}}`, true},
		{node, `{"metadata":{"Name":"a"}}`, false},            // another case: json's rule
		{node, `{"metadata":{"name":"a","name":"b"}}`, false}, // duplicate key
		{node, `{"metadata":{"name":5}}`, false},              // a number for a string
		{node, `{"metadata":{"generation":1.5}}`, false},      // a fraction for an integer
		{node, `{"metadata":{"generation":99999999999999999999}}`, false},
		{node, `{"metadata":{"na\u006de":"a"}}`, false}, // an escaped key
		{node, `{"metadata":{"name":"a"},}`, false},     // not JSON
		{node, `{"metadata":{"name":"a"}} x`, false},
		{node, `{"status":{"capacity":{"pods":"x"}}}`, false}, // a quantity Quantity refuses
		{instance, `{"id":"i-1","enis":[{"id":"eni-1","privateIPs":["10.0.0.1"]},{"id":"eni-2","privateIPs":[]}]}`, true},
		{instance, `{"id":"i-1","enis":null,"tags":{"a":"b","a":"c"},"launchTime":"2026-01-02T03:04:05Z"}`, true},
		{instance, `{"id":"i-1","metadataOptions":{"httpPutResponseHopLimit":2},"placement":{"partitionNumber":-1}}`, true},
		{instance, `{"id":"i-1","metadataOptions":{"httpPutResponseHopLimit":3000000000}}`, false}, // past int32
		{instance, `{"id":"i-1","launchTime":"yesterday"}`, false},
	} {
		got := samePlanned(t, c.ty, []byte(c.text))
		if got != c.planned {
			t.Errorf("%s %s: decoded by plan %v, want %v", c.ty, c.text, got, c.planned)
		}
	}
}

// FuzzPlan holds plans to json.Unmarshal: whatever a plan decodes, json.Unmarshal decodes
// to the same value.
func FuzzPlan(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"a","labels":{"k":"v"}},"status":{"capacity":{"pods":"110"},"conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":"2026-01-02T03:04:05Z"}],"addresses":[{"type":"InternalIP","address":"10.0.0.1"}]}}`))
	f.Add([]byte(`{"id":"i-1","type":"m5.large","enis":[{"id":"eni-1","privateIPs":["10.0.0.1","10.0.0.2"],"securityGroups":[{"id":"sg-1"}]}],"tags":{"a":"b"},"launchTime":"2026-01-02T03:04:05Z"}`))
	f.Add([]byte(`{"name":"c","labels":{"karpenter.sh/nodepool":"p"},"nodeClassRef":{"name":"d"},"conditions":[{"type":"Launched","status":"True"}],"created":"2026-01-02T03:04:05Z"}`))
	f.Fuzz(func(t *testing.T, text []byte) {
		for _, ty := range planned {
			samePlanned(t, ty, text)
		}
	})
}
