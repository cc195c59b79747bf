package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// placementZoneIDKey is the zone-ID requirement key NodePools may pin zones with.
const placementZoneIDKey = "topology.k8s.aws/zone-id"

var specPlacementGroupClusterMultiAZ = &Spec{
	ID:       "placement-group-cluster-multi-az",
	Severity: Warning,
	Family:   FamilyPlacement,
	Examines: []string{SubjectPlacementGroup, SubjectNodePool},
	Title:    "a cluster placement group's instances or NodePools span more than one zone",
	FiresWhen: "a cluster placement group's instances are in more than one zone, or a NodePool whose " +
		"EC2NodeClass selects a cluster group allows several zones (after intersecting with the class's " +
		"subnet zones)",
	NotOn: "partition and spread groups",
	Why: "a cluster group lives in one zone; launches in other zones fail for lack of capacity and " +
		"scale-ups stall",
	Remedy: "add `{key: topology.kubernetes.io/zone, operator: In, values: [ZONE]}` to the NodePool's " +
		"`spec.template.spec.requirements`",
	Sources: []string{
		"aws/karpenter-provider-aws designs/placement-groups-support.md (cluster strategy pins the AZ)",
		"https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-strategies.html",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "designs/placement-groups-support.md (Cluster)",
			"A cluster placement group cannot span Availability Zones; once it holds instances EC2 keeps new launches in its zone and answers capacity errors for the others."},
	},
}

// placementGroupClusterMultiAZ finds cluster placement groups whose instances sit in more
// than one zone, and NodePools that select a cluster group through their EC2NodeClass while
// allowing several zones. A cluster group lives in one zone: EC2 pins it with the first
// launch, and every launch Karpenter or EC2 Fleet sends to another zone fails for lack of
// capacity, so scale-ups stall and retry; Karpenter's placement design asks for one zone
// pinned in the NodePool.
var placementGroupClusterMultiAZ = Check{
	Spec: specPlacementGroupClusterMultiAZ,
	Run: func(x *Index) []Finding {
		var out []Finding
		members := groupMembers(x, "pending", "running", "stopping", "stopped")
		for _, g := range sortedGroups(members) {
			if g.Strategy != strategyCluster || len(members[g]) < 2 {
				continue
			}
			out = append(out, Finding{
				Resource: groupRef(g),
				Message: fmt.Sprintf("cluster placement group %s has instances in %d zones: %s; a cluster group "+
					"lives in one zone", groupName(g), len(members[g]), zoneCounts(members[g])),
				Remedy: fmt.Sprintf("pin one zone (topology.kubernetes.io/zone In [%s]) in the NodePools whose EC2NodeClass "+
					"selects %s, and replace the instances in the other zones", busiestZone(members[g]), groupName(g)),
			})
		}
		for _, name := range sortedKeys(x.NodePools) {
			p := x.NodePools[name]
			c := x.ClassOf(p.NodeClassRef)
			g := selectedGroup(x, c)
			if g == nil || g.Strategy != strategyCluster {
				continue
			}
			zones, any := poolAllowedZones(x, p, c)
			if !any && len(zones) < 2 {
				continue
			}
			allows := "any zone (no topology.kubernetes.io/zone requirement)"
			if !any {
				allows = "zones " + strings.Join(zones, ", ")
			}
			pin := cmp.Or(busiestZone(members[g]), firstOf(zones), "ZONE")
			out = append(out, Finding{
				Resource: "nodepool/" + p.Name,
				Message: fmt.Sprintf("NodePool %s allows %s, but its %s selects cluster placement group %s, "+
					"which lives in one zone: launches in the other zones fail for lack of capacity",
					p.Name, allows, classLabel(c), groupName(g)),
				Remedy: fmt.Sprintf("add {key: topology.kubernetes.io/zone, operator: In, values: [%s]} to "+
					"spec.template.spec.requirements of NodePool %s", pin, p.Name),
			})
		}
		return out
	},
}

// poolAllowedZones returns the zones a NodePool can launch into: the zones of its EC2NodeClass's
// resolved subnets that its zone and zone-ID requirements allow. Without resolved subnets it is
// the In values of its zone requirement; any is true when it has no zone requirement at all.
func poolAllowedZones(x *Index, p *snapshot.NodePool, c *snapshot.EC2NodeClass) (zones []string, any bool) {
	zoneKeys := []string{corev1.LabelTopologyZone, corev1.LabelFailureDomainBetaZone}
	var reqs []snapshot.Requirement
	for _, r := range p.Requirements {
		if slices.Contains(zoneKeys, r.Key) || r.Key == placementZoneIDKey {
			reqs = append(reqs, r)
		}
	}
	seen := map[string]bool{}
	for _, s := range c.StatusSubnets {
		zone, id := s.Zone, s.ZoneID
		if sn := x.Subnets[s.ID]; sn != nil {
			zone, id = cmp.Or(zone, sn.Zone), cmp.Or(id, sn.ZoneID)
		}
		if zone == "" || seen[zone] {
			continue
		}
		seen[zone] = true
		ok := true
		for _, r := range reqs {
			v := zone
			if r.Key == placementZoneIDKey {
				if id == "" {
					continue
				}
				v = id
			}
			ok = ok && requirementAllows(r, v)
		}
		if ok {
			zones = append(zones, zone)
		}
	}
	if len(seen) > 0 {
		slices.Sort(zones)
		return zones, false
	}
	if len(reqs) == 0 {
		return nil, true
	}
	var in []string
	for _, r := range reqs {
		if r.Operator != string(corev1.NodeSelectorOpIn) {
			continue
		}
		vals := sortedUnique(r.Values)
		if in != nil {
			vals = slices.DeleteFunc(vals, func(v string) bool { return !slices.Contains(in, v) })
		}
		in = vals
	}
	return in, false
}

// requirementAllows reports whether a value meets one In, NotIn, Exists or DoesNotExist
// requirement; other operators do not limit zones.
func requirementAllows(r snapshot.Requirement, v string) bool {
	switch corev1.NodeSelectorOperator(r.Operator) {
	case corev1.NodeSelectorOpIn:
		return slices.Contains(r.Values, v)
	case corev1.NodeSelectorOpNotIn:
		return !slices.Contains(r.Values, v)
	case corev1.NodeSelectorOpDoesNotExist:
		return false
	}
	return true
}

// zoneCounts lists instances per zone as "zone (N instances)".
func zoneCounts(m map[string]int) string {
	var parts []string
	for _, z := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s (%s)", z, countText(m[z], "instance", "instances")))
	}
	return strings.Join(parts, ", ")
}

// busiestZone returns the zone with the most instances (the first by name on a tie), or "".
func busiestZone(m map[string]int) string {
	best := ""
	for _, z := range sortedKeys(m) {
		if best == "" || m[z] > m[best] {
			best = z
		}
	}
	return best
}

// firstOf returns the first element of ss, or "".
func firstOf(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return ss[0]
}
