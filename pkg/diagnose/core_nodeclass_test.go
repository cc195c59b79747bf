package diagnose

import (
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestNodeClassNotReady(t *testing.T) {
	notReady := func(s *snapshot.Snapshot) {
		s.NodeClasses[0].Conditions = []snapshot.Condition{
			{Type: "Ready", Status: "False", Reason: "UnhealthyDependents"},
			{Type: "SubnetsReady", Status: "False", Reason: "SubnetsNotFound", Message: "SubnetSelector did not match any Subnets"},
			{Type: "AMIsReady", Status: "True"},
			{Type: "ValidationSucceeded", Status: "False", Reason: "DependenciesNotReady", Message: "Awaiting Subnet resolution"},
			{Type: "PlacementGroupReady", Status: "False", Reason: "PlacementGroupNotFound", Message: `Placement group "training" not found`},
		}
		s.NodePools = append(s.NodePools, snapshot.NodePool{Name: "batch", NodeClassRef: snapshot.NodeClassRef{Name: "default"}})
	}
	runCheckCases(t, nodeClassNotReady, []checkCase{
		{name: "Ready class is silent"},
		{
			name: "not Ready class names pools and conditions",
			edit: notReady,
			want: []Finding{{
				ID: "nodeclass-not-ready", Severity: Critical, Resource: "ec2nodeclass/default",
				Message: "EC2NodeClass default is not Ready, so Karpenter launches no nodes for NodePool batch, default: " +
					`PlacementGroupReady=False (PlacementGroupNotFound: Placement group "training" not found); ` +
					"SubnetsReady=False (SubnetsNotFound: SubnetSelector did not match any Subnets); " +
					"ValidationSucceeded=False (DependenciesNotReady: Awaiting Subnet resolution)",
				Remedy: "fix EC2NodeClass default (spec.placementGroupSelector; spec.subnetSelectorTerms), " +
					"then check its conditions (the command)",
				Commands: []Command{{Argv: []string{"kubectl", "describe", "ec2nodeclass", "default"}, ReadOnly: true}},
			}},
		},
		{
			name: "Ready=False alone is reported",
			edit: func(s *snapshot.Snapshot) {
				s.NodeClasses[0].Conditions = []snapshot.Condition{{Type: "Ready", Status: "False", Reason: "NodeClassNotReady"}}
			},
			want: []Finding{{
				ID: "nodeclass-not-ready", Severity: Critical, Resource: "ec2nodeclass/default",
				Message:  "EC2NodeClass default is not Ready, so Karpenter launches no nodes for NodePool default: Ready=False (NodeClassNotReady)",
				Remedy:   "see its conditions (the command)",
				Commands: []Command{{Argv: []string{"kubectl", "describe", "ec2nodeclass", "default"}, ReadOnly: true}},
			}},
		},
		{name: "class no NodePool uses is silent", edit: edits(notReady, func(s *snapshot.Snapshot) { s.NodePools = nil })},
		{name: "Ready Unknown is silent", edit: func(s *snapshot.Snapshot) {
			s.NodeClasses[0].Conditions = []snapshot.Condition{{Type: "Ready", Status: "Unknown"}}
		}},
		{name: "missing class is silent", edit: edits(notReady, func(s *snapshot.Snapshot) { s.NodeClasses = nil })},
	})
}
