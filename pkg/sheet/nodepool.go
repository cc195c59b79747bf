package sheet

import (
	"slices"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// NodePoolSheetKind is the kind of a NodePoolSheet in JSON and YAML.
const NodePoolSheetKind = "NodePool"

// NodePoolSheet is `describe nodepool`'s view of one NodePool: its requirements, the zones its
// class can launch in, its class, conditions, nodes and NodeClaims without a Node, and findings.
type NodePoolSheet struct {
	Kind         string                `json:"kind"`
	APIVersion   string                `json:"apiVersion"`
	Name         string                `json:"name"`
	NodeClassRef snapshot.NodeClassRef `json:"nodeClassRef"`
	// NodeClassKind is the kind the reference resolves to (EC2NodeClass or NodeClass); empty
	// for a kind karpnet does not know. NodeClassFound is true when the class was read.
	NodeClassKind  string `json:"nodeClassKind,omitempty"`
	NodeClassFound bool   `json:"nodeClassFound"`
	// Requirements are all of spec.template.spec.requirements; Zones, InstanceTypes and
	// CapacityTypes pick out the topology.kubernetes.io/zone, node.kubernetes.io/instance-type
	// and karpenter.sh/capacity-type ones (nil when the pool does not constrain them).
	Requirements  []snapshot.Requirement `json:"requirements"`
	Zones         *snapshot.Requirement  `json:"zones,omitempty"`
	InstanceTypes *snapshot.Requirement  `json:"instanceTypes,omitempty"`
	CapacityTypes *snapshot.Requirement  `json:"capacityTypes,omitempty"`
	// ClassZones are the zones of the class's status.subnets, sorted: where the pool's nodes
	// can launch.
	ClassZones []string `json:"classZones"`
	// ZonesWithoutSubnet are the zones the pool's zone requirement (operator In) allows that
	// none of the class's subnets is in: Karpenter can launch nothing there.
	ZonesWithoutSubnet []string `json:"zonesWithoutSubnet"`
	// Disruption is spec.disruption as written; nil when the NodePool leaves it to Karpenter's
	// defaults.
	Disruption *snapshot.Disruption `json:"disruption,omitempty"`
	// Taints and StartupTaints are spec.template.spec.taints and startupTaints.
	Taints        []corev1.Taint       `json:"taints,omitempty"`
	StartupTaints []corev1.Taint       `json:"startupTaints,omitempty"`
	Conditions    []snapshot.Condition `json:"conditions"`
	// Members are the pool's nodes, then its NodeClaims without a Node.
	Members  []Member           `json:"members"`
	Findings []diagnose.Finding `json:"findings"`
}

// labelCapacityType is the well-known requirement key of the capacity type.
const labelCapacityType = "karpenter.sh/capacity-type"

// DescribeNodePool builds the sheet of NodePool name from x and r, the Report Analyze made of
// the same snapshot with no selection; false when x has no such NodePool.
func DescribeNodePool(x *diagnose.Index, r diagnose.Report, name string) (NodePoolSheet, bool) {
	p := x.NodePools[name]
	if p == nil {
		return NodePoolSheet{}, false
	}
	sh := NodePoolSheet{
		Kind: NodePoolSheetKind, APIVersion: SheetAPIVersion, Name: p.Name,
		NodeClassRef: p.NodeClassRef, NodeClassKind: diagnose.RefKind(p.NodeClassRef),
		Requirements:       nonNilSlice(p.Requirements),
		Zones:              requirement(p, corev1.LabelTopologyZone),
		InstanceTypes:      requirement(p, corev1.LabelInstanceTypeStable),
		CapacityTypes:      requirement(p, labelCapacityType),
		ClassZones:         []string{},
		ZonesWithoutSubnet: []string{},
		Disruption:         p.Disruption,
		Taints:             p.Taints,
		StartupTaints:      p.StartupTaints,
		Conditions:         nonNilSlice(p.Conditions),
		Members: members(x, r,
			func(n *diagnose.NodeInfo) bool { return n.PoolName == name },
			func(c *diagnose.ClaimInfo) bool { return c.PoolName == name }),
		Findings: r.About("nodepool/" + name),
	}
	if c := x.ClassOf(p.NodeClassRef); c != nil {
		sh.NodeClassFound = true
		var zones []string
		for _, s := range c.StatusSubnets {
			zones = append(zones, s.Zone)
		}
		sh.ClassZones = nonNilSlice(sortedUnique(zones))
		if sh.Zones != nil && sh.Zones.Operator == "In" {
			for _, z := range sh.Zones.Values {
				if !slices.Contains(sh.ClassZones, z) {
					sh.ZonesWithoutSubnet = append(sh.ZonesWithoutSubnet, z)
				}
			}
		}
	}
	return sh, true
}

// requirement returns the pool's requirement on key, nil when it has none.
func requirement(p *snapshot.NodePool, key string) *snapshot.Requirement {
	i := slices.IndexFunc(p.Requirements, func(r snapshot.Requirement) bool { return r.Key == key })
	if i < 0 {
		return nil
	}
	return &p.Requirements[i]
}
