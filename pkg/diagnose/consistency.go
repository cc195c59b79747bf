package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// consistencyChecks are the NodePool / EC2NodeClass consistency and node-to-node security
// group checks.
func consistencyChecks() []Check {
	return []Check{
		nodePoolZoneUnreachable,
		nodeClassSubnetVPCMismatch,
		nodeClassPublicIPMultiENI,
		securityGroupNodeToNodeBlocked,
		securityGroupClusterTagConflict,
	}
}

// labelZoneID is the zone-ID label Karpenter sets from EC2NodeClass status.subnets[].zoneID.
const labelZoneID = "topology.k8s.aws/zone-id"

var specNodePoolZoneUnreachable = &Spec{
	ID:       "nodepool-zone-unreachable",
	Severity: Critical,
	Lower:    []Severity{Warning},
	Family:   FamilyConsistency,
	Examines: []string{SubjectNodePool},
	Title:    "a NodePool's zone requirement and its EC2NodeClass's subnet zones do not meet",
	FiresWhen: "a NodePool's `topology.kubernetes.io/zone` / `topology.k8s.aws/zone-id` requirement shares no " +
		"zone with its EC2NodeClass's `status.subnets` (critical), or some required zones have no subnet " +
		"(warning)",
	NotOn: "NodePools without a zone requirement, classes whose subnet zones are unknown",
	Why: "Karpenter only launches in zones that have a resolved subnet: with none left it launches " +
		"nothing, and pods tied to an uncovered zone stay Pending",
	Remedy: "add a subnet in the zone to `spec.subnetSelectorTerms`, or change the NodePool's zone " +
		"requirement",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/providers/instancetype/types.go (computeRequirements)",
		"aws/karpenter-provider-aws pkg/providers/subnet/subnet.go (ZonalSubnetsForLaunch)",
		"aws/karpenter-provider-aws pkg/controllers/nodeclass/subnet.go",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/providers/instancetype/types.go (computeRequirements)",
			"An instance type's topology.kubernetes.io/zone requirement is the intersection of its offering zones and the zones of the class's subnets, so a zone without a subnet is never offered."},
		{UpstreamKarpenter, "pkg/providers/instancetype/types.go (computeRequirements); pkg/apis/v1/labels.go (LabelTopologyZoneID)",
			"The topology.k8s.aws/zone-id requirement holds the zone IDs of those subnets' zones."},
		{UpstreamKarpenter, "pkg/providers/subnet/subnet.go (ZonalSubnetsForLaunch)",
			"Launches pick, per zone, one of the class's status.subnets; no subnets in status is an error."},
	},
}

// nodePoolZoneUnreachable finds NodePools whose zone requirement and EC2NodeClass subnets do
// not meet. Karpenter intersects a NodePool's topology.kubernetes.io/zone (or
// topology.k8s.aws/zone-id) requirement with the zones of the NodeClass's resolved subnets:
// with no zone in common it cannot launch a node for the NodePool at all, and pods stay
// Pending; with some required zones uncovered, pods bound to those zones (zonal volumes,
// zone-pinned workloads) never get a node there.
var nodePoolZoneUnreachable = Check{
	Spec: specNodePoolZoneUnreachable,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, name := range sortedKeys(x.NodePools) {
			if f, ok := poolZoneFinding(x, x.NodePools[name]); ok {
				out = append(out, f)
			}
		}
		return out
	},
}

// zoneRule is the combined effect of a NodePool's requirements on one zone key.
type zoneRule struct {
	in    map[string]bool // nil when no In requirement restricts the key
	notIn map[string]bool
}

func (r zoneRule) constrained() bool { return r.in != nil || len(r.notIn) > 0 }

func (r zoneRule) allows(v string) bool {
	return (r.in == nil || r.in[v]) && !r.notIn[v]
}

// required returns the zones an In requirement asks for and NotIn does not exclude, sorted.
func (r zoneRule) required() []string {
	var out []string
	for _, v := range sortedKeys(r.in) {
		if !r.notIn[v] {
			out = append(out, v)
		}
	}
	return out
}

// describe renders the rule for a message, e.g. "topology.kubernetes.io/zone In [a, b]".
func (r zoneRule) describe(key string) string {
	var parts []string
	if r.in != nil {
		parts = append(parts, fmt.Sprintf("%s In [%s]", key, strings.Join(sortedKeys(r.in), ", ")))
	}
	if len(r.notIn) > 0 {
		parts = append(parts, fmt.Sprintf("%s NotIn [%s]", key, strings.Join(sortedKeys(r.notIn), ", ")))
	}
	return strings.Join(parts, " and ")
}

// zoneRuleOf combines the In and NotIn requirements of a NodePool on any of keys.
func zoneRuleOf(reqs []snapshot.Requirement, keys ...string) zoneRule {
	var r zoneRule
	for _, req := range reqs {
		if !slices.Contains(keys, req.Key) {
			continue
		}
		switch req.Operator {
		case string(corev1.NodeSelectorOpIn):
			next := map[string]bool{}
			for _, v := range req.Values {
				if r.in == nil || r.in[v] {
					next[v] = true
				}
			}
			r.in = next
		case string(corev1.NodeSelectorOpNotIn):
			if r.notIn == nil {
				r.notIn = map[string]bool{}
			}
			for _, v := range req.Values {
				r.notIn[v] = true
			}
		}
	}
	return r
}

// classZone is one resolved subnet of an EC2NodeClass with its zone and zone ID.
type classZone struct{ id, zone, zoneID string }

// poolZoneFinding compares one NodePool's zone requirements with its class's subnet zones.
func poolZoneFinding(x *Index, p *snapshot.NodePool) (Finding, bool) {
	zones := zoneRuleOf(p.Requirements, corev1.LabelTopologyZone, corev1.LabelFailureDomainBetaZone)
	ids := zoneRuleOf(p.Requirements, labelZoneID)
	if !zones.constrained() && !ids.constrained() {
		return Finding{}, false
	}
	c := x.ClassOf(p.NodeClassRef)
	if c == nil || len(c.StatusSubnets) == 0 {
		return Finding{}, false
	}
	var subnets []classZone
	haveZone, haveID := map[string]bool{}, map[string]bool{}
	for _, s := range c.StatusSubnets {
		z := classZone{id: s.ID, zone: s.Zone, zoneID: s.ZoneID}
		if sn := x.Subnets[s.ID]; sn != nil {
			z.zone, z.zoneID = cmp.Or(z.zone, sn.Zone), cmp.Or(z.zoneID, sn.ZoneID)
		}
		if z.zone == "" && zones.constrained() || z.zoneID == "" && ids.constrained() {
			return Finding{}, false // the subnet's zone is not known: nothing to compare
		}
		subnets = append(subnets, z)
		haveZone[z.zone], haveID[z.zoneID] = true, true
	}
	usable := slices.ContainsFunc(subnets, func(z classZone) bool {
		return (!zones.constrained() || zones.allows(z.zone)) && (!ids.constrained() || ids.allows(z.zoneID))
	})
	var rules []string
	if zones.constrained() {
		rules = append(rules, zones.describe(corev1.LabelTopologyZone))
	}
	if ids.constrained() {
		rules = append(rules, ids.describe(labelZoneID))
	}
	has := subnetZones(subnets, ids.constrained())
	ref := classLabel(c)
	if !usable {
		return Finding{
			Resource: "nodepool/" + p.Name,
			Message: fmt.Sprintf("NodePool %s requires %s but %s has subnets only in %s: no zone is left, "+
				"so %s can launch no node for this NodePool", p.Name, strings.Join(rules, " and "), ref, has, launcher(c)),
			Remedy: fmt.Sprintf("add a subnet in a required zone to spec.subnetSelectorTerms of %s, or change the zone "+
				"requirement in spec.template.spec.requirements of NodePool %s to zones the class has subnets in (%s)",
				ref, p.Name, has),
		}, true
	}
	var missing []string
	for _, z := range zones.required() {
		if !haveZone[z] {
			missing = append(missing, z)
		}
	}
	for _, z := range ids.required() {
		if !haveID[z] {
			missing = append(missing, z)
		}
	}
	if len(missing) == 0 {
		return Finding{}, false
	}
	list := strings.Join(missing, ", ")
	return Finding{
		Severity: Warning, Resource: "nodepool/" + p.Name,
		Message: fmt.Sprintf("NodePool %s requires %s but %s has no subnet in %s (its subnets are in %s): "+
			"%s launches no node there, so pods that must run in %s stay Pending",
			p.Name, strings.Join(rules, " and "), ref, list, has, launcher(c), list),
		Remedy: fmt.Sprintf("add a subnet in %s to spec.subnetSelectorTerms of %s, or remove %s from the zone "+
			"requirement in spec.template.spec.requirements of NodePool %s", list, ref, list, p.Name),
	}, true
}

// subnetZones lists the distinct zones of subnets, sorted, with their zone IDs when byID.
func subnetZones(subnets []classZone, byID bool) string {
	set := map[string]bool{}
	for _, z := range subnets {
		label := z.zone
		if byID && z.zoneID != "" {
			label = cmp.Or(z.zone, "?") + " (" + z.zoneID + ")"
		}
		set[label] = true
	}
	return strings.Join(sortedKeys(set), ", ")
}
