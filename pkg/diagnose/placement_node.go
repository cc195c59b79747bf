package diagnose

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// taintUnregistered is the taint Karpenter keeps on a node until its registration hooks ran.
const taintUnregistered = "karpenter.sh/unregistered"

var specPlacementGroupMismatch = &Spec{
	ID:       "placement-group-mismatch",
	Severity: Warning,
	Family:   FamilyPlacement,
	Examines: []string{SubjectNode},
	Title:    "the instance is in another placement group than its EC2NodeClass or node label says",
	FiresWhen: "the instance's placement group differs from its EC2NodeClass `placementGroupSelector` (id or " +
		"name), or from the node label `karpenter.k8s.aws/placement-group-id`; also when its NodeClaim is already " +
		"`Drifted=True` with reason `PlacementGroupDrift`, and the message then says Karpenter will replace the node " +
		"as drifted once the NodePool's disruption budgets and `karpenter.sh/do-not-disrupt` let it",
	NotOn: "nodes whose class selects no group and that carry no `karpenter.k8s.aws/placement-group-id` " +
		"label, groups karpnet could not tell apart",
	Why: "Karpenter places nodes by the selector and decides drift by the label; an instance elsewhere " +
		"silently loses the placement the workload relies on, and keeps running without it until drift replaces it",
	Remedy: "let drift replace it or `kubectl delete nodeclaim NAME`; restore a hand-edited label with " +
		"`kubectl label node ... --overwrite`",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/cloudprovider/drift.go (PlacementGroupDrift)",
		"aws/karpenter-provider-aws designs/placement-groups-support.md",
		"aws/karpenter-provider-aws#9030",
		"https://karpenter.sh/docs/concepts/disruption/ (drift waits for the NodePool's disruption budgets)",
		"https://karpenter.sh/docs/reference/annotations/ (karpenter.sh/do-not-disrupt blocks drift)",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/cloudprovider/drift.go (isPlacementGroupDrifted)",
			"A NodeClaim whose karpenter.k8s.aws/placement-group-id label differs from the ID of the class's selected group is drifted with reason PlacementGroupDrift."},
		{UpstreamKarpenter, "pkg/cloudprovider/cloudprovider.go (instanceToNodeClaim)",
			"Karpenter labels a NodeClaim karpenter.k8s.aws/placement-group-id with the selected group's ID when it launches it."},
		{UpstreamKarpenter, "pkg/apis/v1/labels.go (LabelPlacementGroupID)",
			"The label key is karpenter.k8s.aws/placement-group-id."},
	},
}

// placementGroupMismatch finds instances in another placement group than their EC2NodeClass
// selects, or than the node's karpenter.k8s.aws/placement-group-id label says. Karpenter
// places nodes by the selector and decides drift (PlacementGroupDrift) and pod affinity by the
// label; an instance elsewhere loses the placement the workload was built around (cluster
// latency, spread or partition fault isolation) without anything saying so.
var placementGroupMismatch = Check{
	Spec: specPlacementGroupMismatch,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			if f := placementMismatch(x, n); f != nil {
				out = append(out, *f)
			}
		}
		return out
	},
}

// placementMismatch returns the node's placement-group-mismatch finding, nil when it has none.
func placementMismatch(x *Index, n *NodeInfo) *Finding {
	if n.Instance == nil {
		return nil
	}
	p := n.Instance.Placement
	if selectsGroup(n.Class) {
		if !inPlacementGroup(p) {
			return nil // placement-group-missing
		}
		sel := n.Class.PlacementGroupSelector
		if same, known := isGroup(x, p, sel.ID, sel.Name); known && !same {
			return withPlacementDrift(n, Finding{
				Node: n.Name(), Resource: n.ClassRef(),
				Message: fmt.Sprintf("instance %s is in placement group %s, but %s "+
					"spec.placementGroupSelector selects %s", n.Instance.ID, placementText(x, p), n.ClassLabel(), selectorText(sel)),
				Remedy: fmt.Sprintf("if the selector was changed, %s replaces the node as drifted "+
					"(PlacementGroupDrift); otherwise %s", n.launcher(), replaceNodeProse(n, "so it launches into the selected group")),
				Commands: replaceNodeCommands(n),
			})
		}
	}
	label := n.Node.Labels[labelPlacementGroupID]
	if label == "" || !inPlacementGroup(p) && selectsGroup(n.Class) {
		return nil
	}
	same, known := isGroup(x, p, label, "")
	if !inPlacementGroup(p) {
		same, known = false, true
	}
	if !known || same {
		return nil
	}
	remedy, commands := labelMismatchRemedy(x, n)
	return withPlacementDrift(n, Finding{
		Node: n.Name(), Resource: nodeRef(n.Name()),
		Message: fmt.Sprintf("instance %s is in %s, but the node label %s is %s",
			n.Instance.ID, placementPhrase(x, p), labelPlacementGroupID, label),
		Remedy:   remedy,
		Commands: commands,
	})
}

// placementPhrase is "placement group NAME (ID)" or "no placement group".
func placementPhrase(x *Index, p snapshot.Placement) string {
	if !inPlacementGroup(p) {
		return "no placement group"
	}
	return "placement group " + placementText(x, p)
}

var specPlacementGroupMissing = &Spec{
	ID:       "placement-group-missing",
	Severity: Warning,
	Family:   FamilyPlacement,
	Examines: []string{SubjectNode},
	Title:    "the EC2NodeClass selects a placement group and the instance is in none",
	FiresWhen: "the EC2NodeClass selects a placement group and the instance is in none; also when its NodeClaim is " +
		"already `Drifted=True` with reason `PlacementGroupDrift`, and the message then says Karpenter will replace " +
		"the node as drifted once the NodePool's disruption budgets and `karpenter.sh/do-not-disrupt` let it",
	NotOn: "classes without `placementGroupSelector`",
	Why: "the node lacks cluster latency or spread/partition fault isolation (launched before the selector " +
		"was set, or by a Karpenter older than v1.11); Karpenter replaces it through drift, but only as the " +
		"NodePool's disruption budgets allow and no `karpenter.sh/do-not-disrupt` holds it, so it stays a warning " +
		"until the replacement happens",
	Remedy: "let drift replace it, or `kubectl delete nodeclaim NAME` now; check Karpenter >= v1.11 and " +
		"`PlacementGroupReady`",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/cloudprovider/drift.go (PlacementGroupDrift)",
		"aws/karpenter-provider-aws designs/placement-groups-support.md",
		"aws/karpenter-provider-aws#9030",
		"https://karpenter.sh/docs/concepts/disruption/ (drift waits for the NodePool's disruption budgets)",
		"https://karpenter.sh/docs/reference/annotations/ (karpenter.sh/do-not-disrupt blocks drift)",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/cloudprovider/drift.go (isPlacementGroupDrifted)",
			"A NodeClaim without the placement-group-id label while its class selects a group is drifted with reason PlacementGroupDrift."},
	},
}

// placementGroupMissing finds instances in no placement group although their EC2NodeClass
// selects one. Such a node, launched before the selector was set or by a Karpenter older than
// v1.11 (which ignores the field), lacks the placement its workload relies on: cluster
// latency for EFA and HPC jobs, or the rack isolation of spread and partition groups.
// Karpenter replaces it as drifted (PlacementGroupDrift), but only as the NodePool's
// disruption budgets and karpenter.sh/do-not-disrupt allow; until then the node runs without
// its placement, so it stays a warning, which says so once its NodeClaim is Drifted.
var placementGroupMissing = Check{
	Spec: specPlacementGroupMissing,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			if f := placementMissing(x, n); f != nil {
				out = append(out, *f)
			}
		}
		return out
	},
}

// placementMissing returns the node's placement-group-missing finding, nil when it has none.
func placementMissing(x *Index, n *NodeInfo) *Finding {
	if n.Instance == nil || !selectsGroup(n.Class) || inPlacementGroup(n.Instance.Placement) {
		return nil
	}
	sel := n.Class.PlacementGroupSelector
	kind := "placement group"
	if g := selectedGroup(x, n.Class); g != nil && g.Strategy != "" {
		kind = g.Strategy + " placement group"
	}
	remedy, commands := placementMissingRemedy(n)
	return withPlacementDrift(n, Finding{
		Node: n.Name(), Resource: n.ClassRef(),
		Message: fmt.Sprintf("instance %s is in no placement group, but %s spec.placementGroupSelector "+
			"selects the %s with %s", n.Instance.ID, n.ClassLabel(), kind, selectorText(sel)),
		Remedy:   remedy,
		Commands: commands,
	})
}

var specPlacementGroupPartitionMismatch = &Spec{
	ID:       "placement-group-partition-mismatch",
	Severity: Warning,
	Family:   FamilyPlacement,
	Examines: []string{SubjectNode},
	Title:    "the node's placement-group-partition label differs from the instance's partition",
	FiresWhen: "a Karpenter node in a partition group has `karpenter.k8s.aws/placement-group-partition` absent, " +
		"empty or different from the instance's partition number",
	NotOn: "nodes still registering (`karpenter.sh/unregistered` taint), EKS Auto Mode nodes",
	Why: "topologySpreadConstraints on the label then put replicas meant for separate racks onto the same " +
		"one",
	Remedy: "`kubectl label node NAME karpenter.k8s.aws/placement-group-partition=N --overwrite`, or replace " +
		"the node",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/cloudprovider/registrationhooks/placementgrouphook.go",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/registration.go (RegistrationHookPending)",
		"aws/karpenter-provider-aws designs/placement-groups-support.md",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/cloudprovider/registrationhooks/placementgrouphook.go (Registered)",
			"For a partition group Karpenter holds registration until it has set karpenter.k8s.aws/placement-group-partition to the instance's partition number read from EC2."},
		{UpstreamKarpenter, "pkg/cloudprovider/cloudprovider.go (instanceToNodeClaim)",
			"A partition group's NodeClaim starts with the partition label empty (or the partition the scheduler targeted) for the hook to fill."},
	},
}

// placementGroupPartitionMismatch finds Karpenter nodes in a partition placement group whose
// karpenter.k8s.aws/placement-group-partition label is absent, empty or not the instance's
// partition. Workloads such as Kafka, HDFS or Cassandra spread replicas over partitions with
// topologySpreadConstraints on that label; a wrong label puts replicas that should sit on
// separate racks onto the same one. Nodes still being registered (taint
// karpenter.sh/unregistered) are skipped, as Karpenter fills the label then. EKS Auto Mode
// nodes are skipped too: Auto Mode does not use karpenter.k8s.aws labels.
var placementGroupPartitionMismatch = Check{
	Spec: specPlacementGroupPartitionMismatch,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			if n.Instance == nil || n.PoolName == "" && n.ClassName == "" || registering(n) || n.AutoMode() {
				continue
			}
			g := instanceGroup(x, n.Instance)
			if g == nil || g.Strategy != strategyPartition {
				continue
			}
			part := n.Instance.Placement.PartitionNumber
			label, ok := n.Node.Labels[labelPlacementGroupPartition]
			var state string
			switch {
			case !ok:
				state = "absent"
			case label == "":
				state = "empty"
			case part > 0 && label != strconv.Itoa(int(part)):
				state = strconv.Quote(label)
			default:
				continue
			}
			partText := "a partition"
			f := Finding{
				Node: n.Name(), Resource: nodeRef(n.Name()),
				Remedy: fmt.Sprintf("set the label to the instance's Placement.PartitionNumber, or %s (the %s); Karpenter "+
					"v1.11+ fills it at registration", replaceNodeProse(n, ""), plural(len(replaceNodeCommands(n)), "command", "commands")),
				Commands: replaceNodeCommands(n),
			}
			if part > 0 {
				partText = fmt.Sprintf("partition %d", part)
				f.Remedy = fmt.Sprintf("set the label to the instance's Placement.PartitionNumber (the label command), "+
					"or %s (the delete command); Karpenter v1.11+ fills it at registration", replaceNodeProse(n, ""))
				label := Command{Argv: []string{"kubectl", "label", "node", n.Name(),
					labelPlacementGroupPartition + "=" + strconv.Itoa(int(part)), "--overwrite"}, Changes: "node/" + n.Name()}
				f.Commands = append([]Command{label}, f.Commands...)
			}
			f.Message = fmt.Sprintf("instance %s is in %s of partition placement group %s, but the node label %s is %s",
				n.Instance.ID, partText, groupName(g), labelPlacementGroupPartition, state)
			out = append(out, f)
		}
		return out
	},
}

// placementMissingRemedy says how to get the node into its class's placement group: the
// node's replacement, and the class's description, whose status says whether the group resolves.
func placementMissingRemedy(n *NodeInfo) (string, []Command) {
	kind, name, _ := strings.Cut(n.ClassRef(), "/")
	commands := append(replaceNodeCommands(n), Command{Argv: []string{"kubectl", "describe", kind, name}, ReadOnly: true})
	if n.AutoMode() {
		return fmt.Sprintf("%s; Auto Mode honours spec.placementGroupSelector since May 2026, and only while the "+
			"group resolves (the describe command shows %s's status)", replaceNodeProse(n, "so EKS Auto Mode launches it into the group"),
			n.ClassLabel()), commands
	}
	return fmt.Sprintf("%s; Karpenter honours spec.placementGroupSelector from v1.11, and only while the group "+
		"resolves (the describe command shows %s's condition PlacementGroupReady)",
		replaceNodeProse(n, "so Karpenter launches it into the group"), n.ClassLabel()), commands
}

// labelMismatchRemedy says how to bring the placement-group-id label and the instance together:
// replace the node, or restore the label when karpnet knows the value it should hold.
func labelMismatchRemedy(x *Index, n *NodeInfo) (string, []Command) {
	remedy := "Karpenter sets the label at launch and decides drift by it: " + replaceNodeProse(n, "")
	commands := replaceNodeCommands(n)
	if v := placementLabelValue(x, n.Instance.Placement); v != "" {
		remedy += ", or if the label was edited by hand, restore it (the label command)"
		commands = append(commands, Command{Argv: []string{"kubectl", "label", "node", n.Name(), labelPlacementGroupID + "=" + v, "--overwrite"},
			Changes: "node/" + n.Name()})
	}
	return remedy, commands
}

// registering reports whether Karpenter has not finished registering the node.
func registering(n *NodeInfo) bool {
	for _, t := range n.Node.Spec.Taints {
		if t.Key == taintUnregistered {
			return true
		}
	}
	return false
}

// placementLabelValue is the placement-group-id label value the instance's placement gives:
// its group ID, or "" in no group.
func placementLabelValue(x *Index, p snapshot.Placement) string {
	if p.GroupID != "" {
		return p.GroupID
	}
	if g := lookupGroup(x, p.GroupID, p.GroupName); g != nil {
		return g.ID
	}
	return ""
}
