package diagnose

// The finding of launch-failures-by-zone: one zone's failed launches, in its own figures, and
// the change each cause calls for.

import (
	"fmt"
	"slices"
	"strings"
)

// finding reports the zone when enough NodeClaims failed there in the window, or a zonal
// shift is active; ok is false otherwise.
func (z *zoneLaunches) finding(x *Index) (Finding, bool) {
	failing := z.claims >= launchFailuresMin
	if !failing && len(z.shifted) == 0 {
		return Finding{}, false
	}
	f := Finding{Resource: zoneRef(z.zone)}
	var msg, remedy []string
	if failing {
		msg = append(msg, z.failureText(x))
		remedy = append(remedy, z.remedies(x)...)
	} else {
		f.Severity = Info
	}
	if len(z.shifted) > 0 {
		msg = append(msg, fmt.Sprintf("an ARC zonal shift away from %s (%s) is active for %s %s: Karpenter takes "+
			"the zone's offerings out of those NodePools while it lasts", z.zone, strings.Join(sortedKeys(z.shiftIDs), ", "),
			plural(len(z.shifted), "NodePool", "NodePools"), abbreviate(z.shifted, 5)))
		remedy = append(remedy, "nothing for the zonal shift while it lasts (Karpenter announces its end with a "+
			"ZonalShiftCleared event), as long as the NodePools admit other zones (topology.kubernetes.io/zone)")
	}
	f.Message = "zone " + z.zone + ": " + strings.Join(msg, "; ")
	f.Remedy = strings.Join(remedy, "; ")
	if failing {
		f.Remedy += "; the command lists the failures' events"
		f.Commands = []Command{{Argv: []string{"kubectl", "get", "events", "-A", "--field-selector",
			"involvedObject.kind=NodeClaim,reason=" + reasonICEEvent}, ReadOnly: true}}
	}
	return f, true
}

// failureText says how many NodeClaims failed, when the last did, and what took them.
func (z *zoneLaunches) failureText(x *Index) string {
	t := fmt.Sprintf("%s failed to launch there in the last hour (the last %s ago)",
		countText(z.claims, "NodeClaim", "NodeClaims"), ago(x.Snapshot.Taken.Sub(z.last)))
	var parts []string
	for _, id := range z.subnetsByCount() {
		s := x.Subnets[id]
		parts = append(parts, fmt.Sprintf("%d of them on full subnet %s (%s)", z.subnets[id], subnetText(s), codeSubnetFull))
	}
	for _, code := range sortedKeys(z.codes) {
		if code == codeSubnetFull {
			continue
		}
		p := fmt.Sprintf("%d of them %s", z.codes[code], code)
		if code == codeNoCapacity && len(z.types) > 0 {
			p += " for " + abbreviate(sortedKeys(z.types), 5)
		}
		parts = append(parts, p)
	}
	if len(parts) > 0 {
		t += ", " + strings.Join(parts, ", ")
	}
	if len(z.pools) > 0 {
		t += fmt.Sprintf(" (%s %s)", plural(len(z.pools), "NodePool", "NodePools"), abbreviate(sortedKeys(z.pools), 5))
	}
	return t
}

// subnetsByCount lists the zone's full subnets, most failures first.
func (z *zoneLaunches) subnetsByCount() []string {
	ids := sortedKeys(z.subnets)
	slices.SortStableFunc(ids, func(a, b string) int { return z.subnets[b] - z.subnets[a] })
	return ids
}

// remedies names the change for each cause the zone's failures show.
func (z *zoneLaunches) remedies(x *Index) []string {
	var out []string
	if ids := z.subnetsByCount(); len(ids) > 0 {
		classes := subnetClassNames(x, ids)
		where := "the EC2NodeClasses that select them"
		if len(classes) > 0 {
			where = strings.Join(classes, ", ")
		}
		out = append(out, fmt.Sprintf("add subnets with free addresses in %s to the spec.subnetSelectorTerms of %s "+
			"(Karpenter launches into the roomiest subnet of each zone and sets a full one aside for 3 minutes only), "+
			"or free addresses in %s (see instance-orphaned and eni-leaked for what holds them)", z.zone, where, strings.Join(ids, ", ")))
	}
	others := 0
	for code, n := range z.codes {
		if code != codeSubnetFull {
			others += n
		}
	}
	if others > 0 {
		pools := "the NodePools"
		if len(z.pools) > 0 {
			pools = plural(len(z.pools), "NodePool ", "NodePools ") + strings.Join(sortedKeys(z.pools), ", ")
		}
		out = append(out, fmt.Sprintf("let %s admit more instance types (karpenter.k8s.aws/instance-family, "+
			"instance-category, instance-generation) or other zones, so EC2 Fleet finds capacity elsewhere; Karpenter "+
			"sets the type aside in %s for 3 minutes after each error", pools, z.zone))
	}
	return out
}

// subnetClassNames names the classes whose status.subnets hold any of ids, sorted.
func subnetClassNames(x *Index, ids []string) []string {
	var out []string
	for i := range x.Snapshot.NodeClasses {
		c := &x.Snapshot.NodeClasses[i]
		for _, st := range c.StatusSubnets {
			if slices.Contains(ids, st.ID) {
				out = append(out, classLabel(c))
				break
			}
		}
	}
	return sortedUnique(out)
}

// zoneRef returns the resource name of an availability zone, zone/NAME.
func zoneRef(name string) string { return SubjectZone + "/" + name }
