package hostile

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// continuePrefix starts the continue tokens of healthy paging; the rest is an offset.
const continuePrefix = "offset-"

// list answers a list request: the objects that match labelSelector and fieldSelector, one
// page of limit from the continue token's offset, or all of them at resourceVersion=0 as the
// watch cache answers. A tokens fault replaces the continue token.
func (k *Kube) list(w http.ResponseWriter, r *http.Request, c *collection, f *fault) {
	q := r.URL.Query()
	lsel, err := labels.Parse(q.Get("labelSelector"))
	if err != nil {
		writeStatus(w, http.StatusBadRequest, "BadRequest", "unable to parse requirement: "+err.Error())
		return
	}
	fsel, err := fields.ParseSelector(q.Get("fieldSelector"))
	if err != nil {
		writeStatus(w, http.StatusBadRequest, "BadRequest", "invalid field selector: "+err.Error())
		return
	}
	k.mu.Lock()
	var items []map[string]any
	for _, obj := range c.objects {
		m, _ := obj["metadata"].(map[string]any)
		l, _ := m["labels"].(map[string]any)
		if lsel.Matches(labelSet(l)) && fsel.Matches(fieldSet(obj)) {
			items = append(items, obj)
		}
	}
	k.mu.Unlock()

	token := q.Get("continue")
	start := 0
	if f.tokens == 0 && token != "" {
		start, err = strconv.Atoi(strings.TrimPrefix(token, continuePrefix))
		if err != nil || !strings.HasPrefix(token, continuePrefix) || start < 0 || start > len(items) {
			writeStatus(w, http.StatusBadRequest, "BadRequest", "continue key is not valid")
			return
		}
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	watchCache := q.Get("resourceVersion") == "0" && token == ""
	next := ""
	if end := start + limit; limit > 0 && !watchCache && end < len(items) {
		items, next = items[start:end], continuePrefix+strconv.Itoa(end)
	} else {
		items = items[start:]
	}
	if f.tokens != 0 {
		next = f.tokens.next(token)
	}
	if items == nil {
		items = []map[string]any{}
	}
	metadata := map[string]any{"resourceVersion": "1000"}
	if next != "" {
		metadata["continue"] = next
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"kind": c.kind + "List", "apiVersion": c.apiVersion, "metadata": metadata, "items": items,
	})
}

// labelSet returns an object's labels as a set.
func labelSet(l map[string]any) labels.Set {
	out := make(labels.Set, len(l))
	for k, v := range l {
		out[k], _ = v.(string)
	}
	return out
}

// fieldSet returns the fields a field selector may name: metadata.name, metadata.namespace
// and every top-level string field (an Event's reason and type).
func fieldSet(obj map[string]any) fields.Set {
	out := fields.Set{"metadata.name": meta(obj, "name"), "metadata.namespace": meta(obj, "namespace")}
	for k, v := range obj {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// Tokens says how a tokens fault bends continue tokens.
type Tokens int

const (
	// CycleTokens answers every list with a continue token that alternates between two
	// values, A then B then A, and the first page's items each time.
	CycleTokens Tokens = iota + 1
	// EndlessTokens answers every list with a continue token never seen before.
	EndlessTokens
)

// next returns the token that follows token under t.
func (t Tokens) next(token string) string {
	switch t {
	case CycleTokens:
		if token == "cycle-a" {
			return "cycle-b"
		}
		return "cycle-a"
	case EndlessTokens:
		n, _ := strconv.Atoi(strings.TrimPrefix(token, "endless-"))
		return fmt.Sprintf("endless-%d", n+1)
	}
	return ""
}
