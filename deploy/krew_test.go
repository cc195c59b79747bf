package deploy

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
)

// TestKrewCaveatsNameWhatKarpnetNeeds holds the krew manifest's caveats, which krew prints
// after installing, to what karpnet calls: every EC2 action of the collector's EC2 interface
// (which deploy/iam-policy.json allows) and every resource, API group and object name of
// deploy/clusterrole.yaml. .goreleaser.yaml's copy of the caveats is kept equal to this one by
// hack/release/check.sh.
func TestKrewCaveatsNameWhatKarpnetNeeds(t *testing.T) {
	raw, err := os.ReadFile("../plugins/krew.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var manifest struct {
		Spec struct {
			Caveats string `json:"caveats"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(raw, &manifest); err != nil {
		t.Fatalf("plugins/krew.yaml: %v", err)
	}
	caveats := manifest.Spec.Caveats
	words := map[string]bool{}
	for _, w := range regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9:./-]*[A-Za-z0-9]`).FindAllString(caveats, -1) {
		words[w] = true
		if _, name, ok := strings.Cut(w, "/"); ok { // kube-system/NAME
			words[name] = true
		}
	}
	api := reflect.TypeFor[collect.EC2API]()
	for i := range api.NumMethod() {
		if action := "ec2:" + api.Method(i).Name; !words[action] {
			t.Errorf("the caveats do not name %s, which the collector calls (collect.EC2API)", action)
		}
	}
	raw, err = os.ReadFile("clusterrole.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(raw, &role); err != nil {
		t.Fatalf("clusterrole.yaml: %v", err)
	}
	for _, r := range role.Rules {
		var want []string
		want = append(want, r.Resources...)
		want = append(want, r.ResourceNames...)
		for _, g := range r.APIGroups {
			if g != "" {
				want = append(want, g)
			}
		}
		for _, w := range want {
			if !words[w] {
				t.Errorf("the caveats do not name %s, of the ClusterRole's rule %v %v %v", w, r.APIGroups, r.Resources, r.Verbs)
			}
		}
	}
}
