package collect

import (
	"context"
	"errors"
	"math"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestKubeFlagOn(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"--enable-network-policy=false"}, false},
		{[]string{"--enable-network-policy=true"}, true},
		{[]string{"--enable-network-policy"}, true},
		{[]string{"-enable-network-policy=True"}, true},
		{[]string{"--enable-network-policy=true", "--enable-network-policy=false"}, false},
		{[]string{"--enable-network-policy-logs=true"}, false},
	} {
		if got := kubeFlagOn(tc.args, "enable-network-policy"); got != tc.want {
			t.Errorf("kubeFlagOn(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

func TestKubePolicies(t *testing.T) {
	policy := func(ns, name string) *networkingv1.NetworkPolicy {
		return &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	calico := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "calico-system", Name: "calico-node"}}
	vpcConfig := func(on string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "amazon-vpc-cni"},
			Data: map[string]string{"enable-network-policy-controller": on, "enable-windows-ipam": "true"}}
	}
	cnp := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "networking.k8s.aws/v1alpha1", "kind": "ClusterNetworkPolicy", "metadata": map[string]any{"name": "deny-egress"},
	}}
	agentOff := &snapshot.AWSNode{NodeAgent: &snapshot.NodeAgent{}}
	agentOn := &snapshot.AWSNode{NodeAgent: &snapshot.NodeAgent{NetworkPolicy: true}}
	autoNode := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "i-0auto", Labels: map[string]string{snapshot.LabelComputeType: snapshot.ComputeTypeAuto}}}
	for _, tc := range []struct {
		name       string
		s          snapshot.Snapshot
		typed      []runtime.Object
		served     []schema.GroupVersionResource
		dynObjs    []runtime.Object
		want       []snapshot.PolicyCount
		wantCalico string
		wantConfig map[string]string
		wantState  string
		reads      []string
	}{
		{
			name: "the agent and the controller on: only the ConfigMap",
			s:    snapshot.Snapshot{AWSNode: agentOn}, typed: []runtime.Object{vpcConfig("true"), policy("shop", "deny-all")},
			wantConfig: map[string]string{"enable-network-policy-controller": "true"}, wantState: "found",
			reads: []string{"get configmaps kube-system"},
		},
		{
			name: "the agent on and the controller off (standard cluster): policies are counted",
			s:    snapshot.Snapshot{AWSNode: agentOn}, typed: []runtime.Object{vpcConfig("false"), policy("shop", "deny-all")},
			want:       []snapshot.PolicyCount{{Kind: "NetworkPolicy", Count: 1, Names: []string{"shop/deny-all"}}},
			wantConfig: map[string]string{"enable-network-policy-controller": "false"}, wantState: "found",
			reads: []string{"get configmaps kube-system", "list networkpolicies", "get daemonsets calico-system",
				"get daemonsets kube-system"},
		},
		{
			name: "the agent on and \"True\": the controller compares exactly, so it is off",
			s:    snapshot.Snapshot{AWSNode: agentOn}, typed: []runtime.Object{vpcConfig("True"), policy("shop", "deny-all")},
			want:       []snapshot.PolicyCount{{Kind: "NetworkPolicy", Count: 1, Names: []string{"shop/deny-all"}}},
			wantConfig: map[string]string{"enable-network-policy-controller": "True"}, wantState: "found",
			reads: []string{"get configmaps kube-system", "list networkpolicies", "get daemonsets calico-system",
				"get daemonsets kube-system"},
		},
		{
			name: "the agent on and no ConfigMap: policies are counted",
			s:    snapshot.Snapshot{AWSNode: agentOn}, typed: []runtime.Object{policy("shop", "deny-all")},
			want:      []snapshot.PolicyCount{{Kind: "NetworkPolicy", Count: 1, Names: []string{"shop/deny-all"}}},
			wantState: "not-found",
			reads: []string{"get configmaps kube-system", "list networkpolicies", "get daemonsets calico-system",
				"get daemonsets kube-system"},
		},
		{name: "Cilium enforces: nothing is read", s: snapshot.Snapshot{AWSNode: agentOff, Cilium: &snapshot.Cilium{}}},
		{name: "another CNI without aws-node: nothing is read"},
		{
			name: "the agent off: policies are counted and calico-node looked for",
			s:    snapshot.Snapshot{AWSNode: agentOff}, typed: []runtime.Object{policy("shop", "deny-all"), policy("shop", "allow-web")},
			want:  []snapshot.PolicyCount{{Kind: "NetworkPolicy", Count: 2, Names: []string{"shop/allow-web", "shop/deny-all"}}},
			reads: []string{"list networkpolicies", "get daemonsets calico-system", "get daemonsets kube-system"},
		},
		{
			name: "no agent container at all: the same, and Calico enforces",
			s:    snapshot.Snapshot{AWSNode: &snapshot.AWSNode{}}, typed: []runtime.Object{policy("shop", "deny-all"), calico},
			want:       []snapshot.PolicyCount{{Kind: "NetworkPolicy", Count: 1, Names: []string{"shop/deny-all"}}},
			wantCalico: "calico-system",
			reads:      []string{"list networkpolicies", "get daemonsets calico-system"},
		},
		{
			name: "no NetworkPolicy: the VPC CNI's own kinds are counted where served",
			s:    snapshot.Snapshot{AWSNode: agentOff}, served: []schema.GroupVersionResource{kubeClusterNetworkPoliciesGVR},
			dynObjs: []runtime.Object{cnp},
			want:    []snapshot.PolicyCount{{Kind: "ClusterNetworkPolicy", Count: 1, Names: []string{"deny-egress"}}},
			// typed requests first, then the dynamic ones
			reads: []string{"list networkpolicies", "get daemonsets calico-system", "get daemonsets kube-system",
				"list clusternetworkpolicies", "list applicationnetworkpolicies"},
		},
		{
			name: "Auto Mode with the controller on: only the ConfigMap",
			s:    snapshot.Snapshot{Nodes: []corev1.Node{autoNode}}, typed: []runtime.Object{vpcConfig("true"), policy("shop", "deny-all")},
			wantConfig: map[string]string{"enable-network-policy-controller": "true"}, wantState: "found",
			reads: []string{"get configmaps kube-system"},
		},
		{
			name: "Auto Mode with the controller off: policies are counted",
			s:    snapshot.Snapshot{Nodes: []corev1.Node{autoNode}}, typed: []runtime.Object{vpcConfig("false"), policy("shop", "deny-all")},
			want:       []snapshot.PolicyCount{{Kind: "NetworkPolicy", Count: 1, Names: []string{"shop/deny-all"}}},
			wantConfig: map[string]string{"enable-network-policy-controller": "false"}, wantState: "found",
			reads: []string{"get configmaps kube-system", "list networkpolicies", "get daemonsets calico-system",
				"get daemonsets kube-system"},
		},
		{
			name: "a node that reports NPANotRunning puts it in doubt",
			s: snapshot.Snapshot{AWSNode: &snapshot.AWSNode{NodeAgent: &snapshot.NodeAgent{NetworkPolicy: true}}, Nodes: []corev1.Node{{
				Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: "NetworkingReady", Status: corev1.ConditionFalse, Reason: "NPANotRunning"}}},
			}}},
			typed:      []runtime.Object{vpcConfig("true")},
			wantConfig: map[string]string{"enable-network-policy-controller": "true"}, wantState: "found",
			reads: []string{"get configmaps kube-system", "list networkpolicies", "list clusternetworkpolicies",
				"list applicationnetworkpolicies"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := k8sfake.NewClientset(tc.typed...)
			dyn := kubeDynamic(tc.served, tc.dynObjs...)
			s := tc.s
			if err := (&Collector{Kube: kube, Dynamic: dyn}).kubePolicies(t.Context(), &s); err != nil {
				t.Fatalf("kubePolicies: %v", err)
			}
			if diff := cmp.Diff(tc.want, s.NetworkPolicies); diff != "" {
				t.Errorf("policies (-want +got):\n%s", diff)
			}
			if s.Calico != tc.wantCalico || !cmp.Equal(s.VPCCNIConfig, tc.wantConfig) || s.VPCCNIConfigState != tc.wantState || len(s.Gaps) > 0 {
				t.Errorf("calico %q, config %v %q, gaps %v; want %q, %v %q, none", s.Calico, s.VPCCNIConfig, s.VPCCNIConfigState,
					s.Gaps, tc.wantCalico, tc.wantConfig, tc.wantState)
			}
			var reads []string
			for _, a := range append(kube.Actions(), dyn.Actions()...) {
				r := a.GetVerb() + " " + a.GetResource().Resource
				if a.GetVerb() == "get" {
					r += " " + a.GetNamespace()
				}
				reads = append(reads, r)
			}
			if diff := cmp.Diff(tc.reads, reads); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKubePoliciesForbiddenIsGap(t *testing.T) {
	kube := k8sfake.NewClientset()
	kubeFailing{false, "list", "networkpolicies", kubeForbidden("networking.k8s.io", "networkpolicies")}.install(kube, kubeDynamic(nil))
	s := snapshot.Snapshot{AWSNode: &snapshot.AWSNode{}}
	if err := (&Collector{Kube: kube, Dynamic: kubeDynamic(nil)}).kubePolicies(t.Context(), &s); err != nil {
		t.Fatalf("kubePolicies: %v", err)
	}
	want := []snapshot.Gap{{Source: snapshot.SourceNetworkPolicies, Reason: "forbidden",
		Remedy: "grant list on networkpolicies.networking.k8s.io (see the ClusterRole in docs/permissions.md)"}}
	if diff := cmp.Diff(want, s.Gaps); diff != "" {
		t.Errorf("gaps (-want +got):\n%s", diff)
	}
}

// TestKubePoliciesUnreadIsGap: only a list answered NotFound means a policy kind is not
// served (none exist); a list refused, failed or timed out is a gap on its own source, so
// network-policy-not-enforced is silenced rather than seeing no policies.
func TestKubePoliciesUnreadIsGap(t *testing.T) {
	cnp := schema.GroupResource{Group: "networking.k8s.aws", Resource: "clusternetworkpolicies"}
	netpol := schema.GroupResource{Group: "networking.k8s.io", Resource: "networkpolicies"}
	timeout := &url.Error{Op: "Get", URL: "https://api/apis", Err: context.DeadlineExceeded}
	for _, tc := range []struct {
		name   string
		fail   kubeFailing
		source string
		reason string
	}{
		{"clusternetworkpolicies not served", kubeFailing{true, "list", "clusternetworkpolicies",
			apierrors.NewNotFound(cnp, "")}, "", ""},
		{"clusternetworkpolicies forbidden", kubeFailing{true, "list", "clusternetworkpolicies",
			kubeForbidden(cnp.Group, cnp.Resource)}, snapshot.SourceClusterNetworkPolicies, "forbidden"},
		{"clusternetworkpolicies 500", kubeFailing{true, "list", "clusternetworkpolicies",
			apierrors.NewInternalError(errors.New("etcd leader changed"))}, snapshot.SourceClusterNetworkPolicies, "InternalError"},
		{"clusternetworkpolicies timeout", kubeFailing{true, "list", "clusternetworkpolicies", timeout},
			snapshot.SourceClusterNetworkPolicies, "timeout"},
		{"applicationnetworkpolicies 503", kubeFailing{true, "list", "applicationnetworkpolicies",
			apierrors.NewServiceUnavailable("apiserver overloaded")}, snapshot.SourceApplicationNetworkPolicies, "ServiceUnavailable"},
		{"networkpolicies not served", kubeFailing{false, "list", "networkpolicies", apierrors.NewNotFound(netpol, "")}, "", ""},
		{"networkpolicies 500", kubeFailing{false, "list", "networkpolicies",
			apierrors.NewInternalError(errors.New("etcd leader changed"))}, snapshot.SourceNetworkPolicies, "InternalError"},
		{"networkpolicies timeout", kubeFailing{false, "list", "networkpolicies", timeout},
			snapshot.SourceNetworkPolicies, "timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := k8sfake.NewClientset()
			served := []schema.GroupVersionResource{kubeClusterNetworkPoliciesGVR, kubeApplicationNetworkPoliciesGVR}
			dyn := kubeDynamic(served)
			tc.fail.install(kube, dyn)
			s := snapshot.Snapshot{AWSNode: &snapshot.AWSNode{}}
			if err := (&Collector{Kube: kube, Dynamic: dyn}).kubePolicies(t.Context(), &s); err != nil {
				t.Fatalf("kubePolicies: %v", err)
			}
			if tc.source == "" {
				if len(s.Gaps) != 0 {
					t.Errorf("gaps %+v, want none: a kind not served has no policies", s.Gaps)
				}
				return
			}
			if len(s.Gaps) != 1 || s.Gaps[0].Source != tc.source || !strings.Contains(s.Gaps[0].Reason, tc.reason) {
				t.Errorf("gaps %+v, want one for %s saying %q", s.Gaps, tc.source, tc.reason)
			}
		})
	}
}

// TestKubePoliciesRemainingItemCount: a remainingItemCount below zero is no count; the items
// received are counted and a note says so. The healthy twin adds the remaining count.
func TestKubePoliciesRemainingItemCount(t *testing.T) {
	for _, tc := range []struct {
		name      string
		remaining int64
		want      int
		note      bool
	}{
		{"remaining 2", 2, 5, false},
		{"remaining 0", 0, 3, false},
		{"remaining -3", -3, 3, true},
		{"remaining past int32", math.MaxInt64, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := k8sfake.NewClientset()
			kube.PrependReactor("list", "networkpolicies", func(clienttesting.Action) (bool, runtime.Object, error) {
				l := &networkingv1.NetworkPolicyList{ListMeta: metav1.ListMeta{RemainingItemCount: &tc.remaining}}
				for _, name := range []string{"a", "b", "c"} {
					l.Items = append(l.Items, networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}})
				}
				return true, l, nil
			})
			s := snapshot.Snapshot{AWSNode: &snapshot.AWSNode{}}
			if err := (&Collector{Kube: kube, Dynamic: kubeDynamic(nil)}).kubePolicies(t.Context(), &s); err != nil {
				t.Fatalf("kubePolicies: %v", err)
			}
			if len(s.NetworkPolicies) != 1 || s.NetworkPolicies[0].Count != tc.want {
				t.Fatalf("policies %+v, want %d NetworkPolicies", s.NetworkPolicies, tc.want)
			}
			if got := len(s.Notes) == 1 && strings.Contains(s.Notes[0], "remainingItemCount"); got != tc.note || len(s.Gaps) != 0 {
				t.Errorf("notes %q, gaps %+v: want a note %v, no gap", s.Notes, s.Gaps, tc.note)
			}
		})
	}
}
