// Package deploy holds the kustomize manifests that run `kubectl karpnet serve` in a cluster;
// its tests keep them in step with the README's Permissions section and with the EC2 calls the
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

// readmeBlock returns the first fenced block of lang in the README's Permissions section.
func readmeBlock(t *testing.T, lang string) string {
	t.Helper()
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## Permissions\n")
	if !ok {
		t.Fatal("README.md has no Permissions section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindStringSubmatch(section)
	if m == nil {
		t.Fatalf("the Permissions section has no %s block", lang)
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

func TestIAMPolicyIsTheREADMEsAndCoversEveryEC2Call(t *testing.T) {
	raw, err := os.ReadFile("iam-policy.json")
	if err != nil {
		t.Fatal(err)
	}
	var ours, readme policy
	if err := json.Unmarshal(raw, &ours); err != nil {
		t.Fatalf("iam-policy.json: %v", err)
	}
	if err := json.Unmarshal([]byte(readmeBlock(t, "json")), &readme); err != nil {
		t.Fatalf("the README's IAM policy: %v", err)
	}
	if diff := cmp.Diff(readme, ours); diff != "" {
		t.Errorf("deploy/iam-policy.json differs from the README's Permissions policy (-README +deploy):\n%s", diff)
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
		if !strings.HasPrefix(a, "ec2:Describe") {
			t.Errorf("the policy allows %s: karpnet only reads (ec2:Describe*)", a)
		}
	}
}

func TestClusterRoleIsTheREADMEs(t *testing.T) {
	raw, err := os.ReadFile("clusterrole.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ours, readme rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(raw, &ours); err != nil {
		t.Fatalf("clusterrole.yaml: %v", err)
	}
	if err := yaml.UnmarshalStrict([]byte(readmeBlock(t, "yaml")), &readme); err != nil {
		t.Fatalf("the README's ClusterRole: %v", err)
	}
	if diff := cmp.Diff(readme.Rules, ours.Rules); diff != "" {
		t.Errorf("deploy/clusterrole.yaml's rules differ from the README's Permissions ClusterRole (-README +deploy):\n%s", diff)
	}
	for _, r := range ours.Rules {
		for _, v := range r.Verbs {
			if v != "get" && v != "list" {
				t.Errorf("rule %v grants %s: karpnet only gets and lists", r.Resources, v)
			}
		}
	}
}
