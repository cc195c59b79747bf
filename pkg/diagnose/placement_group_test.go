package diagnose

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestPlacementGroupUnavailable(t *testing.T) {
	const impact = "so Karpenter marks it PlacementGroupReady=False and launches no nodes for it (NodePool training)"
	list := []Command{{Argv: []string{"aws", "ec2", "describe-placement-groups", "--region", "us-west-2"}, ReadOnly: true}}
	runClusterCases(t, placementGroupUnavailable, []checkCase{
		{name: "an available group is silent"},
		{
			name: "a group EC2 did not return fires",
			edit: func(s *snapshot.Snapshot) { s.PlacementGroups = nil },
			want: []Finding{{ID: "placement-group-unavailable", Severity: Critical, Resource: "ec2nodeclass/efa",
				Message: `EC2NodeClass efa spec.placementGroupSelector selects name "training", which DescribePlacementGroups ` +
					"did not return in us-west-2, " + impact,
				Remedy: `create a placement group named "training" with the strategy its nodes need (cluster, partition or ` +
					"spread, yours to choose: EC2 CreatePlacementGroup), or point spec.placementGroupSelector of EC2NodeClass efa " +
					"at an existing group (the command lists them)", Commands: list}},
		},
		{
			name: "a selector ID that is only another group's name fires",
			edit: func(s *snapshot.Snapshot) {
				findClass(s, "efa").PlacementGroupSelector = &snapshot.PlacementGroupSelector{ID: "pg-0gone"}
				s.PlacementGroups = append(s.PlacementGroups, snapshot.PlacementGroup{ID: "pg-0x", Name: "pg-0gone", Strategy: strategyCluster})
			},
			want: []Finding{{ID: "placement-group-unavailable", Severity: Critical, Resource: "ec2nodeclass/efa",
				Message: "EC2NodeClass efa spec.placementGroupSelector selects id pg-0gone, which DescribePlacementGroups " +
					"did not return in us-west-2, " + impact,
				Remedy:   "point spec.placementGroupSelector of EC2NodeClass efa at an existing group (the command lists them)",
				Commands: list}},
		},
		{
			name: "a deleting group fires",
			edit: func(s *snapshot.Snapshot) { s.PlacementGroups[0].State = "deleting" },
			want: []Finding{{ID: "placement-group-unavailable", Severity: Critical, Resource: "ec2nodeclass/efa",
				Message: "EC2NodeClass efa spec.placementGroupSelector selects cluster placement group training, whose state " +
					"is deleting, not available, " + impact,
				Remedy: "wait for a pending group to become available; for a deleting or deleted one, point " +
					"spec.placementGroupSelector of EC2NodeClass efa at an available group"}},
		},
		{name: "a group without state is silent", edit: func(s *snapshot.Snapshot) { s.PlacementGroups[0].State = "" }},
		{name: "placement groups gap is silent", edit: edits(func(s *snapshot.Snapshot) { s.PlacementGroups = nil }, gap(snapshot.SourceDescribePlacementGroups))},
		{name: "EC2 gap is silent", edit: edits(func(s *snapshot.Snapshot) { s.PlacementGroups = nil }, gap(snapshot.SourceEC2))},
	})
}

func TestPlacementGroupClusterMultiAZ(t *testing.T) {
	twoZoneClass := func(s *snapshot.Snapshot) {
		s.Subnets = append(s.Subnets, snapshot.Subnet{ID: subnetB, CIDR: "10.0.2.0/24", Zone: "us-west-2b", ZoneID: "usw2-az2", AvailableIPs: 200})
		c := findClass(s, "efa")
		c.StatusSubnets = append(c.StatusSubnets, snapshot.SubnetStatus{ID: subnetB, Zone: "us-west-2b", ZoneID: "usw2-az2"})
	}
	requirements := func(reqs ...snapshot.Requirement) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) { s.NodePools[1].Requirements = reqs }
	}
	poolFinding := func(allows string) []Finding {
		return []Finding{{ID: "placement-group-cluster-multi-az", Severity: Warning, Resource: "nodepool/training",
			Message: "NodePool training allows " + allows + ", but its EC2NodeClass efa selects cluster placement group " +
				"training, which lives in one zone: launches in the other zones fail for lack of capacity",
			Remedy: "add {key: topology.kubernetes.io/zone, operator: In, values: [us-west-2a]} to " +
				"spec.template.spec.requirements of NodePool training"}}
	}
	zone := corev1.LabelTopologyZone
	runClusterCases(t, placementGroupClusterMultiAZ, []checkCase{
		{name: "one zone pinned is silent"},
		{name: "no zone requirement over one-zone subnets is silent", edit: requirements()},
		{name: "no zone requirement over two zones fires", edit: edits(twoZoneClass, requirements()), want: poolFinding("zones us-west-2a, us-west-2b")},
		{
			name: "no zone requirement and no resolved subnets fires",
			edit: edits(requirements(), func(s *snapshot.Snapshot) { findClass(s, "efa").StatusSubnets = nil }),
			want: poolFinding("any zone (no topology.kubernetes.io/zone requirement)"),
		},
		{
			name: "In with two zones fires",
			edit: edits(twoZoneClass, requirements(snapshot.Requirement{Key: zone, Operator: "In", Values: []string{"us-west-2b", "us-west-2a"}})),
			want: poolFinding("zones us-west-2a, us-west-2b"),
		},
		{
			name: "In with two zones without resolved subnets fires",
			edit: edits(requirements(snapshot.Requirement{Key: zone, Operator: "In", Values: []string{"us-west-2b", "us-west-2a"}}),
				func(s *snapshot.Snapshot) { findClass(s, "efa").StatusSubnets = nil }),
			want: poolFinding("zones us-west-2a, us-west-2b"),
		},
		{
			name: "a zone-ID pin is silent",
			edit: edits(twoZoneClass, requirements(snapshot.Requirement{Key: placementZoneIDKey, Operator: "In", Values: []string{"usw2-az2"}})),
		},
		{
			name: "NotIn leaving one zone is silent",
			edit: edits(twoZoneClass, requirements(snapshot.Requirement{Key: zone, Operator: "NotIn", Values: []string{"us-west-2b"}})),
		},
		{name: "a spread group is silent", edit: edits(twoZoneClass, requirements(), func(s *snapshot.Snapshot) { s.PlacementGroups[0].Strategy = strategySpread })},
		{
			name: "an unread group is silent",
			edit: edits(twoZoneClass, requirements(), func(s *snapshot.Snapshot) { s.PlacementGroups = nil }, gap(snapshot.SourceDescribePlacementGroups)),
		},
		{
			name: "group instances in two zones fire",
			edit: func(s *snapshot.Snapshot) { findInstance(s, instE2).Zone = "us-west-2b" },
			want: []Finding{{ID: "placement-group-cluster-multi-az", Severity: Warning, Resource: "placementgroup/training",
				Message: "cluster placement group training has instances in 2 zones: us-west-2a (1 instance), us-west-2b " +
					"(1 instance); a cluster group lives in one zone",
				Remedy: "pin one zone (topology.kubernetes.io/zone In [us-west-2a]) in the NodePools whose EC2NodeClass " +
					"selects training, and replace the instances in the other zones"}},
		},
		{
			name: "terminated instances do not count",
			edit: func(s *snapshot.Snapshot) {
				in := findInstance(s, instE2)
				in.Zone, in.State = "us-west-2b", "terminated"
			},
		},
	})
}

func TestPlacementGroupSpreadLimit(t *testing.T) {
	// spreadWith makes the training group a spread one and adds members running instances
	// to it in us-west-2a besides the two nodes.
	spreadWith := func(members int, state string) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			s.PlacementGroups[0].Strategy, s.PlacementGroups[0].SpreadLevel = strategySpread, spreadLevelRack
			for i := range members {
				in := instance(fmt.Sprintf("i-0spread%010d", i), fmt.Sprintf("10.0.1.%d", 100+i))
				in.State = state
				in.Placement = snapshot.Placement{GroupName: pgTrain, GroupID: pgTrainID}
				s.Instances = append(s.Instances, in)
			}
		}
	}
	runClusterCases(t, placementGroupSpreadLimit, []checkCase{
		{name: "a cluster group is silent", edit: spreadWith(0, "running")},
		{name: "6 running instances are silent", edit: spreadWith(4, "running")},
		{
			name: "7 running instances in a zone fire",
			edit: spreadWith(5, "running"),
			want: []Finding{{ID: "placement-group-spread-limit", Severity: Warning, Resource: "placementgroup/training",
				Message: "spread placement group training holds 7 running instances, EC2's limit per zone, in us-west-2a (7): " +
					"the next launch there fails and nodes there cannot be replaced before they are removed",
				Remedy: "allow more zones in the NodePools whose EC2NodeClass selects training (topology.kubernetes.io/zone), " +
					"select another spread group for further nodes, or use a partition group for more than 7 nodes per zone"}},
		},
		{name: "stopped instances do not count", edit: spreadWith(5, "stopped")},
		{
			name: "a host-level spread group is silent",
			edit: edits(spreadWith(5, "running"), func(s *snapshot.Snapshot) { s.PlacementGroups[0].SpreadLevel = "host" }),
		},
		{
			name: "an unread group is silent",
			edit: edits(spreadWith(5, "running"), func(s *snapshot.Snapshot) { s.PlacementGroups = nil }, gap(snapshot.SourceDescribePlacementGroups)),
		},
	})
}
