package collect

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sfake "k8s.io/client-go/kubernetes/fake"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestKubeKubelet(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   map[string]any
		want *snapshot.Kubelet
	}{
		{"absent", nil, nil},
		{"integer", map[string]any{"maxPods": int64(110)}, &snapshot.Kubelet{MaxPods: kubeI32(110)}},
		{"float from JSON", map[string]any{"maxPods": float64(58)}, &snapshot.Kubelet{MaxPods: kubeI32(58)}},
		{"CEL expression", map[string]any{"maxPods": "self.instanceType.maxENIs * 8"},
			&snapshot.Kubelet{MaxPodsExpression: "self.instanceType.maxENIs * 8"}},
		{"pods per core", map[string]any{"podsPerCore": int64(4), "maxPods": int64(20)},
			&snapshot.Kubelet{MaxPods: kubeI32(20), PodsPerCore: kubeI32(4)}},
		{"fractional", map[string]any{"maxPods": 110.5}, nil},
		{"too large", map[string]any{"maxPods": int64(1) << 40}, nil},
		{"wrong type", map[string]any{"maxPods": true, "podsPerCore": []any{int64(1)}}, nil},
		{"no density fields", map[string]any{"clusterDNS": []any{"10.100.0.10"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, kubeKubelet(tc.in)); diff != "" {
				t.Errorf("kubelet mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKubeAMIFamily(t *testing.T) {
	terms := func(aliases ...string) []any {
		var out []any
		for _, a := range aliases {
			out = append(out, map[string]any{"alias": a})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		spec map[string]any
		want string
	}{
		{"v1beta1 amiFamily", map[string]any{"amiFamily": "AL2"}, "AL2"},
		{"amiFamily wins over alias", map[string]any{"amiFamily": "Custom", "amiSelectorTerms": terms("al2023@latest")}, "Custom"},
		{"al2023", map[string]any{"amiSelectorTerms": terms("al2023@latest")}, "AL2023"},
		{"al2", map[string]any{"amiSelectorTerms": terms("al2@v20240807")}, "AL2"},
		{"bottlerocket", map[string]any{"amiSelectorTerms": terms("bottlerocket@v1.46.0")}, "Bottlerocket"},
		{"windows2022", map[string]any{"amiSelectorTerms": terms("windows2022@latest")}, "Windows2022"},
		{"windows2019", map[string]any{"amiSelectorTerms": terms("windows2019@latest")}, "Windows2019"},
		{"terms without alias", map[string]any{"amiSelectorTerms": []any{map[string]any{"id": "ami-0123"}}}, ""},
		{"none", map[string]any{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := kubeAMIFamily(map[string]any{"spec": tc.spec}); got != tc.want {
				t.Errorf("amiFamily: got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKubeNodeClassRef(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   map[string]any
		want snapshot.NodeClassRef
	}{
		{"v1", map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
			snapshot.NodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}},
		{"v1beta1 with apiVersion", map[string]any{"apiVersion": "karpenter.k8s.aws/v1beta1", "name": "default"},
			snapshot.NodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}},
		{"v1beta1 name only", map[string]any{"name": "default"},
			snapshot.NodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}},
		{"EKS Auto Mode", map[string]any{"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"},
			snapshot.NodeClassRef{Group: "eks.amazonaws.com", Kind: "NodeClass", Name: "default"}},
		{"absent", nil, snapshot.NodeClassRef{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, kubeNodeClassRef(tc.in)); diff != "" {
				t.Errorf("nodeClassRef mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKubeDecodeWrongShapes(t *testing.T) {
	obj := func(apiVersion, kind string, rest map[string]any) *unstructured.Unstructured {
		m := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": "odd", "labels": "x"}}
		for k, v := range rest {
			m[k] = v
		}
		return &unstructured.Unstructured{Object: m}
	}
	bad := map[string]any{"spec": "oops", "status": []any{"conditions"}}
	deep := map[string]any{"spec": map[string]any{"template": []any{}, "nodeClassRef": "default", "kubelet": int64(3)},
		"status": map[string]any{"conditions": map[string]any{"type": "Ready"}, "subnets": "subnet-1"}}
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"nodeclaim", kubeDecodeNodeClaim(obj("karpenter.sh/v1", "NodeClaim", bad)),
			snapshot.NodeClaim{Name: "odd", APIVersion: "karpenter.sh/v1"}},
		{"nodeclaim deep", kubeDecodeNodeClaim(obj("karpenter.sh/v1", "NodeClaim", deep)),
			snapshot.NodeClaim{Name: "odd", APIVersion: "karpenter.sh/v1"}},
		{"nodepool", kubeDecodeNodePool(obj("karpenter.sh/v1", "NodePool", bad)),
			snapshot.NodePool{Name: "odd", APIVersion: "karpenter.sh/v1"}},
		{"nodepool deep", kubeDecodeNodePool(obj("karpenter.sh/v1", "NodePool", deep)),
			snapshot.NodePool{Name: "odd", APIVersion: "karpenter.sh/v1"}},
		{"ec2nodeclass", kubeDecodeNodeClass(obj("karpenter.k8s.aws/v1", "EC2NodeClass", bad)),
			snapshot.EC2NodeClass{Name: "odd", APIVersion: "karpenter.k8s.aws/v1"}},
		{"ec2nodeclass deep", kubeDecodeNodeClass(obj("karpenter.k8s.aws/v1", "EC2NodeClass", deep)),
			snapshot.EC2NodeClass{Name: "odd", APIVersion: "karpenter.k8s.aws/v1"}},
		{"eniconfig", kubeDecodeENIConfig(obj("crd.k8s.amazonaws.com/v1alpha1", "ENIConfig", bad)),
			snapshot.ENIConfig{Name: "odd"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("decoded mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCollectKubeMalformedNodeClass(t *testing.T) {
	kube := k8sfake.NewClientset(kubeTyped(t, "nodes.yaml", "aws-node.yaml")...)
	served := []schema.GroupVersionResource{kubeNodeClaimsV1, kubeNodePoolsV1, kubeNodeClassesV1, kubeENIConfigsV1}
	dyn := kubeDynamic(served, kubeUnstructured(t, "ec2nodeclasses-v1.yaml", "ec2nodeclass-malformed.yaml")...)
	s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, Scope{})
	if err != nil {
		t.Fatalf("collectKube: %v", err)
	}
	if len(s.Gaps) != 0 {
		t.Errorf("gaps: got %v, want none", s.Gaps)
	}
	var names []string
	for _, c := range s.NodeClasses {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"broken", "default", "efa", "spare"}, names); diff != "" {
		t.Fatalf("ec2nodeclasses mismatch (-want +got):\n%s", diff)
	}
	want := snapshot.EC2NodeClass{
		Name: "broken", APIVersion: "karpenter.k8s.aws/v1",
		SecurityGroupSelectorTerms: []snapshot.SelectorTerm{{ID: "sg-0123456789abcdef0"}},
		NetworkInterfaces:          []snapshot.NetworkInterface{{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "efa-only"}},
		StatusSecurityGroups:       []snapshot.SecurityGroupStatus{{ID: "sg-0fedcba9876543210", Name: "web"}},
		Conditions:                 []snapshot.Condition{{Type: "Ready", Status: "False"}},
	}
	if diff := cmp.Diff(want, s.NodeClasses[0]); diff != "" {
		t.Errorf("malformed ec2nodeclass mismatch (-want +got):\n%s", diff)
	}
}

func TestKubeDecodeNodePoolDisruption(t *testing.T) {
	pool := func(disruption map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
			"metadata": map[string]any{"name": "general"}, "spec": map[string]any{}}}
		if disruption != nil {
			u.Object["spec"].(map[string]any)["disruption"] = disruption
		}
		return u
	}
	v1 := kubeDecodeNodePool(pool(map[string]any{
		"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s",
		"budgets": []any{
			map[string]any{"nodes": "10%"},
			map[string]any{"nodes": "0", "schedule": "0 9 * * mon-fri", "duration": "8h", "reasons": []any{"Drifted", 7}},
			"not a budget",
		},
	}))
	want := &snapshot.Disruption{ConsolidationPolicy: "WhenEmptyOrUnderutilized", ConsolidateAfter: "0s",
		Budgets: []snapshot.DisruptionBudget{
			{Nodes: "10%"},
			{Nodes: "0", Schedule: "0 9 * * mon-fri", Duration: "8h", Reasons: []string{"Drifted"}},
		}}
	if diff := cmp.Diff(want, v1.Disruption); diff != "" {
		t.Errorf("v1 disruption (-want +got):\n%s", diff)
	}
	beta := kubeDecodeNodePool(pool(map[string]any{"consolidationPolicy": "WhenUnderutilized", "expireAfter": "720h",
		"budgets": []any{map[string]any{"nodes": int64(5)}}}))
	if d := beta.Disruption; d == nil || d.ExpireAfter != "720h" || len(d.Budgets) != 1 || d.Budgets[0].Nodes != "5" {
		t.Errorf("v1beta1 disruption: got %+v, want expireAfter 720h and one budget of 5 nodes", d)
	}
	if d := kubeDecodeNodePool(pool(nil)).Disruption; d != nil {
		t.Errorf("a NodePool without spec.disruption: got %+v, want nil", d)
	}
}
