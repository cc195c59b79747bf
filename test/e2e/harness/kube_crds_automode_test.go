package harness

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

func TestKubeAutoModeManifest(t *testing.T) {
	crds, err := CRDsV1AutoMode.load()
	if err != nil {
		t.Fatalf("loading %s: %v", CRDsV1AutoMode, err)
	}
	var got []string
	for _, crd := range crds {
		got = append(got, crd.GetName()+": "+kubeVersionSummary(t, crd))
		if scope, _, _ := unstructured.NestedString(crd.Object, "spec", "scope"); scope != "Cluster" {
			t.Errorf("%s scope: got %q, want Cluster", crd.GetName(), scope)
		}
	}
	want := []string{
		"nodepools.karpenter.sh: v1*",
		"nodeclaims.karpenter.sh: v1*",
		"ec2nodeclasses.karpenter.k8s.aws: v1* v1beta1",
		"nodeclasses.eks.amazonaws.com: v1*",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("CRDs mismatch (-want +got):\n%s", diff)
	}
	auto := crds[3]
	if kind, _, _ := unstructured.NestedString(auto.Object, "spec", "names", "kind"); kind != "NodeClass" {
		t.Errorf("kind: got %q, want NodeClass", kind)
	}
	if got := kubeServedGVRs(auto); len(got) != 1 || got[0] != kubeAutoNodeClassesGVR {
		t.Errorf("served: got %v, want [%v]", got, kubeAutoNodeClassesGVR)
	}
	versions, _, _ := unstructured.NestedSlice(auto.Object, "spec", "versions")
	spec, _, _ := unstructured.NestedMap(versions[0].(map[string]any), "schema", "openAPIV3Schema", "properties", "spec", "properties")
	for _, field := range []string{"role", "instanceProfile", "subnetSelectorTerms", "securityGroupSelectorTerms",
		"podSubnetSelectorTerms", "podSecurityGroupSelectorTerms", "snatPolicy", "networkPolicy",
		"networkPolicyEventLogs", "advancedNetworking", "placementGroupSelector", "capacityReservationSelectorTerms"} {
		if _, ok := spec[field]; !ok {
			t.Errorf("spec schema has no %s", field)
		}
	}
	// The set's CRDs are those of v1 plus the Auto Mode one, so v1 stays as it was.
	v1, err := CRDsV1.load()
	if err != nil {
		t.Fatalf("loading v1: %v", err)
	}
	if len(v1) != 3 {
		t.Errorf("v1 set: got %d CRDs, want 3", len(v1))
	}
}

// kubeTestAutoMode installs CRDsV1AutoMode, stores an Auto Mode NodeClass with the fields
// karpnet reads and fields the schema does not type, writes its status, checks that invalid
// values are refused, and that going back to CRDsV1 removes the CRD.
func kubeTestAutoMode(t *testing.T, k *Kube, dyn dynamic.Interface) {
	ctx := t.Context()
	if err := k.InstallCRDs(ctx, CRDsV1AutoMode); err != nil {
		t.Fatalf("InstallCRDs(%s): %v", CRDsV1AutoMode, err)
	}
	ec2v1 := schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"}
	if _, err := dyn.Resource(ec2v1).List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("list ec2nodeclasses with %s: %v", CRDsV1AutoMode, err)
	}
	spec := map[string]any{
		"role":                          "AutoModeNodeRole",
		"subnetSelectorTerms":           []any{map[string]any{"id": "subnet-0a1b2c3d"}},
		"securityGroupSelectorTerms":    []any{map[string]any{"id": "sg-0a1b2c3d"}},
		"podSubnetSelectorTerms":        []any{map[string]any{"tags": map[string]any{"kubernetes.io/role/pod": "1"}}},
		"podSecurityGroupSelectorTerms": []any{map[string]any{"id": "sg-0e5f"}},
		"snatPolicy":                    "Random",
		"networkPolicy":                 "DefaultAllow",
		"advancedNetworking": map[string]any{
			"ipv4PrefixSize": "32", "associatePublicIPAddress": false,
			"networkInterfaces": []any{map[string]any{"networkCardIndex": int64(0), "deviceIndex": int64(0),
				"interfaceType": "interface", "secondaryIPv4PrefixCount": int64(2), "secondaryIPv4Count": int64(1)}},
			"futureSetting": "kept",
		},
		"placementGroupSelector": map[string]any{"name": "training"},
		"ephemeralStorage":       map[string]any{"size": "80Gi"},
	}
	nc := kubeObject("eks.amazonaws.com/v1", "NodeClass", "pods", spec)
	got := kubeCreateAndGet(t, dyn, kubeAutoNodeClassesGVR, nc)
	if diff := cmp.Diff(nc.Object["spec"], got.Object["spec"]); diff != "" {
		t.Errorf("spec mismatch (-want +got):\n%s", diff)
	}
	status := map[string]any{
		"subnets":         []any{map[string]any{"id": "subnet-0a1b2c3d", "zone": "us-west-2a", "zoneID": "usw2-az1"}},
		"securityGroups":  []any{map[string]any{"id": "sg-0a1b2c3d"}},
		"instanceProfile": "eks-us-west-2-auto",
		"conditions": []any{map[string]any{"type": "InstanceProfileReady", "status": "False",
			"reason": "UnauthorizedNodeRole", "message": "unauthorized", "lastTransitionTime": "2026-01-02T03:04:05Z"}},
		"podSubnets": []any{map[string]any{"id": "subnet-0e5f"}},
	}
	got.Object["status"] = status
	updated, err := dyn.Resource(kubeAutoNodeClassesGVR).UpdateStatus(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update status: %v", err)
	}
	if diff := cmp.Diff(status, updated.Object["status"]); diff != "" {
		t.Errorf("status mismatch (-want +got):\n%s", diff)
	}

	for name, bad := range map[string]map[string]any{
		"prefix-size": {"role": "r", "advancedNetworking": map[string]any{"ipv4PrefixSize": "28"}},
		"id-and-tags": {"role": "r", "podSubnetSelectorTerms": []any{map[string]any{"id": "subnet-1", "tags": map[string]any{"a": "b"}}}},
		"snat":        {"role": "r", "snatPolicy": "Sometimes"},
		"both-roles":  {"role": "r", "instanceProfile": "eks-p"},
	} {
		_, err := dyn.Resource(kubeAutoNodeClassesGVR).Create(ctx, kubeObject("eks.amazonaws.com/v1", "NodeClass", name, bad), metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) {
			t.Errorf("create NodeClass %s: got %v, want Invalid", name, err)
		}
	}

	if err := k.Reset(ctx); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	if list, err := dyn.Resource(kubeAutoNodeClassesGVR).List(ctx, metav1.ListOptions{}); err != nil || len(list.Items) != 0 {
		t.Errorf("NodeClasses after Reset: got %v (error %v), want none", list, err)
	}
	if err := k.InstallCRDs(ctx, CRDsV1); err != nil {
		t.Fatalf("InstallCRDs(v1): %v", err)
	}
	if _, err := dyn.Resource(kubeAutoNodeClassesGVR).List(ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("list nodeclasses after InstallCRDs(v1): got %v, want NotFound", err)
	}
}
