package diagnose

import (
	"cmp"
	"fmt"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Karpenter labels and placement-group values the placement checks read.
const (
	labelPlacementGroupID        = "karpenter.k8s.aws/placement-group-id"
	labelPlacementGroupPartition = "karpenter.k8s.aws/placement-group-partition"
	strategyCluster              = "cluster"
	strategyPartition            = "partition"
	strategySpread               = "spread"
	spreadLevelRack              = "rack"
	placementGroupAvailable      = "available"
	// spreadLimitPerZone is how many running instances a rack spread group holds per zone.
	spreadLimitPerZone = 7
)

// placementChecks are the placement-group checks.
func placementChecks() []Check {
	return []Check{
		placementGroupMismatch,
		placementGroupMissing,
		placementGroupUnavailable,
		placementGroupClusterMultiAZ,
		placementGroupSpreadLimit,
		placementGroupPartitionMismatch,
	}
}

// inPlacementGroup reports whether an instance is in a placement group.
func inPlacementGroup(p snapshot.Placement) bool { return p.GroupID != "" || p.GroupName != "" }

// lookupGroup returns the placement group with the given ID, else the given name, checking
// that the record really carries it (Index.PlacementGroups is keyed by both); nil when unknown.
func lookupGroup(x *Index, id, name string) *snapshot.PlacementGroup {
	if g := x.PlacementGroups[id]; id != "" && g != nil && g.ID == id {
		return g
	}
	if g := x.PlacementGroups[name]; name != "" && g != nil && g.Name == name {
		return g
	}
	return nil
}

// instanceGroup returns the placement group record of an instance, nil when it is in none or
// the group was not read.
func instanceGroup(x *Index, in *snapshot.Instance) *snapshot.PlacementGroup {
	return lookupGroup(x, in.Placement.GroupID, in.Placement.GroupName)
}

// selectedGroup returns the placement group an EC2NodeClass selects, nil when it selects none
// or the group was not read.
func selectedGroup(x *Index, c *snapshot.EC2NodeClass) *snapshot.PlacementGroup {
	if !selectsGroup(c) {
		return nil
	}
	return lookupGroup(x, c.PlacementGroupSelector.ID, c.PlacementGroupSelector.Name)
}

// selectsGroup reports whether an EC2NodeClass has a placementGroupSelector.
func selectsGroup(c *snapshot.EC2NodeClass) bool {
	return c != nil && c.PlacementGroupSelector != nil && (c.PlacementGroupSelector.ID != "" || c.PlacementGroupSelector.Name != "")
}

// selectorText describes a placementGroupSelector as `id pg-...` or `name "..."`.
func selectorText(sel *snapshot.PlacementGroupSelector) string {
	if sel.ID != "" {
		return "id " + sel.ID
	}
	return fmt.Sprintf("name %q", sel.Name)
}

// isGroup reports whether placement p is the group with the given ID or name; known is false
// when the snapshot cannot tell (p names the group one way and the other is not known).
func isGroup(x *Index, p snapshot.Placement, id, name string) (same, known bool) {
	if id != "" && p.GroupID != "" {
		return p.GroupID == id, true
	}
	if name != "" && p.GroupName != "" {
		return p.GroupName == name, true
	}
	if g := lookupGroup(x, p.GroupID, p.GroupName); g != nil {
		switch {
		case id != "" && g.ID != "":
			return g.ID == id, true
		case name != "" && g.Name != "":
			return g.Name == name, true
		}
	}
	if g := lookupGroup(x, id, name); g != nil {
		switch {
		case p.GroupID != "" && g.ID != "":
			return g.ID == p.GroupID, true
		case p.GroupName != "" && g.Name != "":
			return g.Name == p.GroupName, true
		}
	}
	return false, false
}

// placementText describes an instance's placement group as "NAME (ID)".
func placementText(x *Index, p snapshot.Placement) string {
	name, id := p.GroupName, p.GroupID
	if g := lookupGroup(x, id, name); g != nil {
		name, id = cmp.Or(name, g.Name), cmp.Or(id, g.ID)
	}
	switch {
	case name != "" && id != "":
		return fmt.Sprintf("%s (%s)", name, id)
	case name == "" && id == "":
		return "no placement group"
	}
	return name + id
}

// groupRef returns the resource name of a placement group, placementgroup/NAME-or-ID.
func groupRef(g *snapshot.PlacementGroup) string { return "placementgroup/" + cmp.Or(g.Name, g.ID) }

// groupName names a placement group by name, else ID.
func groupName(g *snapshot.PlacementGroup) string { return cmp.Or(g.Name, g.ID) }
