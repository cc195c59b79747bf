package diagnose

import (
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestEFASecurityGroupSelfRuleMissing(t *testing.T) {
	const sgEFA = "sg-0efa"
	noSelfOut := func(s *snapshot.Snapshot) {
		s.SecurityGroups[0].Outbound = []snapshot.Rule{{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}}}
	}
	// addGroup puts every EFA interface of instance E1 also in sgEFA, with the given rules.
	addGroup := func(in, out []snapshot.Rule) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			s.SecurityGroups = append(s.SecurityGroups, snapshot.SecurityGroup{ID: sgEFA, Name: "efa", Inbound: in, Outbound: out})
			enis := findInstance(s, instE1).ENIs
			for i := 1; i < len(enis); i++ {
				enis[i].SecurityGroups = append(enis[i].SecurityGroups, snapshot.GroupRef{ID: sgEFA})
			}
		}
	}
	self := []snapshot.Rule{{Protocol: "-1", GroupIDs: []string{sgEFA}}}
	remedy := func(g string) string {
		return "allow all traffic in from and out to the group itself on " + g + " (an inbound and an outbound rule naming " +
			"the group itself, protocol -1: the commands); or select a group that has these rules in " +
			"spec.securityGroupSelectorTerms of EC2NodeClass efa"
	}
	// selfRules are the commands that add the rules to group g, whose interfaces are on the nodes affects says.
	selfRules := func(g, affects string) []Command {
		return []Command{
			{Argv: []string{"aws", "ec2", "authorize-security-group-ingress", "--group-id", g, "--protocol", "-1", "--source-group", g},
				Changes: "securitygroup/" + g, Affects: "every interface in " + g + ": " + affects},
			{Argv: []string{"aws", "ec2", "authorize-security-group-egress", "--group-id", g, "--ip-permissions",
				`[{"IpProtocol":"-1","UserIdGroupPairs":[{"GroupId":"` + g + `"}]}]`},
				Changes: "securitygroup/" + g, Affects: "every interface in " + g + ": " + affects},
		}
	}
	finding := func(node, inst, enis, resource, groups string) Finding {
		return Finding{ID: "efa-security-group-self-rule-missing", Severity: Critical, Node: node, Resource: resource,
			Message: "3 of 3 EFA interfaces of instance " + inst + " (" + enis + ") are in " + groups + "; none allows all " +
				"traffic (protocol -1) in from and out to itself, so EFA traffic between nodes is dropped",
			Remedy: remedy(sgNodes), Commands: selfRules(sgNodes, "3 nodes (m5.large, p4d.24xlarge)")}
	}
	runClusterCases(t, efaSecurityGroupSelfRuleMissing, []checkCase{
		{name: "a group with both self rules is silent"},
		{
			name: "outbound only to 0.0.0.0/0 fires on every EFA node",
			edit: noSelfOut,
			want: []Finding{
				finding(nodeE1, instE1, "eni-0efa1e1e1, eni-0efa2e1e1, eni-0efa3e1e1", "securitygroup/"+sgNodes,
					"security group sg-0nodes (no outbound all-traffic rule to itself)"),
				finding(nodeE2, instE2, "eni-0efa1e2e2, eni-0efa2e2e2, eni-0efa3e2e2", "securitygroup/"+sgNodes,
					"security group sg-0nodes (no outbound all-traffic rule to itself)"),
			},
		},
		{
			name: "two groups lacking the rules name the node",
			edit: edits(func(s *snapshot.Snapshot) {
				s.SecurityGroups[0].Inbound = nil
				findInstance(s, instE2).ENIs = findInstance(s, instE2).ENIs[:1]
			},
				addGroup([]snapshot.Rule{{Protocol: "tcp", FromPort: 0, ToPort: 65535, GroupIDs: []string{sgEFA}}}, self)),
			want: func() []Finding {
				f := finding(nodeE1, instE1, "eni-0efa1e1e1, eni-0efa2e1e1, eni-0efa3e1e1", "node/"+nodeE1,
					"security groups sg-0efa (no inbound all-traffic rule from itself), sg-0nodes (no inbound all-traffic rule from itself)")
				f.Remedy, f.Commands = remedy(sgEFA), selfRules(sgEFA, "1 node (p4d.24xlarge)")
				return []Finding{f}
			}(),
		},
		{
			name: "another group with both self rules is enough",
			edit: edits(noSelfOut, func(s *snapshot.Snapshot) { findInstance(s, instE2).ENIs = findInstance(s, instE2).ENIs[:1] },
				addGroup(self, self)),
		},
		{
			name: "a group that was not read may carry the rules",
			edit: edits(noSelfOut, func(s *snapshot.Snapshot) {
				findInstance(s, instE2).ENIs = findInstance(s, instE2).ENIs[:1]
				for i := range findInstance(s, instE1).ENIs {
					findInstance(s, instE1).ENIs[i].SecurityGroups = append(findInstance(s, instE1).ENIs[i].SecurityGroups, snapshot.GroupRef{ID: "sg-0other"})
				}
			}),
		},
		{
			name: "interfaces without groups use the instance's",
			edit: edits(noSelfOut, func(s *snapshot.Snapshot) {
				findInstance(s, instE2).ENIs = findInstance(s, instE2).ENIs[:1]
				for i := range findInstance(s, instE1).ENIs {
					findInstance(s, instE1).ENIs[i].SecurityGroups = nil
				}
			}),
			want: []Finding{finding(nodeE1, instE1, "eni-0efa1e1e1, eni-0efa2e1e1, eni-0efa3e1e1", "securitygroup/"+sgNodes,
				"security group sg-0nodes (no outbound all-traffic rule to itself)")},
		},
		{name: "security groups gap is silent", edit: edits(noSelfOut, gap(snapshot.SourceDescribeSecurityGroups))},
		{name: "instances gap is silent", edit: edits(noSelfOut, func(s *snapshot.Snapshot) { s.Instances = nil }, gap(snapshot.SourceDescribeInstances))},
	})
}

func TestEFASubnetSplit(t *testing.T) {
	moveE2 := func(subnet, zone string) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			in := findInstance(s, instE2)
			in.SubnetID, in.Zone = subnet, zone
			for i := range in.ENIs {
				in.ENIs[i].SubnetID = subnet
			}
		}
	}
	const tail = "; EFA OS-bypass traffic is only assured within one subnet and does not cross zones"
	poolFix := "pin one zone (topology.kubernetes.io/zone In) in spec.template.spec.requirements of NodePool training and " +
		"have its class select one subnet there (subnet-0aaa), then replace the EFA nodes elsewhere"
	groupFix := "launch the EFA nodes of placement group training into one subnet: select only subnet-0aaa in " +
		"spec.subnetSelectorTerms of the EC2NodeClasses that use the group, and replace the nodes elsewhere"
	runClusterCases(t, efaSubnetSplit, []checkCase{
		{name: "EFA nodes in one subnet are silent"},
		{
			name: "two zones fire for the NodePool and the group",
			edit: moveE2(subnetB, "us-west-2b"),
			want: []Finding{
				{ID: "efa-subnet-split", Severity: Warning, Resource: "nodepool/training",
					Message: "2 EFA nodes of NodePool training sit in 2 subnets and 2 zones: subnet-0aaa in us-west-2a (1 node), " +
						"subnet-0bbb in us-west-2b (1 node)" + tail, Remedy: poolFix},
				{ID: "efa-subnet-split", Severity: Warning, Resource: "placementgroup/training",
					Message: "2 EFA nodes of placement group training sit in 2 subnets and 2 zones: subnet-0aaa in us-west-2a " +
						"(1 node), subnet-0bbb in us-west-2b (1 node)" + tail, Remedy: groupFix},
			},
		},
		{
			name: "two subnets of one zone fire; nodes outside any group count for the NodePool only",
			edit: edits(moveE2(subnetB, "us-west-2a"), func(s *snapshot.Snapshot) { findInstance(s, instE2).Placement = snapshot.Placement{} }),
			want: []Finding{{ID: "efa-subnet-split", Severity: Warning, Resource: "nodepool/training",
				Message: "2 EFA nodes of NodePool training sit in 2 subnets and 1 zone: subnet-0aaa in us-west-2a (1 node), " +
					"subnet-0bbb in us-west-2a (1 node)" + tail, Remedy: poolFix}},
		},
		{
			// One EC2NodeClass shared by two NodePools that each pin a zone, and no group.
			name: "one class shared by NodePools pinned to different zones is silent",
			edit: edits(moveE2(subnetB, "us-west-2b"), func(s *snapshot.Snapshot) {
				for _, id := range []string{instE1, instE2} {
					findInstance(s, id).Placement = snapshot.Placement{}
				}
				findNode(s, nodeE2).Labels[snapshot.LabelNodePool] = "training-b"
			}),
		},
		{
			name: "a node without EFA interfaces elsewhere is silent",
			edit: edits(moveE2(subnetB, "us-west-2b"), func(s *snapshot.Snapshot) { findInstance(s, instE2).ENIs = findInstance(s, instE2).ENIs[:1] }),
		},
		{name: "instances gap is silent", edit: edits(moveE2(subnetB, "us-west-2b"), func(s *snapshot.Snapshot) { s.Instances = nil }, gap(snapshot.SourceDescribeInstances))},
	})
}

func TestEFAWithoutPlacementGroup(t *testing.T) {
	noSelector := func(s *snapshot.Snapshot) { findClass(s, "efa").PlacementGroupSelector = nil }
	outOfGroup := func(s *snapshot.Snapshot) { findInstance(s, instE1).Placement = snapshot.Placement{} }
	spread := func(s *snapshot.Snapshot) { s.PlacementGroups[0].Strategy = strategySpread }
	none := func(node, inst, resource, where, replace string, commands []Command) Finding {
		return Finding{ID: "efa-without-placement-group", Severity: Warning, Node: node, Resource: resource,
			Message: "instance " + inst + " (p4d.24xlarge) has 3 EFA interfaces (efa 0, efa-only 3) attached but is in no " +
				"placement group, so its EFA traffic to other nodes crosses the zone's wider network with higher, less even latency",
			Remedy: "create a cluster placement group, under a name you choose (EC2 CreatePlacementGroup, strategy cluster), " +
				"select it in " + where + " with one zone pinned, then replace the node" + replace, Commands: commands}
	}
	notCluster := func(node, inst, claim string) Finding {
		return Finding{ID: "efa-without-placement-group", Severity: Warning, Node: node, Resource: "placementgroup/training",
			Message: "instance " + inst + " (p4d.24xlarge) has 3 EFA interfaces (efa 0, efa-only 3) attached but is in spread " +
				"placement group training, not a cluster one, so its EFA traffic to other nodes does not get cluster placement's low latency",
			Remedy:   "select a cluster-strategy placement group in spec.placementGroupSelector of EC2NodeClass efa (Karpenter 1.11+), then replace the node by deleting its NodeClaim " + claim,
			Commands: claimDeleted(claim, node, "Karpenter")}
	}
	runClusterCases(t, efaWithoutPlacementGroup, []checkCase{
		{name: "EFA nodes in a cluster group are silent"},
		{
			name: "an EFA node in no group fires",
			edit: edits(noSelector, outOfGroup),
			want: []Finding{none(nodeE1, instE1, "ec2nodeclass/efa", "spec.placementGroupSelector of EC2NodeClass efa (Karpenter 1.11+)",
				" by deleting its NodeClaim training-1e1e1", claimDeleted("training-1e1e1", nodeE1, "Karpenter"))},
		},
		{
			name: "a non-Karpenter EFA node names the launch template",
			edit: edits(noSelector, outOfGroup, func(s *snapshot.Snapshot) {
				n := findNode(s, nodeE1)
				n.Labels = map[string]string{"eks.amazonaws.com/nodegroup": "training"}
				s.NodeClaims = s.NodeClaims[:1]
			}),
			want: []Finding{none(nodeE1, instE1, "node/"+nodeE1, "the node group's launch template (Placement.GroupName)",
				": drain it, then terminate its instance", []Command{
					{Argv: []string{"kubectl", "drain", nodeE1, "--ignore-daemonsets", "--delete-emptydir-data"},
						Changes: "node/" + nodeE1 + ": cordoned, its pods evicted"},
					{Argv: []string{"aws", "ec2", "terminate-instances", "--instance-ids", instE1},
						Changes: "instance/" + instE1 + " (node/" + nodeE1 + ")"}})},
		},
		{
			name: "EFA nodes in a spread group fire",
			edit: edits(noSelector, spread),
			want: []Finding{notCluster(nodeE1, instE1, "training-1e1e1"), notCluster(nodeE2, instE2, "training-2e2e2")},
		},
		{name: "a class that selects a group is left to the placement checks", edit: edits(outOfGroup, spread)},
		{name: "a Capacity Block instance needs no placement group", edit: edits(noSelector, outOfGroup, func(s *snapshot.Snapshot) {
			findInstance(s, instE1).Lifecycle = lifecycleCapacityBlock
		})},
		{name: "Karpenter's capacity-block label says so too", edit: edits(noSelector, outOfGroup, func(s *snapshot.Snapshot) {
			findNode(s, nodeE1).Labels[labelCapacityReservationType] = capacityReservationCapacityBlock
		})},
		{
			name: "a group that was not read is silent",
			edit: edits(noSelector, func(s *snapshot.Snapshot) { s.PlacementGroups = nil }, gap(snapshot.SourceDescribePlacementGroups)),
		},
		{name: "instances gap is silent", edit: edits(noSelector, outOfGroup, func(s *snapshot.Snapshot) { s.Instances = nil }, gap(snapshot.SourceDescribeInstances))},
	})
}
