package diagnose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// FuzzSnapshotFields mutates the fields of a valid snapshot (the demo cluster's) rather than
// its bytes, so that the inputs stay snapshots and reach every check: each three bytes of ops
// pick a field (two bytes) and a mutation (one byte), using text and number as the new value.
// Whatever Read accepts, Analyze must take without panicking, twice alike, into a report that
// encodes as JSON.
func FuzzSnapshotFields(f *testing.F) {
	base := demo.Bytes()
	f.Add([]byte{}, "", int64(0))
	f.Add([]byte{0, 7, 0}, "\x1b]0;owned\x07", int64(-1))
	f.Add([]byte{1, 200, 1, 0, 9, 2}, "", int64(math.MaxInt32))
	f.Add([]byte{3, 1, 3, 2, 2, 4}, "2099-01-01T00:00:00Z", int64(1<<40))
	f.Add([]byte{0, 42, 5, 9, 9, 0, 4, 4, 1}, "aws:///us-west-2a/i-0123456789abcdef0", int64(0))
	f.Fuzz(func(t *testing.T, ops []byte, text string, number int64) {
		var tree any
		if err := json.Unmarshal(base, &tree); err != nil {
			t.Fatal(err)
		}
		for i := 0; i+2 < len(ops) && i < 3*16; i += 3 {
			leaves := fieldPaths(tree, nil)
			pick := leaves[(int(ops[i])<<8|int(ops[i+1]))%len(leaves)]
			tree = mutate(tree, pick, ops[i+2], text, number)
		}
		data, err := json.Marshal(tree)
		if err != nil {
			t.Fatal(err)
		}
		s, err := snapshot.Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		first := Analyze(s, Options{})
		if _, err := json.Marshal(first); err != nil {
			t.Fatalf("encoding the report: %v", err)
		}
		again, err := snapshot.Read(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("the second Read refused what the first accepted: %v", err)
		}
		if second := Analyze(again, Options{}); !reflect.DeepEqual(first, second) {
			t.Fatal("Analyze gave two reports for one snapshot")
		}
	})
}

// fieldPaths lists the paths of every value in tree, containers included, in a fixed order:
// object keys sorted, array elements in order.
func fieldPaths(tree any, at []any) [][]any {
	out := [][]any{slices.Clone(at)}
	switch v := tree.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = append(out, fieldPaths(v[k], append(at, k))...)
		}
	case []any:
		for i, e := range v {
			out = append(out, fieldPaths(e, append(at, i))...)
		}
	}
	return out
}

// mutate returns tree with the value at path changed by op: a string, a number (as given, as
// text, or at the edge of int32), null, removed, duplicated (a container once more in its
// array), emptied, or with text appended.
func mutate(tree any, path []any, op byte, text string, number int64) any {
	change := func(old any) (any, bool) {
		switch op % 9 {
		case 0:
			return text, true
		case 1:
			return number, true
		case 2:
			return strconv.FormatInt(number, 10), true
		case 3:
			return nil, true
		case 4:
			return nil, false // removed
		case 5:
			switch old.(type) {
			case map[string]any, []any:
				return old, true // containers are duplicated in their array below, not nested
			}
			return []any{old, old}, true
		case 6:
			return map[string]any{}, true
		case 7:
			return fmt.Sprint(old) + text, true
		default:
			return int64(math.MinInt32) - number%2, true
		}
	}
	if len(path) == 0 {
		v, _ := change(tree)
		return v
	}
	parent := tree
	for _, step := range path[:len(path)-1] {
		switch p := parent.(type) {
		case map[string]any:
			parent = p[step.(string)]
		case []any:
			parent = p[step.(int)]
		}
	}
	switch p := parent.(type) {
	case map[string]any:
		k := path[len(path)-1].(string)
		if v, keep := change(p[k]); keep {
			p[k] = v
		} else {
			delete(p, k)
		}
	case []any:
		i := path[len(path)-1].(int)
		if op%9 == 5 {
			// One more copy of the element: the array grows by one, the tree stays small.
			return setAt(tree, path[:len(path)-1], append(slices.Clone(p), p[i]))
		}
		if v, keep := change(p[i]); keep {
			p[i] = v
		} else {
			p[i] = nil
		}
	}
	return tree
}

// setAt returns tree with the value at path replaced by v.
func setAt(tree any, path []any, v any) any {
	if len(path) == 0 {
		return v
	}
	parent := tree
	for _, step := range path[:len(path)-1] {
		switch p := parent.(type) {
		case map[string]any:
			parent = p[step.(string)]
		case []any:
			parent = p[step.(int)]
		}
	}
	switch p := parent.(type) {
	case map[string]any:
		p[path[len(path)-1].(string)] = v
	case []any:
		p[path[len(path)-1].(int)] = v
	}
	return tree
}
