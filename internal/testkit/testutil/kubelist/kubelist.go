// Package kubelist reads kubectl List fixtures, the output of `kubectl get -o yaml` or
// `-o json`, into unstructured objects. It registers no flags, so programs as well as tests
// can use it.
package kubelist

import (
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Read returns the items of the kubectl List in file, YAML or JSON.
func Read(file string) ([]unstructured.Unstructured, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("converting %s to JSON: %w", file, err)
	}
	var list unstructured.UnstructuredList
	if err := list.UnmarshalJSON(js); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", file, err)
	}
	return list.Items, nil
}
