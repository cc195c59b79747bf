package testutil

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil/kubelist"
)

// LoadList returns the items of the kubectl List YAML or JSON file at path, and fails the
// test when it cannot be read.
func LoadList(t testing.TB, path string) []unstructured.Unstructured {
	t.Helper()
	items, err := kubelist.Read(path)
	if err != nil {
		t.Fatalf("loading fixture: %v", err)
	}
	return items
}
