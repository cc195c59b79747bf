package collect

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/kubeobj"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeDecodeAutoFile decodes every NodeClass of a testdata/kube fixture.
func kubeDecodeAutoFile(t *testing.T, name string) []snapshot.EC2NodeClass {
	t.Helper()
	var out []snapshot.EC2NodeClass
	for _, u := range kubeLoadList(t, name) {
		out = append(out, kubeobj.DecodeAutoNodeClass(&u))
	}
	return out
}

func TestKubeDecodeAutoNodeClass(t *testing.T) {
	cond := func(typ, status, reason, msg, at string) snapshot.Condition {
		return snapshot.Condition{Type: typ, Status: status, Reason: reason, Message: msg, LastTransitionTime: kubeTime(t, at)}
	}
	const clusterSG = "sg-0c1d2e3f4a5b60001"
	want := []snapshot.EC2NodeClass{
		{
			Name: "default", APIVersion: "eks.amazonaws.com/v1", Group: "eks.amazonaws.com", Kind: "NodeClass",
			SubnetSelectorTerms:        []snapshot.SelectorTerm{{ID: "subnet-0a1b2c3d4e5f60001"}, {ID: "subnet-0b2c3d4e5f6a70002"}},
			SecurityGroupSelectorTerms: []snapshot.SelectorTerm{{ID: clusterSG}},
			StatusSubnets: []snapshot.SubnetStatus{
				{ID: "subnet-0a1b2c3d4e5f60001", Zone: "us-west-2a", ZoneID: "usw2-az1"},
				{ID: "subnet-0b2c3d4e5f6a70002", Zone: "us-west-2b", ZoneID: "usw2-az2"},
			},
			StatusSecurityGroups: []snapshot.SecurityGroupStatus{{ID: clusterSG, Name: "eks-cluster-sg-demo-1234567890"}},
			Conditions: []snapshot.Condition{
				cond("InstanceProfileReady", "True", "InstanceProfileReady", "", "2026-08-01T07:00:00Z"),
				cond("Ready", "True", "Ready", "", "2026-08-01T07:00:05Z"),
			},
		},
		{
			Name: "ml", APIVersion: "eks.amazonaws.com/v1", Group: "eks.amazonaws.com", Kind: "NodeClass",
			SubnetSelectorTerms: []snapshot.SelectorTerm{{Tags: map[string]string{"kubernetes.io/role/internal-elb": "1", "eks-cluster": "demo"}}},
			SecurityGroupSelectorTerms: []snapshot.SelectorTerm{
				{Tags: map[string]string{"eks-cluster": "demo"}}, {Name: "ml-efa"},
			},
			NetworkInterfaces: []snapshot.NetworkInterface{
				{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface", SecondaryIPv4PrefixCount: kubeI32(2)},
				{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "efa-only"},
				{NetworkCardIndex: 2, DeviceIndex: 0, InterfaceType: "efa-only"},
			},
			PlacementGroupSelector: &snapshot.PlacementGroupSelector{Name: "ml-training-pg"},
			Conditions: []snapshot.Condition{
				cond("InstanceProfileReady", "False", "UnauthorizedNodeRole",
					"Role AutoModeCustomRole is unauthorized to join nodes to the cluster", "2026-08-20T11:00:00Z"),
				cond("Ready", "False", "UnhealthyDependents",
					"ValidationSucceeded=False, InstanceProfileReady=False", "2026-08-20T11:00:00Z"),
			},
		},
		{
			Name: "pods", APIVersion: "eks.amazonaws.com/v1", Group: "eks.amazonaws.com", Kind: "NodeClass",
			SubnetSelectorTerms:        []snapshot.SelectorTerm{{Tags: map[string]string{"kubernetes.io/role/internal-elb": "1"}}},
			SecurityGroupSelectorTerms: []snapshot.SelectorTerm{{ID: clusterSG}},
			PodSubnetSelectorTerms: []snapshot.SelectorTerm{
				{Tags: map[string]string{"kubernetes.io/role/pod": "1"}}, {ID: "subnet-0f0e0d0c0b0a90003"},
			},
			PodSecurityGroupSelectorTerms: []snapshot.SelectorTerm{{ID: "sg-0d2e3f4a5b6c70002"}},
			AssociatePublicIPAddress:      kubeBoolPtr(false),
			IPv4PrefixSize:                "32",
			StatusSubnets:                 []snapshot.SubnetStatus{{ID: "subnet-0c3d4e5f6a7b80003", Zone: "us-west-2a"}},
			StatusSecurityGroups:          []snapshot.SecurityGroupStatus{{ID: clusterSG}},
			Conditions: []snapshot.Condition{
				cond("SubnetsReady", "True", "SubnetsReady", "", "2026-08-15T10:00:00Z"),
				cond("Ready", "True", "Ready", "", "2026-08-15T10:00:01Z"),
			},
		},
	}
	got := kubeDecodeAutoFile(t, "nodeclasses-automode.yaml")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded NodeClasses mismatch (-want +got):\n%s", diff)
	}
	for _, c := range got {
		if !c.AutoMode() || c.KindName() != "NodeClass" {
			t.Errorf("%s: AutoMode() = %v, KindName() = %q, want true, NodeClass", c.Name, c.AutoMode(), c.KindName())
		}
	}
}

func TestKubeDecodeAutoNodeClassMalformed(t *testing.T) {
	base := snapshot.EC2NodeClass{APIVersion: "eks.amazonaws.com/v1", Group: "eks.amazonaws.com", Kind: "NodeClass"}
	broken, empty := base, base
	broken.Name, empty.Name = "broken", "empty"
	broken.SecurityGroupSelectorTerms = []snapshot.SelectorTerm{{ID: "sg-0c1d2e3f4a5b60001"}}
	broken.PodSecurityGroupSelectorTerms = []snapshot.SelectorTerm{{ID: "sg-0d2e3f4a5b6c70002"}}
	broken.IPv4PrefixSize = "32" // written unquoted
	broken.NetworkInterfaces = []snapshot.NetworkInterface{{NetworkCardIndex: 2, DeviceIndex: 0}}
	broken.StatusSubnets = []snapshot.SubnetStatus{{ID: "subnet-0b2c3d4e5f6a70002"}}
	broken.Conditions = []snapshot.Condition{{Type: "Ready", Reason: "Ready"}}

	got := kubeDecodeAutoFile(t, "nodeclass-automode-malformed.yaml")
	if diff := cmp.Diff([]snapshot.EC2NodeClass{broken, empty}, got); diff != "" {
		t.Errorf("malformed NodeClasses mismatch (-want +got):\n%s", diff)
	}
}
