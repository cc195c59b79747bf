package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing; Fatalf stops the
// function under test by panicking with fatal{}.
type recorder struct {
	testing.TB
	errors []string
}

type fatal struct{}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	panic(fatal{})
}

// assert runs Assert over a recorder and returns what it recorded.
func assert(t *testing.T, path, got string) []string {
	r := &recorder{TB: t}
	func() {
		defer func() {
			if v := recover(); v != nil && v != (fatal{}) {
				panic(v)
			}
		}()
		Assert(r, path, got)
	}()
	return r.errors
}

func TestAssert(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.golden")
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	command := "go test ./internal/testkit/testutil -run '^TestAssert$' -update"
	tests := []struct {
		name, path, got string
		want            []string // substrings of the one failure, none for a pass
	}{
		{"same", path, "a\nb\n", nil},
		{"different", path, "a\nc\n", []string{"output differs from " + path, `"a\nb\n"`, `"a\nc\n"`, command}},
		{"missing", path + ".none", "a\n", []string{"reading golden " + path + ".none", command}},
	}
	for _, tt := range tests {
		errs := assert(t, tt.path, tt.got)
		if len(tt.want) == 0 {
			if len(errs) != 0 {
				t.Errorf("%s: got failures %q, want none", tt.name, errs)
			}
			continue
		}
		if len(errs) != 1 {
			t.Errorf("%s: got failures %q, want one", tt.name, errs)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(errs[0], w) {
				t.Errorf("%s: failure %q, want it to contain %q", tt.name, errs[0], w)
			}
		}
	}
}

func TestLoadList(t *testing.T) {
	dir := t.TempDir()
	yamlList := "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a\n" +
		"- apiVersion: karpenter.sh/v1\n  kind: NodeClaim\n  metadata:\n    name: b\n"
	jsonList := `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}},` +
		`{"apiVersion":"karpenter.sh/v1","kind":"NodeClaim","metadata":{"name":"b"}}]}`
	for name, body := range map[string]string{"list.yaml": yamlList, "list.json": jsonList} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		items := LoadList(t, path)
		var got []string
		for _, u := range items {
			got = append(got, u.GetKind()+"/"+u.GetName())
		}
		if strings.Join(got, ",") != "Node/a,NodeClaim/b" {
			t.Errorf("%s: got %v, want [Node/a NodeClaim/b]", name, got)
		}
	}
}
