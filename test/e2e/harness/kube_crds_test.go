package harness

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestKubeCRDManifests(t *testing.T) {
	for _, tc := range []struct {
		set  CRDSet
		want []string // name: served versions, storage version marked with *
	}{
		{CRDsV1, []string{
			"nodepools.karpenter.sh: v1*",
			"nodeclaims.karpenter.sh: v1*",
			"ec2nodeclasses.karpenter.k8s.aws: v1* v1beta1",
		}},
		{CRDsV1beta1, []string{
			"nodepools.karpenter.sh: v1beta1*",
			"nodeclaims.karpenter.sh: v1beta1*",
			"ec2nodeclasses.karpenter.k8s.aws: v1beta1*",
		}},
		{CRDsNone, nil},
	} {
		t.Run(string(tc.set), func(t *testing.T) {
			file, err := tc.set.manifest()
			if err != nil {
				t.Fatalf("manifest: %v", err)
			}
			crds, err := kubeLoadManifest(file)
			if err != nil {
				t.Fatalf("loading %s: %v", file, err)
			}
			var got []string
			for _, crd := range crds {
				got = append(got, crd.GetName()+": "+kubeVersionSummary(t, crd))
				if scope, _, _ := unstructured.NestedString(crd.Object, "spec", "scope"); scope != "Cluster" {
					t.Errorf("%s scope: got %q, want Cluster", crd.GetName(), scope)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("CRDs mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// kubeVersionSummary lists the served versions of crd, marking the storage version with *,
// and fails the test when a version lacks a schema or the status subresource.
func kubeVersionSummary(t *testing.T, crd *unstructured.Unstructured) string {
	t.Helper()
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	var out []string
	for _, v := range versions {
		m := v.(map[string]any)
		name := m["name"].(string)
		if _, ok, _ := unstructured.NestedMap(m, "schema", "openAPIV3Schema", "properties", "spec"); !ok {
			t.Errorf("%s %s: no spec schema", crd.GetName(), name)
		}
		if _, ok, _ := unstructured.NestedMap(m, "subresources", "status"); !ok {
			t.Errorf("%s %s: no status subresource", crd.GetName(), name)
		}
		if served, _ := m["served"].(bool); !served {
			continue
		}
		if storage, _ := m["storage"].(bool); storage {
			name += "*"
		}
		out = append(out, name)
	}
	return strings.Join(out, " ")
}

func TestKubeVPCManifests(t *testing.T) {
	for _, c := range []struct {
		file, name string
		gvr        schema.GroupVersionResource
	}{
		{"crds/eniconfig.yaml", "eniconfigs.crd.k8s.amazonaws.com", kubeENIConfigsGVR},
		{"crds/cninode.yaml", "cninodes.vpcresources.k8s.aws", kubeCNINodesGVR},
		{"crds/securitygrouppolicy.yaml", "securitygrouppolicies.vpcresources.k8s.aws", kubeSGPsGVR},
		{"crds/ciliumnode.yaml", "ciliumnodes.cilium.io", kubeCiliumNodesGVR},
	} {
		crds, err := kubeLoadManifest(c.file)
		if err != nil {
			t.Fatalf("loading %s: %v", c.file, err)
		}
		var names []string
		for _, crd := range crds {
			names = append(names, crd.GetName())
		}
		if diff := cmp.Diff([]string{c.name}, names); diff != "" {
			t.Fatalf("%s: CRDs mismatch (-want +got):\n%s", c.file, diff)
		}
		if got := kubeServedGVRs(crds[0]); len(got) != 1 || got[0] != c.gvr {
			t.Errorf("%s served: got %v, want [%v]", c.file, got, c.gvr)
		}
	}
}

func TestKubeShortNames(t *testing.T) {
	for _, set := range []CRDSet{CRDsV1, CRDsV1beta1} {
		file, _ := set.manifest()
		crds, err := kubeLoadManifest(file)
		if err != nil {
			t.Fatalf("loading %s: %v", file, err)
		}
		i := slices.IndexFunc(crds, func(u *unstructured.Unstructured) bool { return u.GetName() == "ec2nodeclasses.karpenter.k8s.aws" })
		if i < 0 {
			t.Fatalf("%s: no EC2NodeClass CRD", set)
		}
		short, _, _ := unstructured.NestedStringSlice(crds[i].Object, "spec", "names", "shortNames")
		if diff := cmp.Diff([]string{"ec2nc", "ec2ncs"}, short); diff != "" {
			t.Errorf("%s short names mismatch (-want +got):\n%s", set, diff)
		}
	}
}

func TestKubeUnknownCRDSet(t *testing.T) {
	_, err := CRDSet("v2").manifest()
	if err == nil || !strings.Contains(err.Error(), `unknown CRD set "v2"`) {
		t.Errorf("manifest of v2: got %v, want an unknown CRD set error", err)
	}
}
