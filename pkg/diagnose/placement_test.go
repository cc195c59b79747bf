package diagnose

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// otherGroup adds cluster placement group "other" (pg-0other) and moves instance E1 into it.
func otherGroup(s *snapshot.Snapshot) {
	s.PlacementGroups = append(s.PlacementGroups, snapshot.PlacementGroup{ID: "pg-0other", Name: "other", Strategy: strategyCluster, State: "available"})
	findInstance(s, instE1).Placement = snapshot.Placement{GroupName: "other", GroupID: "pg-0other"}
}

// placementDrifted marks the NodeClaim of node Drifted=True with reason PlacementGroupDrift.
func placementDrifted(node string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		for i := range s.NodeClaims {
			if s.NodeClaims[i].NodeName == node {
				s.NodeClaims[i].Conditions = append(s.NodeClaims[i].Conditions,
					snapshot.Condition{Type: "Drifted", Status: "True", Reason: reasonPlacementGroupDrift})
			}
		}
	}
}

// driftWait is what a placement finding adds for a NodeClaim of NodePool training already
// Drifted for its placement group; driftRemedy its remedy.
func driftWait(claim string) string {
	return "NodeClaim " + claim + " is already Drifted=True (PlacementGroupDrift): Karpenter will replace the node " +
		"as drifted once the disruption budgets of NodePool training allow and no karpenter.sh/do-not-disrupt " +
		"annotation holds it, and until then it runs without its placement"
}

func driftRemedy(claim string) string {
	return "nothing to do if the selector change was meant, but if the replacement waits: check " +
		"spec.disruption.budgets of NodePool training and karpenter.sh/do-not-disrupt on the node, its NodeClaim and " +
		"its pods, or replace the node now by deleting its NodeClaim " + claim
}

// TestPlacementDriftOneWarningPerNode runs every check over a node out of its placement
// group whose NodeClaim is already Drifted for it: one warning for the node, no info besides.
func TestPlacementDriftOneWarningPerNode(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*snapshot.Snapshot)
		want []string
	}{
		{name: "missing", edit: edits(func(s *snapshot.Snapshot) { findInstance(s, instE2).Placement = snapshot.Placement{} },
			placementDrifted(nodeE2)), want: []string{"warning placement-group-missing " + nodeE2 + " ec2nodeclass/efa"}},
		{name: "mismatch", edit: edits(otherGroup, placementDrifted(nodeE1)),
			want: []string{"warning placement-group-mismatch " + nodeE1 + " ec2nodeclass/efa"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range Analyze(edited(efaCluster(), tc.edit), Options{}).Findings {
				if f.Node == nodeE1 || f.Node == nodeE2 {
					got = append(got, fmt.Sprintf("%s %s %s %s", f.Severity, f.ID, f.Node, f.Resource))
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findings on the EFA nodes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlacementGroupMismatch(t *testing.T) {
	byID := func(s *snapshot.Snapshot) {
		findClass(s, "efa").PlacementGroupSelector = &snapshot.PlacementGroupSelector{ID: pgTrainID}
	}
	nameOnly := func(s *snapshot.Snapshot) { findInstance(s, instE1).Placement.GroupID = "" }
	noSelector := func(s *snapshot.Snapshot) { findClass(s, "efa").PlacementGroupSelector = nil }
	label := func(v string) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) { findNode(s, nodeE1).Labels[labelPlacementGroupID] = v }
	}
	classFinding := func(sel string) []Finding {
		return []Finding{{ID: "placement-group-mismatch", Severity: Warning, Node: nodeE1, Resource: "ec2nodeclass/efa",
			Message: "instance " + instE1 + " is in placement group other (pg-0other), but EC2NodeClass efa " +
				"spec.placementGroupSelector selects " + sel,
			Remedy: "if the selector was changed, Karpenter replaces the node as drifted (PlacementGroupDrift); otherwise " +
				"replace the node so it launches into the selected group by deleting its NodeClaim training-1e1e1",
			Commands: claimDeleted("training-1e1e1", nodeE1, "Karpenter")}}
	}
	replace := "Karpenter sets the label at launch and decides drift by it: replace the node by deleting its NodeClaim training-1e1e1"
	relabel := func(v string) []Command {
		return append(claimDeleted("training-1e1e1", nodeE1, "Karpenter"), Command{
			Argv:    []string{"kubectl", "label", "node", nodeE1, "karpenter.k8s.aws/placement-group-id=" + v, "--overwrite"},
			Changes: "node/" + nodeE1})
	}
	runClusterCases(t, placementGroupMismatch, []checkCase{
		{name: "instances in the selected group are silent"},
		{name: "another group than the selector's name fires", edit: otherGroup, want: classFinding(`name "training"`)},
		{name: "another group than the selector's ID fires", edit: edits(otherGroup, byID), want: classFinding("id " + pgTrainID)},
		{
			name: "a name-only placement is resolved to its ID",
			edit: edits(otherGroup, byID, nameOnly),
			want: []Finding{{ID: "placement-group-mismatch", Severity: Warning, Node: nodeE1, Resource: "ec2nodeclass/efa",
				Message: "instance " + instE1 + " is in placement group other (pg-0other), but EC2NodeClass efa " +
					"spec.placementGroupSelector selects id " + pgTrainID,
				Remedy: classFinding("")[0].Remedy, Commands: classFinding("")[0].Commands}},
		},
		{name: "a name-only placement in the selected group is silent", edit: edits(byID, nameOnly)},
		{
			name: "a name-only placement of an unread group is silent",
			edit: edits(otherGroup, byID, nameOnly, func(s *snapshot.Snapshot) { s.PlacementGroups = nil }, gap(snapshot.SourceDescribePlacementGroups)),
		},
		{
			name: "a label naming another group fires",
			edit: edits(noSelector, label("pg-0old")),
			want: []Finding{{ID: "placement-group-mismatch", Severity: Warning, Node: nodeE1, Resource: "node/" + nodeE1,
				Message: "instance " + instE1 + " is in placement group training (pg-0train), but the node label " +
					"karpenter.k8s.aws/placement-group-id is pg-0old",
				Remedy:   replace + ", or if the label was edited by hand, restore it (the label command)",
				Commands: relabel("pg-0train")}},
		},
		{
			name: "a stale label fires even when the class matches",
			edit: label("pg-0old"),
			want: []Finding{{ID: "placement-group-mismatch", Severity: Warning, Node: nodeE1, Resource: "node/" + nodeE1,
				Message: "instance " + instE1 + " is in placement group training (pg-0train), but the node label " +
					"karpenter.k8s.aws/placement-group-id is pg-0old",
				Remedy:   replace + ", or if the label was edited by hand, restore it (the label command)",
				Commands: relabel("pg-0train")}},
		},
		{
			name: "a label on an instance in no group fires",
			edit: edits(noSelector, func(s *snapshot.Snapshot) { findInstance(s, instE1).Placement = snapshot.Placement{} }),
			want: []Finding{{ID: "placement-group-mismatch", Severity: Warning, Node: nodeE1, Resource: "node/" + nodeE1,
				Message: "instance " + instE1 + " is in no placement group, but the node label " +
					"karpenter.k8s.aws/placement-group-id is pg-0train",
				Remedy: replace, Commands: claimDeleted("training-1e1e1", nodeE1, "Karpenter")}},
		},
		{
			name: "an instance in no group although the class selects one is left to placement-group-missing",
			edit: func(s *snapshot.Snapshot) { findInstance(s, instE1).Placement = snapshot.Placement{} },
		},
		{name: "a NodeClaim already Drifted for it stays a warning that says it waits for drift",
			edit: edits(otherGroup, placementDrifted(nodeE1)), want: []Finding{{ID: "placement-group-mismatch",
				Severity: Warning, Node: nodeE1, Resource: "ec2nodeclass/efa",
				Message:  classFinding(`name "training"`)[0].Message + "; " + driftWait("training-1e1e1"),
				Remedy:   driftRemedy("training-1e1e1"),
				Commands: claimDeleted("training-1e1e1", nodeE1, "Karpenter")}}},
		{name: "instances gap is silent", edit: edits(otherGroup, func(s *snapshot.Snapshot) { s.Instances = nil }, gap(snapshot.SourceDescribeInstances))},
		{
			name: "EC2NodeClass gap falls back to the label",
			edit: edits(otherGroup, func(s *snapshot.Snapshot) { s.NodeClasses = nil }, gap(snapshot.SourceNodeClasses)),
			want: []Finding{{ID: "placement-group-mismatch", Severity: Warning, Node: nodeE1, Resource: "node/" + nodeE1,
				Message: "instance " + instE1 + " is in placement group other (pg-0other), but the node label " +
					"karpenter.k8s.aws/placement-group-id is pg-0train",
				Remedy:   replace + ", or if the label was edited by hand, restore it (the label command)",
				Commands: relabel("pg-0other")}},
		},
	})
}

func TestPlacementGroupMissing(t *testing.T) {
	outOfGroup := func(s *snapshot.Snapshot) { findInstance(s, instE2).Placement = snapshot.Placement{} }
	finding := func(kind string) []Finding {
		return []Finding{{ID: "placement-group-missing", Severity: Warning, Node: nodeE2, Resource: "ec2nodeclass/efa",
			Message: "instance " + instE2 + " is in no placement group, but EC2NodeClass efa spec.placementGroupSelector " +
				"selects the " + kind + ` with name "training"`,
			Remedy: "replace the node so Karpenter launches it into the group by deleting its NodeClaim training-2e2e2; " +
				"Karpenter honours spec.placementGroupSelector from v1.11, and only while the group resolves " +
				"(the describe command shows EC2NodeClass efa's condition PlacementGroupReady)",
			Commands: append(claimDeleted("training-2e2e2", nodeE2, "Karpenter"),
				Command{Argv: []string{"kubectl", "describe", "ec2nodeclass", "efa"}, ReadOnly: true})}}
	}
	runClusterCases(t, placementGroupMissing, []checkCase{
		{name: "instances in the group are silent"},
		{name: "an instance in no group fires", edit: outOfGroup, want: finding("cluster placement group")},
		{
			name: "an unread group still fires",
			edit: edits(outOfGroup, func(s *snapshot.Snapshot) { s.PlacementGroups = nil }, gap(snapshot.SourceDescribePlacementGroups)),
			want: finding("placement group"),
		},
		{name: "a class without selector is silent", edit: edits(outOfGroup, func(s *snapshot.Snapshot) { findClass(s, "efa").PlacementGroupSelector = nil })},
		{name: "a NodeClaim already Drifted for it stays a warning that says it waits for drift",
			edit: edits(outOfGroup, placementDrifted(nodeE2)), want: []Finding{{ID: "placement-group-missing",
				Severity: Warning, Node: nodeE2, Resource: "ec2nodeclass/efa",
				Message:  finding("cluster placement group")[0].Message + "; " + driftWait("training-2e2e2"),
				Remedy:   driftRemedy("training-2e2e2"),
				Commands: claimDeleted("training-2e2e2", nodeE2, "Karpenter")}}},
		{name: "instances gap is silent", edit: edits(outOfGroup, func(s *snapshot.Snapshot) { s.Instances = nil }, gap(snapshot.SourceDescribeInstances))},
		{name: "EC2NodeClass gap is silent", edit: edits(outOfGroup, func(s *snapshot.Snapshot) { s.NodeClasses = nil }, gap(snapshot.SourceNodeClasses))},
	})
}

func TestPlacementGroupPartitionMismatch(t *testing.T) {
	partition := func(s *snapshot.Snapshot) {
		s.PlacementGroups[0].Strategy, s.PlacementGroups[0].PartitionCount = strategyPartition, 2
		for i, id := range []string{instE1, instE2} {
			findInstance(s, id).Placement.PartitionNumber = int32(i + 1)
			findNode(s, []string{nodeE1, nodeE2}[i]).Labels[labelPlacementGroupPartition] = fmt.Sprint(i + 1)
		}
	}
	label := func(v string, set bool) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			if !set {
				delete(findNode(s, nodeE2).Labels, labelPlacementGroupPartition)
				return
			}
			findNode(s, nodeE2).Labels[labelPlacementGroupPartition] = v
		}
	}
	finding := func(state string) []Finding {
		return []Finding{{ID: "placement-group-partition-mismatch", Severity: Warning, Node: nodeE2, Resource: "node/" + nodeE2,
			Message: "instance " + instE2 + " is in partition 2 of partition placement group training, but the node label " +
				"karpenter.k8s.aws/placement-group-partition is " + state,
			Remedy: "set the label to the instance's Placement.PartitionNumber (the label command), or replace the " +
				"node by deleting its NodeClaim training-2e2e2 (the delete command); Karpenter v1.11+ fills it at " +
				"registration",
			Commands: []Command{
				{Argv: []string{"kubectl", "label", "node", nodeE2, "karpenter.k8s.aws/placement-group-partition=2", "--overwrite"},
					Changes: "node/" + nodeE2},
				{Argv: []string{"kubectl", "delete", "nodeclaim", "training-2e2e2"},
					Changes: "nodeclaim/training-2e2e2 and node/" + nodeE2 + ": Karpenter drains the node and terminates its instance"},
			}}}
	}
	runClusterCases(t, placementGroupPartitionMismatch, []checkCase{
		{name: "a cluster group without partition labels is silent"},
		{name: "matching partition labels are silent", edit: partition},
		{name: "an absent label fires", edit: edits(partition, label("", false)), want: finding("absent")},
		{name: "an empty label fires", edit: edits(partition, label("", true)), want: finding("empty")},
		{name: "another partition fires", edit: edits(partition, label("1", true)), want: finding(`"1"`)},
		{
			name: "a node still registering is silent",
			edit: edits(partition, label("", true), func(s *snapshot.Snapshot) {
				findNode(s, nodeE2).Spec.Taints = []corev1.Taint{{Key: taintUnregistered, Effect: corev1.TaintEffectNoExecute}}
			}),
		},
		{
			name: "a non-Karpenter node is silent",
			edit: edits(partition, label("", false), func(s *snapshot.Snapshot) {
				findNode(s, nodeE2).Labels = map[string]string{"eks.amazonaws.com/nodegroup": "ng-1"}
				s.NodeClaims = s.NodeClaims[:2]
			}),
		},
		{
			name: "an unread group is silent",
			edit: edits(partition, label("", false), func(s *snapshot.Snapshot) { s.PlacementGroups = nil }, gap(snapshot.SourceDescribePlacementGroups)),
		},
	})
}
