package kubeobj

import (
	"math"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// The readers below take a field out of an unstructured object and return the zero value
// when the field is absent or has another type than expected, so that one malformed field
// never fails collection.

// field returns the value at path, or nil.
func field(m map[string]any, path ...string) any {
	v, ok, err := unstructured.NestedFieldNoCopy(m, path...)
	if !ok || err != nil {
		return nil
	}
	return v
}

// str returns the string at path.
func str(m map[string]any, path ...string) string {
	v, _ := field(m, path...).(string)
	return v
}

// object returns the object at path.
func object(m map[string]any, path ...string) map[string]any {
	v, _ := field(m, path...).(map[string]any)
	return v
}

// objects returns the objects of the list at path, skipping items that are not objects.
func objects(m map[string]any, path ...string) []map[string]any {
	list, _ := field(m, path...).([]any)
	var out []map[string]any
	for _, item := range list {
		if obj, ok := item.(map[string]any); ok {
			out = append(out, obj)
		}
	}
	return out
}

// strs returns the strings of the list at path, skipping items that are not strings.
func strs(m map[string]any, path ...string) []string {
	list, _ := field(m, path...).([]any)
	var out []string
	for _, item := range list {
		if s, ok := item.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// strMap returns the string values of the object at path, skipping the others.
func strMap(m map[string]any, path ...string) map[string]string {
	obj := object(m, path...)
	if len(obj) == 0 {
		return nil
	}
	out := make(map[string]string, len(obj))
	for k, v := range obj {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// int32At returns the number at path when it is a whole number that fits an int32. JSON
// decoders give int64 or float64; both are accepted.
func int32At(m map[string]any, path ...string) *int32 {
	return toInt32(field(m, path...))
}

// toInt32 converts a decoded JSON number to an int32, or returns nil.
func toInt32(v any) *int32 {
	var f float64
	switch n := v.(type) {
	case int64:
		f = float64(n)
	case int:
		f = float64(n)
	case int32:
		f = float64(n)
	case float64:
		f = n
	default:
		return nil
	}
	if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return nil
	}
	i := int32(f)
	return &i
}

// boolAt returns the boolean at path, or nil.
func boolAt(m map[string]any, path ...string) *bool {
	b, ok := field(m, path...).(bool)
	if !ok {
		return nil
	}
	return &b
}

// conditions returns status.conditions as they are, dropping items without a type.
func conditions(m map[string]any) []snapshot.Condition {
	var out []snapshot.Condition
	for _, c := range objects(m, "status", "conditions") {
		cond, ok := ConditionOf(str(c, "type"), str(c, "status"), str(c, "reason"),
			str(c, "message"), str(c, "lastTransitionTime"))
		if ok {
			out = append(out, cond)
		}
	}
	return out
}

// ConditionOf is the condition of those fields; not ok without a type.
func ConditionOf(typ, status, reason, message, lastTransition string) (snapshot.Condition, bool) {
	if typ == "" {
		return snapshot.Condition{}, false
	}
	cond := snapshot.Condition{Type: typ, Status: status, Reason: reason, Message: message}
	if t, err := time.Parse(time.RFC3339, lastTransition); err == nil {
		cond.LastTransitionTime = t.UTC()
	}
	return cond, true
}

// quantityMap reads a map of resource quantities, written as strings or as JSON numbers,
// into quantity strings; other values are skipped.
func quantityMap(m map[string]any, path ...string) map[string]string {
	out := map[string]string{}
	for k, v := range object(m, path...) {
		switch q := v.(type) {
		case string:
			out[k] = q
		case int64:
			out[k] = strconv.FormatInt(q, 10)
		case float64:
			out[k] = strconv.FormatFloat(q, 'f', -1, 64)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
