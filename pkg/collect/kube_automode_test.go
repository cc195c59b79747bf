package collect

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8sfake "k8s.io/client-go/kubernetes/fake"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestCollectKubeAutoModeFullCluster(t *testing.T) {
	const list = "list nodeclasses.eks.amazonaws.com/v1"
	for _, tc := range []struct {
		name         string
		autoCRD      bool
		ec2CRD       bool
		plain        bool // the cluster of kubeFixture, without Auto Mode
		wantRequests []string
		wantClasses  []string
	}{
		{name: "mixed cluster", autoCRD: true, ec2CRD: true, wantRequests: []string{list},
			wantClasses: []string{"EC2NodeClass/default", "EC2NodeClass/efa", "EC2NodeClass/spare", "NodeClass/default", "NodeClass/ml", "NodeClass/pods"}},
		{name: "Auto Mode references without the CRD", ec2CRD: true, wantRequests: []string{list},
			wantClasses: []string{"EC2NodeClass/default", "EC2NodeClass/efa", "EC2NodeClass/spare"}},
		{name: "Auto Mode only, no EC2NodeClass CRD", autoCRD: true, wantRequests: []string{list},
			wantClasses: []string{"NodeClass/default", "NodeClass/ml", "NodeClass/pods"}},
		{name: "no Auto Mode reads no NodeClass", plain: true,
			wantClasses: []string{"EC2NodeClass/default", "EC2NodeClass/efa", "EC2NodeClass/spare"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var kube *k8sfake.Clientset
			var dyn *dynamicfake.FakeDynamicClient
			if tc.plain {
				kube, dyn = kubeFixture(t)
			} else {
				kube, dyn = kubeMixedCluster(t, tc.autoCRD, tc.ec2CRD, nil)
			}
			s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, Scope{})
			if err != nil {
				t.Fatalf("collectKube: %v", err)
			}
			if diff := cmp.Diff(tc.wantRequests, kubeAutoRequests(dyn)); diff != "" {
				t.Errorf("nodeclasses requests mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantClasses, kubeClassIDs(s.NodeClasses)); diff != "" {
				t.Errorf("node classes mismatch (-want +got):\n%s", diff)
			}
			if len(s.Gaps) != 0 {
				t.Errorf("gaps: got %v, want none", s.Gaps)
			}
		})
	}
}

func TestCollectKubeAutoModeRefsKeepGroup(t *testing.T) {
	kube, dyn := kubeMixedCluster(t, true, false, nil)
	s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, Scope{})
	if err != nil {
		t.Fatalf("collectKube: %v", err)
	}
	auto := func(name string) snapshot.NodeClassRef {
		return snapshot.NodeClassRef{Group: "eks.amazonaws.com", Kind: "NodeClass", Name: name}
	}
	var got []snapshot.NodeClassRef
	for _, c := range s.NodeClaims {
		got = append(got, c.NodeClassRef)
	}
	for _, p := range s.NodePools {
		got = append(got, p.NodeClassRef)
	}
	want := []snapshot.NodeClassRef{auto("default"), auto("ml"), auto("default"), auto("ml"), auto("pods")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claim and pool nodeClassRefs mismatch (-want +got):\n%s", diff)
	}
}

func TestCollectKubeAutoModeNamedNodes(t *testing.T) {
	unlabelled := func(objs []runtime.Object) {
		for _, o := range objs {
			if n, ok := o.(*corev1.Node); ok && n.Name == kubeAutoNode2 {
				n.OwnerReferences = nil
				delete(n.Labels, snapshot.LabelNodePool)
			}
		}
	}
	orphaned := func(objs []runtime.Object) {
		for _, o := range objs {
			if n, ok := o.(*corev1.Node); ok && n.Name == kubeAutoNode1 {
				n.OwnerReferences[0].Name = "deleted-claim"
				n.Labels[snapshot.LabelNodePool] = "deleted-pool"
			}
		}
	}
	for _, tc := range []struct {
		name        string
		names       []string
		autoCRD     bool
		edit        func([]runtime.Object)
		wantActions []string
		wantClasses []string
	}{
		{
			name: "NodeClass label", names: []string{kubeAutoNode1}, autoCRD: true,
			wantActions: []string{
				"get nodeclaims.karpenter.sh/v1 general-purpose-x8k2d",
				"get nodepools.karpenter.sh/v1 general-purpose",
				"get nodeclasses.eks.amazonaws.com/v1 default",
			},
			wantClasses: []string{"NodeClass/default"},
		},
		{
			name: "NodeClass from the claim's ref", names: []string{kubeAutoNode2}, autoCRD: true,
			wantActions: []string{
				"get nodeclaims.karpenter.sh/v1 ml-4hq7t",
				"get nodepools.karpenter.sh/v1 ml",
				"get nodeclasses.eks.amazonaws.com/v1 ml",
			},
			wantClasses: []string{"NodeClass/ml"},
		},
		{
			name: "mixed nodes", names: []string{kubeAutoNode2, kubeEC2Node, kubeAutoNode1}, autoCRD: true,
			wantActions: []string{
				"get nodeclaims.karpenter.sh/v1 default-7xk2p",
				"get nodeclaims.karpenter.sh/v1 general-purpose-x8k2d",
				"get nodeclaims.karpenter.sh/v1 ml-4hq7t",
				"get nodepools.karpenter.sh/v1 default",
				"get nodepools.karpenter.sh/v1 general-purpose",
				"get nodepools.karpenter.sh/v1 ml",
				"get ec2nodeclasses.karpenter.k8s.aws/v1 default",
				"get nodeclasses.eks.amazonaws.com/v1 default",
				"get nodeclasses.eks.amazonaws.com/v1 ml",
			},
			wantClasses: []string{"EC2NodeClass/default", "NodeClass/default", "NodeClass/ml"},
		},
		{
			name: "a self-managed node reads no NodeClass", names: []string{kubeEC2Node}, autoCRD: true,
			wantActions: []string{
				"get nodeclaims.karpenter.sh/v1 default-7xk2p",
				"get nodepools.karpenter.sh/v1 default",
				"get ec2nodeclasses.karpenter.k8s.aws/v1 default",
			},
			wantClasses: []string{"EC2NodeClass/default"},
		},
		{
			name: "an Auto Mode node without a NodeClass name lists them", names: []string{kubeAutoNode2}, autoCRD: true,
			edit:        unlabelled,
			wantActions: []string{"list nodeclasses.eks.amazonaws.com/v1"},
			wantClasses: []string{"NodeClass/default", "NodeClass/ml", "NodeClass/pods"},
		},
		{
			name: "the NodeClass label names it without claim or pool", names: []string{kubeAutoNode1}, autoCRD: true,
			edit: orphaned,
			wantActions: []string{
				"get nodeclaims.karpenter.sh/v1 deleted-claim",
				"list nodeclaims.karpenter.sh/v1",
				"get nodepools.karpenter.sh/v1 deleted-pool",
				"list nodepools.karpenter.sh/v1",
				"get nodeclasses.eks.amazonaws.com/v1 default",
			},
			wantClasses: []string{"NodeClass/default"},
		},
		{
			name: "CRD not served", names: []string{kubeAutoNode1},
			wantActions: []string{
				"get nodeclaims.karpenter.sh/v1 general-purpose-x8k2d",
				"get nodepools.karpenter.sh/v1 general-purpose",
				"get nodeclasses.eks.amazonaws.com/v1 default",
				"list nodeclasses.eks.amazonaws.com/v1",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube, dyn := kubeMixedCluster(t, tc.autoCRD, true, tc.edit)
			s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, Scope{Names: tc.names})
			if err != nil {
				t.Fatalf("collectKube: %v", err)
			}
			want := append(tc.wantActions, "list eniconfigs.crd.k8s.amazonaws.com/v1alpha1")
			if diff := cmp.Diff(want, kubeActions(dyn.Actions()), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("dynamic requests mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantClasses, kubeClassIDs(s.NodeClasses)); diff != "" {
				t.Errorf("node classes mismatch (-want +got):\n%s", diff)
			}
			if len(s.Gaps) != 0 {
				t.Errorf("gaps: got %v, want none", s.Gaps)
			}
		})
	}
}

func TestCollectKubeAutoModeErrorsAreGaps(t *testing.T) {
	forbidden := kubeForbidden("eks.amazonaws.com", "nodeclasses")
	for _, tc := range []struct {
		name  string
		scope Scope
		fail  kubeFailing
		want  snapshot.Gap
	}{
		{"list forbidden", Scope{}, kubeFailing{true, "list", "nodeclasses", forbidden},
			snapshot.Gap{Source: snapshot.SourceAutoNodeClasses, Reason: "forbidden",
				Remedy: "grant list on nodeclasses.eks.amazonaws.com (see the ClusterRole in docs/permissions.md)"}},
		{"get forbidden", Scope{Names: []string{kubeAutoNode1}}, kubeFailing{true, "get", "nodeclasses", forbidden},
			snapshot.Gap{Source: snapshot.SourceAutoNodeClasses, Reason: "forbidden",
				Remedy: "grant get on nodeclasses.eks.amazonaws.com (see the ClusterRole in docs/permissions.md)"}},
		{"server error", Scope{}, kubeFailing{true, "list", "nodeclasses", errors.NewServiceUnavailable("etcd leader changed")},
			snapshot.Gap{Source: snapshot.SourceAutoNodeClasses, Reason: "ServiceUnavailable",
				Remedy: "retry later; the API server answered list nodeclasses.eks.amazonaws.com: etcd leader changed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube, dyn := kubeMixedCluster(t, true, true, nil)
			tc.fail.install(kube, dyn)
			s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, tc.scope)
			if err != nil {
				t.Fatalf("collectKube: got error %v, want a gap", err)
			}
			if diff := cmp.Diff([]snapshot.Gap{tc.want}, s.Gaps); diff != "" {
				t.Errorf("gaps mismatch (-want +got):\n%s", diff)
			}
			for _, c := range s.NodeClasses {
				if c.AutoMode() {
					t.Errorf("got NodeClass %q after a failed read, want none", c.Name)
				}
			}
		})
	}
}
