package kubeobj

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestQuantityMap(t *testing.T) {
	obj := map[string]any{"spec": map[string]any{"resources": map[string]any{"requests": map[string]any{
		"vpc.amazonaws.com/efa": int64(8), "cpu": "1500m", "memory": float64(1.5), "bad": []any{"x"},
	}}}}
	want := map[string]string{"vpc.amazonaws.com/efa": "8", "cpu": "1500m", "memory": "1.5"}
	if diff := cmp.Diff(want, quantityMap(obj, "spec", "resources", "requests")); diff != "" {
		t.Errorf("quantityMap (-want +got):\n%s", diff)
	}
	if got := quantityMap(obj, "spec", "missing"); got != nil {
		t.Errorf("quantityMap of a missing path = %v, want nil", got)
	}
}
