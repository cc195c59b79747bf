package collect

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sfake "k8s.io/client-go/kubernetes/fake"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestCollectKubeV1beta1Fallback(t *testing.T) {
	ref := snapshot.NodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}
	wantClaims := []snapshot.NodeClaim{{
		Name: "default-7xk2p", APIVersion: "karpenter.sh/v1beta1",
		Labels:       map[string]string{"karpenter.sh/nodepool": "default"},
		NodeClassRef: ref,
		ProviderID:   "aws:///us-west-2a/i-0a1b2c3d4e5f60001", NodeName: "ip-10-0-1-10.us-west-2.compute.internal",
	}}
	wantPools := []snapshot.NodePool{{
		Name: "default", APIVersion: "karpenter.sh/v1beta1", NodeClassRef: ref,
		Requirements: []snapshot.Requirement{{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64"}}},
		Kubelet:      &snapshot.Kubelet{MaxPods: kubeI32(58), PodsPerCore: kubeI32(4)},
	}}
	wantClasses := []snapshot.EC2NodeClass{{
		Name: "default", APIVersion: "karpenter.k8s.aws/v1beta1", AMIFamily: "AL2",
		SubnetSelectorTerms:        []snapshot.SelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}},
		SecurityGroupSelectorTerms: []snapshot.SelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}},
		StatusSubnets:              []snapshot.SubnetStatus{{ID: "subnet-0a1b2c3d4e5f60001", Zone: "us-west-2a", ZoneID: "usw2-az1"}},
		StatusSecurityGroups:       []snapshot.SecurityGroupStatus{{ID: "sg-0123456789abcdef0"}},
	}}
	for _, tc := range []struct {
		name  string
		scope Scope
	}{
		{"list", Scope{}},
		{"named node", Scope{Names: []string{"ip-10-0-1-10.us-west-2.compute.internal"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := k8sfake.NewClientset(kubeTyped(t, "nodes.yaml", "aws-node.yaml")...)
			served := []schema.GroupVersionResource{kubeNodeClaimsV1beta1, kubeNodePoolsV1beta1, kubeNodeClassesV1b1, kubeENIConfigsV1}
			dyn := kubeDynamic(served, kubeUnstructured(t,
				"nodeclaims-v1beta1.yaml", "nodepools-v1beta1.yaml", "ec2nodeclasses-v1beta1.yaml")...)
			s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, tc.scope)
			if err != nil {
				t.Fatalf("collectKube: %v", err)
			}
			if diff := cmp.Diff(wantClaims, s.NodeClaims); diff != "" {
				t.Errorf("nodeclaims mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantPools, s.NodePools); diff != "" {
				t.Errorf("nodepools mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantClasses, s.NodeClasses); diff != "" {
				t.Errorf("ec2nodeclasses mismatch (-want +got):\n%s", diff)
			}
			if len(s.Gaps) != 0 {
				t.Errorf("gaps: got %v, want none", s.Gaps)
			}
		})
	}
}

func TestCollectKubeCRDNotInstalled(t *testing.T) {
	want := []snapshot.Gap{
		{Source: snapshot.SourceNodeClaims, Reason: "CRD not installed (karpenter.sh v1/v1beta1)", Remedy: kubeKarpenterRemedy},
		{Source: snapshot.SourceNodePools, Reason: "CRD not installed (karpenter.sh v1/v1beta1)", Remedy: kubeKarpenterRemedy},
		{Source: snapshot.SourceNodeClasses, Reason: "CRD not installed (karpenter.k8s.aws v1/v1beta1)", Remedy: kubeKarpenterRemedy},
	}
	for _, tc := range []struct {
		name  string
		scope Scope
		want  []snapshot.Gap
	}{
		{"list", Scope{}, want},
		{"named Karpenter node", Scope{Names: []string{"ip-10-0-1-10.us-west-2.compute.internal"}}, want},
		{"named node without Karpenter", Scope{Names: []string{"ip-10-0-3-30.us-west-2.compute.internal"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := k8sfake.NewClientset(kubeTyped(t, "nodes.yaml", "aws-node.yaml")...)
			dyn := kubeDynamic([]schema.GroupVersionResource{kubeENIConfigsV1})
			s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, tc.scope)
			if err != nil {
				t.Fatalf("collectKube: %v", err)
			}
			if diff := cmp.Diff(tc.want, s.Gaps); diff != "" {
				t.Errorf("gaps mismatch (-want +got):\n%s", diff)
			}
			if len(s.NodeClaims)+len(s.NodePools)+len(s.NodeClasses) != 0 {
				t.Errorf("got Karpenter objects without CRDs: %v %v %v", s.NodeClaims, s.NodePools, s.NodeClasses)
			}
		})
	}
}

// kubeWithAWSNodeEnv returns the typed fixtures with env name of the aws-node container set to value.
func kubeWithAWSNodeEnv(t *testing.T, name, value string) []runtime.Object {
	t.Helper()
	objs := kubeTyped(t, "nodes.yaml", "aws-node.yaml")
	for _, o := range objs {
		ds, ok := o.(*appsv1.DaemonSet)
		if !ok {
			continue
		}
		env := ds.Spec.Template.Spec.Containers[0].Env
		i := slices.IndexFunc(env, func(e corev1.EnvVar) bool { return e.Name == name })
		if i < 0 {
			t.Fatalf("aws-node fixture has no %s", name)
		}
		env[i].Value = value
	}
	return objs
}

func TestCollectKubeENIConfigGap(t *testing.T) {
	gap := snapshot.Gap{
		Source: snapshot.SourceENIConfigs,
		Reason: "CRD not installed (crd.k8s.amazonaws.com v1alpha1)",
		Remedy: "install the ENIConfig CRD that ships with the VPC CNI, or set AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=false on the aws-node DaemonSet",
	}
	for _, tc := range []struct {
		name        string
		objs        func(t *testing.T) []runtime.Object
		wantGaps    []snapshot.Gap
		wantAWSNode bool
	}{
		{"custom networking on", func(t *testing.T) []runtime.Object {
			return kubeWithAWSNodeEnv(t, "AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG", "TRUE")
		}, []snapshot.Gap{gap}, true},
		{"custom networking off", func(t *testing.T) []runtime.Object {
			return kubeTyped(t, "nodes.yaml", "aws-node.yaml")
		}, nil, true},
		{"no aws-node", func(t *testing.T) []runtime.Object {
			return kubeTyped(t, "nodes.yaml")
		}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := k8sfake.NewClientset(tc.objs(t)...)
			dyn := kubeDynamic(kubeKarpenterV1())
			s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, Scope{})
			if err != nil {
				t.Fatalf("collectKube: %v", err)
			}
			if diff := cmp.Diff(tc.wantGaps, s.Gaps); diff != "" {
				t.Errorf("gaps mismatch (-want +got):\n%s", diff)
			}
			if got := s.AWSNode != nil; got != tc.wantAWSNode {
				t.Errorf("aws-node read: got %v, want %v", got, tc.wantAWSNode)
			}
		})
	}
}

func TestCollectKubeScopedV1beta1ListsNoV1beta1(t *testing.T) {
	kube := k8sfake.NewClientset(kubeTyped(t, "nodes.yaml")...)
	served := []schema.GroupVersionResource{kubeNodeClaimsV1beta1, kubeNodePoolsV1beta1, kubeNodeClassesV1b1, kubeENIConfigsV1}
	dyn := kubeDynamic(served, kubeUnstructured(t,
		"nodeclaims-v1beta1.yaml", "nodepools-v1beta1.yaml", "ec2nodeclasses-v1beta1.yaml")...)
	if _, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, Scope{Names: []string{"ip-10-0-1-10.us-west-2.compute.internal"}}); err != nil {
		t.Fatalf("collectKube: %v", err)
	}
	for _, a := range kubeActions(dyn.Actions()) {
		if strings.HasPrefix(a, "list ") && strings.HasSuffix(a, "/v1beta1") {
			t.Errorf("a named node listed a v1beta1 resource: %q", a)
		}
	}
}
