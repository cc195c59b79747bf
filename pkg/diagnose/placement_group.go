package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specPlacementGroupUnavailable = &Spec{
	ID:       "placement-group-unavailable",
	Severity: Critical,
	Family:   FamilyPlacement,
	Needs:    []string{snapshot.SourceDescribePlacementGroups},
	Examines: []string{SubjectNodeClass},
	Title:    "an EC2NodeClass selects a placement group that does not exist or is not available",
	FiresWhen: "an EC2NodeClass `placementGroupSelector` names a group DescribePlacementGroups did not return, " +
		"or whose state is not available",
	NotOn: "classes without `placementGroupSelector`; DescribePlacementGroups not readable",
	Why: "Karpenter sets `PlacementGroupReady=False` and launches no nodes for the class's NodePools; it " +
		"never creates groups",
	Remedy: "create the group (`aws ec2 create-placement-group`) or point `spec.placementGroupSelector` at an " +
		"existing, available one",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/controllers/nodeclass/placementgroup.go (PlacementGroupNotFound)",
		"aws/karpenter-provider-aws designs/placement-groups-support.md",
		"aws/karpenter-provider-aws#9030",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/providers/placementgroup/types.go (DescribePlacementGroupsInput)",
			"Karpenter looks the selected group up with a state=available filter, so a pending, deleting or deleted group is as good as missing."},
		{UpstreamKarpenter, "pkg/controllers/nodeclass/placementgroup.go (Reconcile)",
			"A selector whose group is not found sets PlacementGroupReady=False, reason PlacementGroupNotFound; a failed lookup gives PlacementGroupResolutionFailed."},
		{UpstreamKarpenter, "pkg/apis/v1/ec2nodeclass_status.go (StatusConditions)",
			"PlacementGroupReady is one of the conditions the class's Ready needs."},
		{UpstreamEC2API, "types/enums.go (PlacementGroupState)",
			"A placement group's state is pending, available, deleting or deleted."},
	},
}

// placementGroupUnavailable finds EC2NodeClasses and Auto Mode NodeClasses whose
// placementGroupSelector names a group
// EC2 does not have, or one that is not available. Karpenter then sets PlacementGroupReady=False
// and the class not Ready, so none of its NodePools launches nodes: pending pods stay Pending.
// Karpenter never creates placement groups itself.
var placementGroupUnavailable = Check{
	Spec: specPlacementGroupUnavailable,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, c := range x.sortedClasses() {
			if !selectsGroup(c) {
				continue
			}
			sel := c.PlacementGroupSelector
			g := selectedGroup(x, c)
			f := Finding{Resource: classRef(c)}
			impact := fmt.Sprintf("so %s marks it PlacementGroupReady=False and launches no nodes for it", launcher(c))
			if pools := poolsOfClass(x, c); len(pools) > 0 {
				impact += " (NodePool " + strings.Join(pools, ", ") + ")"
			}
			switch {
			case g == nil:
				f.Message = fmt.Sprintf("%s spec.placementGroupSelector selects %s, which DescribePlacementGroups "+
					"did not return%s, %s", classLabel(c), selectorText(sel), inRegion(x), impact)
				list := []string{"aws", "ec2", "describe-placement-groups"}
				if x.Snapshot.Region != "" {
					list = append(list, "--region", x.Snapshot.Region)
				}
				f.Commands = []Command{{Argv: list, ReadOnly: true}}
				// An ID names only a group EC2 created; a name can be given to a new group, whose
				// strategy is the user's choice.
				f.Remedy = fmt.Sprintf("point spec.placementGroupSelector of %s at an existing group (the command lists "+
					"them)", classLabel(c))
				if sel.ID == "" && sel.Name != "" {
					f.Remedy = fmt.Sprintf("create a placement group named %q with the strategy its nodes need (cluster, "+
						"partition or spread, yours to choose: EC2 CreatePlacementGroup), or %s", sel.Name, f.Remedy)
				}
			case g.State != "" && g.State != placementGroupAvailable:
				f.Message = fmt.Sprintf("%s spec.placementGroupSelector selects %s placement group %s, whose "+
					"state is %s, not available, %s", classLabel(c), g.Strategy, groupName(g), g.State, impact)
				f.Remedy = fmt.Sprintf("wait for a pending group to become available; for a deleting or deleted one, point "+
					"spec.placementGroupSelector of %s at an available group", classLabel(c))
			default:
				continue
			}
			out = append(out, f)
		}
		return out
	},
}

// inRegion is " in REGION" when the snapshot's Region is known.
func inRegion(x *Index) string {
	if x.Snapshot.Region == "" {
		return ""
	}
	return " in " + x.Snapshot.Region
}

// poolsOfClass returns the sorted names of the NodePools that use class c.
func poolsOfClass(x *Index, c *snapshot.EC2NodeClass) []string {
	var pools []string
	for _, p := range x.Snapshot.NodePools {
		if refersTo(p.NodeClassRef, c) {
			pools = append(pools, p.Name)
		}
	}
	slices.Sort(pools)
	return pools
}

// groupMembers counts, per placement group (by its record), the snapshot's instances in
// each zone whose state is one of states.
func groupMembers(x *Index, states ...string) map[*snapshot.PlacementGroup]map[string]int {
	out := map[*snapshot.PlacementGroup]map[string]int{}
	for i := range x.Snapshot.Instances {
		in := &x.Snapshot.Instances[i]
		if !slices.Contains(states, in.State) || in.Zone == "" {
			continue
		}
		if g := instanceGroup(x, in); g != nil {
			if out[g] == nil {
				out[g] = map[string]int{}
			}
			out[g][in.Zone]++
		}
	}
	return out
}

// sortedGroups returns the groups of m ordered by name, then ID.
func sortedGroups[V any](m map[*snapshot.PlacementGroup]V) []*snapshot.PlacementGroup {
	var gs []*snapshot.PlacementGroup
	for g := range m {
		gs = append(gs, g)
	}
	slices.SortFunc(gs, func(a, b *snapshot.PlacementGroup) int {
		return cmp.Or(strings.Compare(groupName(a), groupName(b)), strings.Compare(a.ID, b.ID))
	})
	return gs
}

var specPlacementGroupSpreadLimit = &Spec{
	ID:        "placement-group-spread-limit",
	Severity:  Warning,
	Family:    FamilyPlacement,
	Examines:  []string{SubjectPlacementGroup},
	Title:     "a spread placement group holds 7 running instances in one zone",
	FiresWhen: "a rack spread placement group holds 7 running instances in one zone",
	NotOn:     "partition and cluster groups, instances that are not running",
	Why: "EC2's limit: the next launch there fails, and replace-then-delete disruption in that zone is " +
		"blocked",
	Remedy: "allow more zones in the NodePools, select another spread group, or use a partition group for " +
		"more than 7 per zone",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/errors/errors.go (IsSpreadPlacementGroupLimitError)",
		"https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-strategies.html",
		"aws/karpenter-provider-aws designs/placement-groups-support.md",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/errors/errors.go (IsSpreadPlacementGroupLimitError)",
			"EC2 answers a launch past a spread group's limit with InsufficientInstanceCapacity, \"You've reached the limit of instances in this spread placement group. A spread placement group can have up to seven instances per Availability Zone.\""},
		{UpstreamEC2API, "types/enums.go (SpreadLevel)",
			"A spread group spreads by rack or by host."},
	},
}

// placementGroupSpreadLimit finds rack spread placement groups that hold 7 running instances
// in one zone, EC2's limit. The next launch there fails ("You've reached the limit of
// instances in this spread placement group"); Karpenter treats it as no capacity for that
// group and zone, and replace-then-delete disruption (drift, consolidation) of the group's
// nodes in that zone is blocked.
var placementGroupSpreadLimit = Check{
	Spec: specPlacementGroupSpreadLimit,
	Run: func(x *Index) []Finding {
		var out []Finding
		members := groupMembers(x, "running")
		for _, g := range sortedGroups(members) {
			if g.Strategy != strategySpread || g.SpreadLevel != "" && g.SpreadLevel != spreadLevelRack {
				continue
			}
			var full []string
			for _, zone := range sortedKeys(members[g]) {
				if members[g][zone] >= spreadLimitPerZone {
					full = append(full, fmt.Sprintf("%s (%d)", zone, members[g][zone]))
				}
			}
			if len(full) == 0 {
				continue
			}
			out = append(out, Finding{
				Resource: groupRef(g),
				Message: fmt.Sprintf("spread placement group %s holds %d running instances, EC2's limit per zone, in %s: "+
					"the next launch there fails and nodes there cannot be replaced before they are removed",
					groupName(g), spreadLimitPerZone, strings.Join(full, ", ")),
				Remedy: fmt.Sprintf("allow more zones in the NodePools whose EC2NodeClass selects %s (topology.kubernetes.io/zone), "+
					"select another spread group for further nodes, or use a partition group for more than %d nodes per zone",
					groupName(g), spreadLimitPerZone),
			})
		}
		return out
	},
}
