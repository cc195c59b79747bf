package kubeobj

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestKubelet(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   map[string]any
		want *snapshot.Kubelet
	}{
		{"absent", nil, nil},
		{"integer", map[string]any{"maxPods": int64(110)}, &snapshot.Kubelet{MaxPods: i32(110)}},
		{"float from JSON", map[string]any{"maxPods": float64(58)}, &snapshot.Kubelet{MaxPods: i32(58)}},
		{"CEL expression", map[string]any{"maxPods": "self.instanceType.maxENIs * 8"},
			&snapshot.Kubelet{MaxPodsExpression: "self.instanceType.maxENIs * 8"}},
		{"pods per core", map[string]any{"podsPerCore": int64(4), "maxPods": int64(20)},
			&snapshot.Kubelet{MaxPods: i32(20), PodsPerCore: i32(4)}},
		{"fractional", map[string]any{"maxPods": 110.5}, nil},
		{"too large", map[string]any{"maxPods": int64(1) << 40}, nil},
		{"wrong type", map[string]any{"maxPods": true, "podsPerCore": []any{int64(1)}}, nil},
		{"no density fields", map[string]any{"clusterDNS": []any{"10.100.0.10"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, kubelet(tc.in)); diff != "" {
				t.Errorf("kubelet mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAMIFamily(t *testing.T) {
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
			if got := amiFamily(map[string]any{"spec": tc.spec}); got != tc.want {
				t.Errorf("amiFamily: got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNodeClassRef(t *testing.T) {
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
			if diff := cmp.Diff(tc.want, nodeClassRef(tc.in)); diff != "" {
				t.Errorf("nodeClassRef mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeWrongShapes(t *testing.T) {
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
		{"nodeclaim", DecodeNodeClaim(obj("karpenter.sh/v1", "NodeClaim", bad)),
			snapshot.NodeClaim{Name: "odd", APIVersion: "karpenter.sh/v1"}},
		{"nodeclaim deep", DecodeNodeClaim(obj("karpenter.sh/v1", "NodeClaim", deep)),
			snapshot.NodeClaim{Name: "odd", APIVersion: "karpenter.sh/v1"}},
		{"nodepool", DecodeNodePool(obj("karpenter.sh/v1", "NodePool", bad)),
			snapshot.NodePool{Name: "odd", APIVersion: "karpenter.sh/v1"}},
		{"nodepool deep", DecodeNodePool(obj("karpenter.sh/v1", "NodePool", deep)),
			snapshot.NodePool{Name: "odd", APIVersion: "karpenter.sh/v1"}},
		{"ec2nodeclass", DecodeNodeClass(obj("karpenter.k8s.aws/v1", "EC2NodeClass", bad)),
			snapshot.EC2NodeClass{Name: "odd", APIVersion: "karpenter.k8s.aws/v1"}},
		{"ec2nodeclass deep", DecodeNodeClass(obj("karpenter.k8s.aws/v1", "EC2NodeClass", deep)),
			snapshot.EC2NodeClass{Name: "odd", APIVersion: "karpenter.k8s.aws/v1"}},
		{"eniconfig", DecodeENIConfig(obj("crd.k8s.amazonaws.com/v1alpha1", "ENIConfig", bad)),
			snapshot.ENIConfig{Name: "odd"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("decoded mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeNodePoolDisruption(t *testing.T) {
	pool := func(disruption map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
			"metadata": map[string]any{"name": "general"}, "spec": map[string]any{}}}
		if disruption != nil {
			u.Object["spec"].(map[string]any)["disruption"] = disruption
		}
		return u
	}
	v1 := DecodeNodePool(pool(map[string]any{
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
	beta := DecodeNodePool(pool(map[string]any{"consolidationPolicy": "WhenUnderutilized", "expireAfter": "720h",
		"budgets": []any{map[string]any{"nodes": int64(5)}}}))
	if d := beta.Disruption; d == nil || d.ExpireAfter != "720h" || len(d.Budgets) != 1 || d.Budgets[0].Nodes != "5" {
		t.Errorf("v1beta1 disruption: got %+v, want expireAfter 720h and one budget of 5 nodes", d)
	}
	if d := DecodeNodePool(pool(nil)).Disruption; d != nil {
		t.Errorf("a NodePool without spec.disruption: got %+v, want nil", d)
	}
}

func TestDecodeAutoNodeClassWrongShapes(t *testing.T) {
	for _, tc := range []struct {
		name string
		obj  map[string]any
	}{
		{"spec is a string", map[string]any{"spec": "oops", "status": []any{"conditions"}}},
		{"advancedNetworking is a list", map[string]any{"spec": map[string]any{"advancedNetworking": []any{"x"}}}},
		{"networkInterfaces is a map", map[string]any{"spec": map[string]any{"advancedNetworking": map[string]any{
			"networkInterfaces": map[string]any{"deviceIndex": int64(0)}, "ipv4PrefixSize": 28.5}}}},
		{"placementGroupSelector is a list", map[string]any{"spec": map[string]any{"placementGroupSelector": []any{"pg"}}}},
		{"status lists of strings", map[string]any{"status": map[string]any{
			"subnets": []any{"subnet-1"}, "securityGroups": []any{int64(1)}, "conditions": "Ready"}}},
		{"no metadata", map[string]any{"metadata": "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := map[string]any{"apiVersion": "eks.amazonaws.com/v1", "kind": "NodeClass"}
			for k, v := range tc.obj {
				obj[k] = v
			}
			got := DecodeAutoNodeClass(&unstructured.Unstructured{Object: obj})
			want := snapshot.EC2NodeClass{APIVersion: "eks.amazonaws.com/v1", Group: "eks.amazonaws.com", Kind: "NodeClass"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("decoded mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNodeClassRefAutoMode(t *testing.T) {
	auto := func(name string) snapshot.NodeClassRef {
		return snapshot.NodeClassRef{Group: "eks.amazonaws.com", Kind: "NodeClass", Name: name}
	}
	for _, tc := range []struct {
		name string
		in   map[string]any
		want snapshot.NodeClassRef
	}{
		{"group and kind kept", map[string]any{"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"}, auto("default")},
		{"group without kind", map[string]any{"group": "eks.amazonaws.com", "name": "ml"}, auto("ml")},
		{"apiVersion form", map[string]any{"apiVersion": "eks.amazonaws.com/v1", "kind": "NodeClass", "name": "pods"}, auto("pods")},
		{"another kind of the group is kept", map[string]any{"group": "eks.amazonaws.com", "kind": "Other", "name": "x"},
			snapshot.NodeClassRef{Group: "eks.amazonaws.com", Kind: "Other", Name: "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, nodeClassRef(tc.in)); diff != "" {
				t.Errorf("nodeClassRef mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func i32(v int32) *int32 { return &v }

func TestDecodeStartupTaintsAndConnectionTracking(t *testing.T) {
	pool := DecodeNodePool(&unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "general"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"taints":        []any{map[string]any{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}},
			"startupTaints": []any{map[string]any{"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"}, "not a taint", map[string]any{"value": "no key"}},
		}}},
	}})
	wantTaints := []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
	wantStartup := []corev1.Taint{{Key: "node.cilium.io/agent-not-ready", Value: "true", Effect: corev1.TaintEffectNoExecute}}
	if diff := cmp.Diff(wantTaints, pool.Taints); diff != "" {
		t.Errorf("taints (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantStartup, pool.StartupTaints); diff != "" {
		t.Errorf("startupTaints (-want +got):\n%s", diff)
	}
	class := DecodeNodeClass(&unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "default"},
		"spec":     map[string]any{"connectionTracking": map[string]any{"tcpEstablishedTimeout": int64(350), "udpTimeout": float64(30)}},
	}})
	if diff := cmp.Diff(&snapshot.ConnectionTracking{TCPEstablishedTimeout: 350, UDPTimeout: 30}, class.ConnectionTracking); diff != "" {
		t.Errorf("connectionTracking (-want +got):\n%s", diff)
	}
	if c := DecodeNodeClass(&unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"connectionTracking": map[string]any{}}}}); c.ConnectionTracking != nil {
		t.Errorf("an empty connectionTracking decoded to %+v, want nil", c.ConnectionTracking)
	}
}

func TestDecodeCiliumNodeWrongShapes(t *testing.T) {
	for _, obj := range []map[string]any{
		{},
		{"spec": "not an object", "status": []any{1, 2}},
		{"spec": map[string]any{"eni": map[string]any{"first-interface-index": "1", "subnet-ids": "subnet-1", "security-groups": []any{1, "sg-1"},
			"use-primary-address": "true"}}},
		{"status": map[string]any{"eni": map[string]any{"enis": map[string]any{"eni-1": "not an object",
			"eni-2": map[string]any{"number": "1", "subnet": "subnet-1", "addresses": map[string]any{}, "prefixes": []any{nil}}}}}},
		{"status": map[string]any{"ipam": map[string]any{"operator-status": map[string]any{"error": 42}, "used": []any{"10.0.0.1"}}}},
	} {
		u := &unstructured.Unstructured{Object: obj}
		u.SetName("node-a")
		got := DecodeCiliumNode(u)
		if got.Name != "node-a" || got.FirstInterfaceIndex != nil || got.UsePrimaryAddress || got.OperatorError != "" || got.Used != 0 {
			t.Errorf("%v decoded to %+v, want the name and zero values", obj, got)
		}
		for _, e := range got.ENIs {
			if e.ID != "eni-2" || e.Number != 0 || e.Subnet != "" || e.Addresses != 0 || e.Prefixes != 0 {
				t.Errorf("%v: interface %+v, want only eni-2 with zero values", obj, e)
			}
		}
	}
}

func TestMetadataOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   map[string]any
		want *snapshot.MetadataOptions
	}{
		{"absent", nil, nil},
		{"the CRD's default", map[string]any{"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled",
			"httpPutResponseHopLimit": int64(1), "httpTokens": "required"},
			&snapshot.MetadataOptions{HTTPEndpoint: "enabled", HTTPTokens: "required", HTTPPutResponseHopLimit: 1}},
		{"hop limit 2 from JSON", map[string]any{"httpPutResponseHopLimit": float64(2)}, &snapshot.MetadataOptions{HTTPPutResponseHopLimit: 2}},
		{"a hop limit of the wrong type", map[string]any{"httpPutResponseHopLimit": "2", "httpTokens": "optional"},
			&snapshot.MetadataOptions{HTTPTokens: "optional"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, metadataOptions(tc.in)); diff != "" {
				t.Errorf("metadataOptions mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
