package sheet

import (
	"cmp"
	"maps"
	"slices"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// PlacementGroupSheetKind is the kind of a PlacementGroupSheet in JSON and YAML.
const PlacementGroupSheetKind = "PlacementGroup"

// SpreadPerZone is the most running instances a spread placement group holds in one zone.
const SpreadPerZone = 7

// PlacementGroupSheet is `describe placementgroup`'s view of one placement group: its
// strategy, the nodes and NodeClaims without a Node whose instances are in it, the classes
// that select it, and its findings.
type PlacementGroupSheet struct {
	Kind           string `json:"kind"`
	APIVersion     string `json:"apiVersion"`
	ID             string `json:"id"`
	Name           string `json:"name"`
	Strategy       string `json:"strategy"`
	PartitionCount int32  `json:"partitionCount,omitempty"`
	SpreadLevel    string `json:"spreadLevel,omitempty"`
	State          string `json:"state,omitempty"`
	// Members are the nodes, then the NodeClaims without a Node, whose instances are in the
	// group, with their partitions in a partition group.
	Members []Member `json:"members"`
	// ZonesFull are the zones where a spread group already holds SpreadPerZone instances or
	// more (pending or running), so that the next launch there fails; empty for other strategies.
	ZonesFull []string `json:"zonesFull"`
	// Classes are the classes whose placementGroupSelector names the group, as
	// ec2nodeclass/NAME or nodeclass/NAME.
	Classes  []string           `json:"classes"`
	Findings []diagnose.Finding `json:"findings"`
}

// DescribePlacementGroup builds the sheet of the placement group with that name or ID from x
// and r, the Report Analyze made of the same snapshot with no selection; false when karpnet
// did not read the group.
func DescribePlacementGroup(x *diagnose.Index, r diagnose.Report, nameOrID string) (PlacementGroupSheet, bool) {
	g := x.PlacementGroups[nameOrID]
	if g == nil {
		return PlacementGroupSheet{}, false
	}
	in := func(i *snapshot.Instance) bool {
		return i != nil && (g.ID != "" && i.Placement.GroupID == g.ID || g.Name != "" && i.Placement.GroupName == g.Name)
	}
	sh := PlacementGroupSheet{
		Kind: PlacementGroupSheetKind, APIVersion: SheetAPIVersion,
		ID: g.ID, Name: g.Name, Strategy: g.Strategy, PartitionCount: g.PartitionCount, SpreadLevel: g.SpreadLevel, State: g.State,
		Members: members(x, r,
			func(n *diagnose.NodeInfo) bool { return in(n.Instance) },
			func(c *diagnose.ClaimInfo) bool { return in(c.Instance) }),
		ZonesFull: []string{},
		Classes:   []string{},
		Findings:  r.About(diagnose.GroupRef(g)),
	}
	if g.Strategy == "spread" {
		perZone := map[string]int{}
		for _, m := range sh.Members {
			if m.Zone != "" && (m.InstanceState == "running" || m.InstanceState == "pending") {
				perZone[m.Zone]++
			}
		}
		for _, z := range slices.Sorted(maps.Keys(perZone)) {
			if perZone[z] >= SpreadPerZone {
				sh.ZonesFull = append(sh.ZonesFull, z)
			}
		}
	}
	for _, c := range x.SortedClasses() {
		if sel := c.PlacementGroupSelector; sel != nil && cmp.Or(sel.ID, sel.Name) != "" &&
			(sel.ID == "" || sel.ID == g.ID) && (sel.Name == "" || sel.Name == g.Name) {
			sh.Classes = append(sh.Classes, diagnose.ClassRef(c))
		}
	}
	return sh, true
}
