package collect

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestKubeDecodeAWSNodeStatus keeps status.desiredNumberScheduled only when the DaemonSet
// controller has observed the current spec: a status from before the last edit (or from a
// cluster without a controller) says nothing about where aws-node runs now.
func TestKubeDecodeAWSNodeStatus(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		generation, observed int64
		want                 *int32
	}{
		{"current status", 4, 4, kubeI32(0)},
		{"status of an older spec", 5, 4, nil},
		{"never reconciled", 1, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := &appsv1.DaemonSet{
				ObjectMeta: metav1.ObjectMeta{Name: "aws-node", Generation: tc.generation},
				Status:     appsv1.DaemonSetStatus{ObservedGeneration: tc.observed, DesiredNumberScheduled: 0},
			}
			got := kubeDecodeAWSNode(ds).DesiredNumberScheduled
			if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
				t.Errorf("got desiredNumberScheduled %v, want %v", got, tc.want)
			}
		})
	}
}

// TestKubeCNINodes lists CNINodes only when aws-node turns on security groups for pods, and
// makes a missing CRD a gap.
func TestKubeCNINodes(t *testing.T) {
	cniNode := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "vpcresources.k8s.aws/v1alpha1", "kind": "CNINode",
		"metadata": map[string]any{"name": "ip-10-0-1-10.us-west-2.compute.internal"},
		"spec":     map[string]any{"features": []any{map[string]any{"name": "SecurityGroupsForPods"}}},
	}}
	for _, tc := range []struct {
		name     string
		podENI   string
		served   []schema.GroupVersionResource
		want     []snapshot.CNINode
		wantGap  bool
		requests int
	}{
		{"security groups for pods off: nothing is read", "false", []schema.GroupVersionResource{kubeCNINodesV1alpha1}, nil, false, 0},
		{"on: the CNINodes are listed", "true", []schema.GroupVersionResource{kubeCNINodesV1alpha1}, []snapshot.CNINode{{
			Name: "ip-10-0-1-10.us-west-2.compute.internal", Features: []snapshot.CNINodeFeature{{Name: "SecurityGroupsForPods"}},
		}}, false, 1},
		{"on without the CRD: a gap", "true", nil, nil, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []runtime.Object
			if len(tc.served) > 0 {
				objs = append(objs, cniNode.DeepCopy())
			}
			dyn := kubeDynamic(tc.served, objs...)
			s := &snapshot.Snapshot{AWSNode: &snapshot.AWSNode{Env: map[string]string{"ENABLE_POD_ENI": tc.podENI}}}
			if err := (&Collector{Dynamic: dyn}).kubeCNINodes(t.Context(), s, Scope{}); err != nil {
				t.Fatalf("kubeCNINodes: %v", err)
			}
			if diff := cmp.Diff(tc.want, s.CNINodes); diff != "" {
				t.Errorf("CNINodes (-want +got):\n%s", diff)
			}
			if got := len(s.Gaps) == 1 && s.Gaps[0].Source == snapshot.SourceCNINodes; got != tc.wantGap {
				t.Errorf("gaps %+v, want a CNINode gap: %v", s.Gaps, tc.wantGap)
			}
			if got := len(dyn.Actions()); got != tc.requests {
				t.Errorf("got %d requests, want %d", got, tc.requests)
			}
		})
	}
}

// TestKubeSecurityGroupPolicies counts the SecurityGroupPolicies only when aws-node turns on
// security groups for pods and the run reads every node; a CRD that is not installed means none.
func TestKubeSecurityGroupPolicies(t *testing.T) {
	sgp := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "vpcresources.k8s.aws/v1beta1", "kind": "SecurityGroupPolicy",
		"metadata": map[string]any{"name": "payments", "namespace": "shop"},
		"spec":     map[string]any{"securityGroups": map[string]any{"groupIds": []any{"sg-0abc"}}},
	}}
	served := []schema.GroupVersionResource{kubeSecurityGroupPoliciesGVR}
	for _, tc := range []struct {
		name     string
		podENI   string
		served   []schema.GroupVersionResource
		scope    Scope
		want     []snapshot.PolicyCount
		requests int
	}{
		{"security groups for pods off: nothing is read", "false", served, Scope{}, nil, 0},
		{"on: the policies are counted", "true", served, Scope{}, []snapshot.PolicyCount{{Kind: snapshot.KindSecurityGroupPolicy,
			Count: 1, Names: []string{"shop/payments"}}}, 1},
		{"on without the CRD: none, no gap", "true", nil, Scope{}, nil, 1},
		{"a run scoped to some nodes reads none", "true", served, Scope{Names: []string{"ip-10-0-1-10"}}, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []runtime.Object
			if len(tc.served) > 0 {
				objs = append(objs, sgp.DeepCopy())
			}
			dyn := kubeDynamic(tc.served, objs...)
			s := &snapshot.Snapshot{AWSNode: &snapshot.AWSNode{Env: map[string]string{"ENABLE_POD_ENI": tc.podENI}}}
			if err := (&Collector{Dynamic: dyn}).kubeSecurityGroupPolicies(t.Context(), s, tc.scope); err != nil {
				t.Fatalf("kubeSecurityGroupPolicies: %v", err)
			}
			if diff := cmp.Diff(tc.want, s.SecurityGroupPolicies); diff != "" {
				t.Errorf("SecurityGroupPolicies (-want +got):\n%s", diff)
			}
			if len(s.Gaps) != 0 {
				t.Errorf("gaps %+v, want none", s.Gaps)
			}
			if got := len(dyn.Actions()); got != tc.requests {
				t.Errorf("got %d requests, want %d", got, tc.requests)
			}
		})
	}
}
