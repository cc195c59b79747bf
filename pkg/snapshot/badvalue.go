package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// badValue finds the first value in data that decodes as JSON but not as the field it is in,
// for the fields whose decoders do not say where they failed: times (RFC 3339) and resource
// quantities. It returns the value's path (nodes[3].metadata.creationTimestamp) and the value.
func badValue(data []byte) (string, string, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var path []pathStep
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", "", false
		}
		top := len(path) - 1
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			path = path[:top]
			valueDone(path)
			continue
		}
		if top >= 0 && !path[top].array && !path[top].keyed {
			path[top].key, path[top].keyed = tok.(string), true
			continue
		}
		if top >= 0 && path[top].array {
			path[top].index++
		}
		switch t := tok.(type) {
		case json.Delim:
			path = append(path, pathStep{array: t == '[', index: -1})
			continue
		case string:
			if invalidLeaf(path, t) {
				return pathText(path), t, true
			}
		case json.Number:
			if invalidLeaf(path, t.String()) {
				return pathText(path), t.String(), true
			}
		}
		valueDone(path)
	}
}

// valueDone moves the walk past a value: the enclosing object waits for its next key.
func valueDone(path []pathStep) {
	if top := len(path) - 1; top >= 0 && !path[top].array {
		path[top].keyed = false
	}
}

// pathStep is one level of an object or array being walked.
type pathStep struct {
	array bool
	index int    // the array element the walk is at
	key   string // the object key the walk is at
	keyed bool   // key was read and its value not yet
}

// pathText renders a walk's position as nodes[3].metadata.creationTimestamp.
func pathText(path []pathStep) string {
	var b strings.Builder
	for i, p := range path {
		switch {
		case p.array:
			fmt.Fprintf(&b, "[%d]", p.index)
		case i > 0:
			b.WriteString("." + p.key)
		default:
			b.WriteString(p.key)
		}
	}
	return b.String()
}

// invalidLeaf reports whether a leaf value fails the decoder of the field it is in: a time
// field that is not RFC 3339, or a resource quantity that does not parse.
func invalidLeaf(path []pathStep, value string) bool {
	top := len(path) - 1
	if top < 0 || path[top].array {
		return false
	}
	key := path[top].key
	if timeKey(key) {
		_, err := time.Parse(time.RFC3339, value)
		return err != nil
	}
	if top > 0 && !path[top-1].array && quantityParent(path[top-1].key) {
		_, err := resource.ParseQuantity(strings.TrimSpace(value))
		return err != nil
	}
	return false
}

// timeKey reports whether a key holds a time in karpnet's snapshots or Kubernetes objects.
func timeKey(key string) bool {
	switch key {
	case "taken", "firstSeen", "lastSeen", "timeAdded", "created", "deleting", "last":
		return true
	}
	return strings.HasSuffix(key, "Time") || strings.HasSuffix(key, "Timestamp")
}

// quantityParent reports whether an object under key maps resource names to quantities.
func quantityParent(key string) bool {
	switch key {
	case "capacity", "allocatable", "requests", "limits":
		return true
	}
	return false
}
