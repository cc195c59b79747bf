package collect

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sfake "k8s.io/client-go/kubernetes/fake"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

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
