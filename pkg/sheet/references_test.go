package sheet

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestReferences(t *testing.T) {
	node := func(name string) Member { return Member{Kind: "node", Name: name} }
	claim := Member{Kind: "nodeclaim", Name: "web-x"}
	tests := []struct {
		name string
		got  References
		want References
	}{
		{name: "subnet: its classes, members, then the nodes of its other interfaces, each once",
			got: SubnetSheet{ID: "subnet-1", SelectedBy: []SubnetSelector{
				{Kind: "EC2NodeClass", Name: "default"}, {Kind: "ENIConfig", Name: "us-west-2a"}, {Kind: "NodeClass", Name: "web"},
				{Kind: "EC2NodeClass", Name: "default", Via: "podSubnetSelectorTerms"}},
				Members: []Member{node("a"), claim},
				ENIs:    []SubnetENI{{Node: "a"}, {Node: "b"}}}.References(),
			want: References{Related: []string{"ec2nodeclass/default", "nodeclass/web"}, Members: []string{"node/a", "nodeclaim/web-x", "node/b"}}},
		{name: "nodepool: its class when read",
			got: NodePoolSheet{Name: "web", NodeClassRef: snapshot.NodeClassRef{Name: "web"}, NodeClassKind: snapshot.KindNodeClass,
				NodeClassFound: true, Members: []Member{node("a")}}.References(),
			want: References{Related: []string{"nodeclass/web"}, Members: []string{"node/a"}}},
		{name: "nodepool: no class it could not read",
			got:  NodePoolSheet{Name: "web", NodeClassRef: snapshot.NodeClassRef{Name: "gone"}, NodeClassKind: snapshot.KindEC2NodeClass}.References(),
			want: References{}},
		{name: "class: pools, status and pod subnets once, group",
			got: NodeClassSheet{Resource: "nodeclass/web", NodePools: []string{"web"},
				StatusSubnets: []snapshot.SubnetStatus{{ID: "subnet-1"}}, PodSubnets: []string{"subnet-2", "subnet-1"},
				PlacementGroup: &snapshot.PlacementGroup{ID: "pg-1"}}.References(),
			want: References{Related: []string{"nodepool/web", "subnet/subnet-1", "subnet/subnet-2", "placementgroup/pg-1"}}},
		{name: "placement group: its classes",
			got:  PlacementGroupSheet{Name: "train", Classes: []string{"ec2nodeclass/train"}, Members: []Member{node("a")}}.References(),
			want: References{Related: []string{"ec2nodeclass/train"}, Members: []string{"node/a"}}},
		{name: "eni: its subnet", got: ENISheet{ID: "eni-1", SubnetID: "subnet-1"}.References(),
			want: References{Related: []string{"subnet/subnet-1"}}},
		{name: "eni: no subnet, no reference", got: ENISheet{ID: "eni-1"}.References(), want: References{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("references mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
