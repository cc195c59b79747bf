package diagnose

import (
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestSecurityGroupDrift(t *testing.T) {
	remedy := "make spec.securityGroupSelectorTerms of EC2NodeClass default select exactly the groups the nodes " +
		"need and let Karpenter replace drifted nodes (EC2NodeClass default serves 1 node (m5.large); each whose groups " +
		"then differ drifts); do not add groups to Karpenter instances by hand"
	drift := func(s *snapshot.Snapshot) {
		s.Instances[0].SecurityGroups = []snapshot.GroupRef{{ID: "sg-0zzz"}, {ID: sgNodes}, {ID: "sg-0extra"}}
		s.NodeClasses[0].StatusSecurityGroups = []snapshot.SecurityGroupStatus{{ID: sgNodes}, {ID: "sg-0cluster"}}
	}
	runCheckCases(t, securityGroupDrift, []checkCase{
		{name: "equal sets are silent"},
		{
			name: "order does not matter",
			edit: func(s *snapshot.Snapshot) {
				s.Instances[0].SecurityGroups = []snapshot.GroupRef{{ID: "sg-0b"}, {ID: "sg-0a"}}
				s.NodeClasses[0].StatusSecurityGroups = []snapshot.SecurityGroupStatus{{ID: "sg-0a"}, {ID: "sg-0b"}}
			},
		},
		{
			name: "missing and extra groups fire",
			edit: drift,
			want: []Finding{{
				ID: "security-group-drift", Severity: Warning, Node: nodeA, Resource: "ec2nodeclass/default",
				Message: "instance " + instanceA + " security groups differ from EC2NodeClass default status.securityGroups: " +
					"missing sg-0cluster; extra sg-0extra, sg-0zzz; Karpenter will replace the node as drifted (SecurityGroupDrift)",
				Remedy: remedy,
			}},
		},
		{name: "empty status is silent", edit: edits(drift, func(s *snapshot.Snapshot) { s.NodeClasses[0].StatusSecurityGroups = nil })},
		{name: "non-Karpenter node is silent", edit: edits(drift, func(s *snapshot.Snapshot) {
			s.NodeClasses, s.NodeClaims, s.NodePools = nil, nil, nil
			delete(s.Nodes[0].Labels, snapshot.LabelEC2NodeClass)
		})},
		{name: "missing instance is silent", edit: edits(drift, func(s *snapshot.Snapshot) { s.Instances = nil })},
	})
}
