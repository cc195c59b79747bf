// Package deploy holds the kustomize manifests that run `kubectl karpnet serve` in a cluster;
// its tests keep them in step with docs/permissions.md and with the EC2 calls the
// collector can make. test/e2e renders and applies them against a real API server.
package deploy

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
)

// permissionsBlock returns the first fenced block of lang in docs/permissions.md.
func permissionsBlock(t *testing.T, lang string) string {
	t.Helper()
	raw, err := os.ReadFile("../docs/permissions.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindStringSubmatch(string(raw))
	if m == nil {
		t.Fatalf("docs/permissions.md has no %s block", lang)
	}
	return m[1]
}

type policy struct {
	Statement []struct {
		Effect   string
		Action   []string
		Resource string
	}
}

func TestIAMPolicyIsTheDocsAndCoversEveryEC2Call(t *testing.T) {
	raw, err := os.ReadFile("iam-policy.json")
	if err != nil {
		t.Fatal(err)
	}
	var ours, documented policy
	if err := json.Unmarshal(raw, &ours); err != nil {
		t.Fatalf("iam-policy.json: %v", err)
	}
	if err := json.Unmarshal([]byte(permissionsBlock(t, "json")), &documented); err != nil {
		t.Fatalf("the IAM policy of docs/permissions.md: %v", err)
	}
	if diff := cmp.Diff(documented, ours); diff != "" {
		t.Errorf("deploy/iam-policy.json differs from the policy of docs/permissions.md (-docs +deploy):\n%s", diff)
	}
	if len(ours.Statement) != 1 || ours.Statement[0].Effect != "Allow" {
		t.Fatalf("iam-policy.json: want one Allow statement, got %+v", ours.Statement)
	}
	var calls []string
	api := reflect.TypeFor[collect.EC2API]()
	for i := range api.NumMethod() {
		calls = append(calls, "ec2:"+api.Method(i).Name)
	}
	actions := slices.Sorted(slices.Values(ours.Statement[0].Action))
	if slices.Sort(calls); !slices.Equal(calls, actions) {
		t.Errorf("the policy allows %q; the collector's EC2 interface calls %q: they must be the same", actions, calls)
	}
	for _, a := range actions {
		if !strings.HasPrefix(a, "ec2:Describe") && !strings.HasPrefix(a, "ec2:Get") {
			t.Errorf("the policy allows %s: karpnet only reads (ec2:Describe* and ec2:Get*)", a)
		}
	}
}

func TestClusterRoleIsTheDocs(t *testing.T) {
	raw, err := os.ReadFile("clusterrole.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ours, documented rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(raw, &ours); err != nil {
		t.Fatalf("clusterrole.yaml: %v", err)
	}
	if err := yaml.UnmarshalStrict([]byte(permissionsBlock(t, "yaml")), &documented); err != nil {
		t.Fatalf("the ClusterRole of docs/permissions.md: %v", err)
	}
	if diff := cmp.Diff(documented.Rules, ours.Rules); diff != "" {
		t.Errorf("deploy/clusterrole.yaml's rules differ from the ClusterRole of docs/permissions.md (-docs +deploy):\n%s", diff)
	}
	for _, r := range ours.Rules {
		for _, v := range r.Verbs {
			if v != "get" && v != "list" {
				t.Errorf("rule %v grants %s: karpnet only gets and lists", r.Resources, v)
			}
		}
	}
}
