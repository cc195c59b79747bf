package diagnose

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// efaSpread counts where the EFA nodes of one NodePool or placement group sit.
type efaSpread struct {
	nodes int
	// subnets counts nodes per "subnet-... in ZONE", zones per zone.
	subnets map[string]int
	zones   map[string]int
	// bySubnet counts nodes per subnet ID, to name the busiest one.
	bySubnet map[string]int
}

func (s *efaSpread) add(subnet, zone string) {
	s.nodes++
	s.subnets[fmt.Sprintf("%s in %s", cmp.Or(subnet, "an unknown subnet"), cmp.Or(zone, "an unknown zone"))]++
	if zone != "" {
		s.zones[zone]++
	}
	if subnet != "" {
		s.bySubnet[subnet]++
	}
}

// split reports whether the nodes sit in more than one subnet or zone.
func (s *efaSpread) split() bool { return len(s.bySubnet) > 1 || len(s.zones) > 1 }

// busiest returns the subnet with the most nodes (the first by ID on a tie).
func (s *efaSpread) busiest() string {
	best := ""
	for _, id := range sortedKeys(s.bySubnet) {
		if best == "" || s.bySubnet[id] > s.bySubnet[best] {
			best = id
		}
	}
	return best
}

var specEFASubnetSplit = &Spec{
	ID:       "efa-subnet-split",
	Severity: Warning,
	Family:   FamilyEFA,
	Examines: []string{SubjectNodePool, SubjectPlacementGroup},
	Title:    "the EFA nodes of one NodePool or placement group sit in more than one subnet or zone",
	FiresWhen: "the EFA nodes of one NodePool (with its EC2NodeClass), or of one placement group, sit in more " +
		"than one subnet or zone",
	NotOn: "one class shared by NodePools that each pin a different zone, nodes without EFA interfaces",
	Why: "EFA OS-bypass traffic is only assured within one subnet and does not cross zones; Karpenter " +
		"picks a subnet per zone by free IPs",
	Remedy: "narrow `spec.subnetSelectorTerms` to one subnet or pin one zone in the NodePool, and replace the " +
		"nodes elsewhere",
	Sources: []string{
		"https://docs.aws.amazon.com/parallelcluster/latest/ug/efa-v3.html",
		"aws/karpenter-provider-aws pkg/providers/subnet/subnet.go (ZonalSubnetsForLaunch)",
		"aws/karpenter-provider-aws pkg/providers/launchtemplate/launchtemplate.go (generateNetworkInterfaces: all ENIs in the launch subnet)",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/providers/subnet/subnet.go (ZonalSubnetsForLaunch)",
			"Karpenter picks one subnet per zone, the one with the most free addresses at that moment, so a class selecting several subnets in a zone spreads nodes across them."},
		{UpstreamKarpenter, "pkg/providers/launchtemplate/launchtemplate.go (generateNetworkInterfaces)",
			"An interface without its own SubnetId is created in the launch's subnet, so all of a node's EFA interfaces share it."},
	},
}

// efaSubnetSplit finds NodePools and placement groups whose EFA nodes sit in more than one
// subnet or zone. EFA's OS-bypass traffic is only assured between interfaces of one subnet
// and does not cross zones, so a job spread over them loses EFA between some of its nodes (or
// runs far slower). Karpenter picks a subnet per zone, so a class that selects several
// subnets or a NodePool that allows several zones spreads EFA nodes. It is judged per
// NodePool and per placement group, the units a job runs in: one EC2NodeClass shared by
// NodePools that each pin a different zone is a normal layout.
var efaSubnetSplit = Check{
	Spec: specEFASubnetSplit,
	Run: func(x *Index) []Finding {
		pools, groups := map[string]*efaSpread{}, map[string]*efaSpread{}
		add := func(m map[string]*efaSpread, key string, in *snapshot.Instance, zone string) {
			if m[key] == nil {
				m[key] = &efaSpread{subnets: map[string]int{}, zones: map[string]int{}, bySubnet: map[string]int{}}
			}
			m[key].add(in.SubnetID, zone)
		}
		for _, n := range efaNodes(x) {
			in := n.Instance
			zone := in.Zone
			if zone == "" && n.Subnet != nil {
				zone = n.Subnet.Zone
			}
			if n.PoolName != "" {
				add(pools, n.PoolName, in, zone)
			}
			if inPlacementGroup(in.Placement) {
				name := cmp.Or(in.Placement.GroupName, in.Placement.GroupID)
				if g := instanceGroup(x, in); g != nil {
					name = groupName(g)
				}
				add(groups, name, in, zone)
			}
		}
		var out []Finding
		for _, pool := range sortedKeys(pools) {
			if s := pools[pool]; s.split() {
				out = append(out, splitFinding("nodepool/"+pool, "NodePool "+pool, s,
					fmt.Sprintf("pin one zone (topology.kubernetes.io/zone In) in spec.template.spec.requirements of NodePool %s "+
						"and have its class select one subnet there (%s), then replace the EFA nodes elsewhere", pool, s.busiest())))
			}
		}
		for _, name := range sortedKeys(groups) {
			if s := groups[name]; s.split() {
				out = append(out, splitFinding("placementgroup/"+name, "placement group "+name, s,
					fmt.Sprintf("launch the EFA nodes of placement group %s into one subnet: select only %s in "+
						"spec.subnetSelectorTerms of the EC2NodeClasses that use the group, and replace the nodes elsewhere",
						name, s.busiest())))
			}
		}
		return out
	},
}

// splitFinding describes where the EFA nodes of what sit.
func splitFinding(resource, what string, s *efaSpread, remedy string) Finding {
	return Finding{
		Resource: resource,
		Message: fmt.Sprintf("%s of %s sit in %s and %s: %s; EFA OS-bypass traffic is only assured within one "+
			"subnet and does not cross zones",
			countText(s.nodes, "EFA node", "EFA nodes"), what,
			countText(len(s.bySubnet), "subnet", "subnets"), countText(len(s.zones), "zone", "zones"),
			countsText(s.subnets)),
		Remedy: remedy,
	}
}

var specEFAWithoutPlacementGroup = &Spec{
	ID:        "efa-without-placement-group",
	Severity:  Warning,
	Family:    FamilyEFA,
	Examines:  []string{SubjectNode},
	Title:     "an EFA node is not in a cluster placement group",
	FiresWhen: "an EFA node's instance is in no placement group, or in one whose strategy is not cluster",
	NotOn: "instances in a Capacity Block (InstanceLifecycle `capacity-block` or Karpenter's " +
		"`karpenter.k8s.aws/capacity-reservation-type=capacity-block`), which EC2 places in an " +
		"UltraCluster without a placement group; classes that select a group (left to the placement " +
		"checks)",
	Why: "EFA jobs are latency-bound; a cluster placement group gives them the low, even latency they " +
		"assume",
	Remedy: "create a cluster placement group and select it in `spec.placementGroupSelector` (Karpenter " +
		"1.11+) with one zone pinned",
	Sources: []string{
		"https://docs.aws.amazon.com/parallelcluster/latest/ug/efa-v3.html",
		"aws/karpenter-provider-aws designs/placement-groups-support.md (ML Training with EFA)",
		"aws/karpenter-provider-aws pkg/apis/v1/labels.go (`karpenter.k8s.aws/capacity-reservation-type`)",
	},
	Verified: []Verified{
		{UpstreamEC2API, "types/types.go (Instance.InstanceLifecycle); types/enums.go (InstanceLifecycleType)",
			"An instance's InstanceLifecycle may be capacity-block."},
		{UpstreamKarpenter, "pkg/apis/v1/labels.go (LabelCapacityReservationType); pkg/apis/v1/ec2nodeclass_status.go (CapacityReservationTypeCapacityBlock)",
			"Karpenter labels nodes in a reservation karpenter.k8s.aws/capacity-reservation-type, default or capacity-block."},
		{UpstreamKarpenter, "designs/placement-groups-support.md (ML Training with EFA)",
			"EFA training nodes are meant to sit in a cluster placement group, which colocates them in one zone on one network segment."},
	},
}

// efaWithoutPlacementGroup finds EFA nodes whose instance is in no placement group, or in
// one whose strategy is not cluster. EFA jobs (NCCL, MPI) are latency-bound: a cluster
// placement group packs their instances onto one low-latency network segment, which is what
// EFA's all-reduce numbers assume. Nodes whose EC2NodeClass selects a group are left to the
// placement-group checks, and instances in a Capacity Block are left out: EC2 places those
// close together in an UltraCluster without any placement group.
var efaWithoutPlacementGroup = Check{
	Spec: specEFAWithoutPlacementGroup,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range efaNodes(x) {
			if selectsGroup(n.Class) || inCapacityBlock(n) {
				continue
			}
			in := n.Instance
			f := Finding{Node: n.Name()}
			efas := efaTypeCounts(efaInterfaces(n))
			if !inPlacementGroup(in.Placement) {
				f.Resource = cmp.Or(n.ClassRef(), nodeRef(n.Name()))
				f.Message = fmt.Sprintf("instance %s (%s) has %s attached but is in no placement group, so its EFA "+
					"traffic to other nodes crosses the zone's wider network with higher, less even latency", in.ID, in.Type, efas)
				f.Remedy = "create a cluster placement group, under a name you choose (EC2 CreatePlacementGroup, strategy cluster), " +
					"select it in " + placementWhere(n) + " with one zone pinned, then " + replaceNodeProse(n, "")
				f.Commands = replaceNodeCommands(n)
				out = append(out, f)
				continue
			}
			g := instanceGroup(x, in)
			if g == nil || g.Strategy == strategyCluster || g.Strategy == "" {
				continue
			}
			f.Resource = groupRef(g)
			f.Message = fmt.Sprintf("instance %s (%s) has %s attached but is in %s placement group %s, not a cluster one, "+
				"so its EFA traffic to other nodes does not get cluster placement's low latency", in.ID, in.Type, efas,
				g.Strategy, groupName(g))
			f.Remedy = "select a cluster-strategy placement group in " + placementWhere(n) + ", then " + replaceNodeProse(n, "")
			f.Commands = replaceNodeCommands(n)
			out = append(out, f)
		}
		slices.SortFunc(out, compareFindings)
		return out
	},
}

// placementWhere names where a node's placement group is chosen.
func placementWhere(n *NodeInfo) string {
	if n.ClassName != "" {
		if n.AutoMode() {
			return "spec.placementGroupSelector of " + n.ClassLabel()
		}
		return fmt.Sprintf("spec.placementGroupSelector of EC2NodeClass %s (Karpenter 1.11+)", n.ClassName)
	}
	return "the node group's launch template (Placement.GroupName)"
}

// Capacity Blocks for ML: the instance lifecycle EC2 reports and the label Karpenter sets.
const (
	lifecycleCapacityBlock           = "capacity-block"
	labelCapacityReservationType     = "karpenter.k8s.aws/capacity-reservation-type"
	capacityReservationCapacityBlock = "capacity-block"
)

// inCapacityBlock reports whether the node's instance runs in a Capacity Block: EC2's
// InstanceLifecycle says so, or Karpenter's capacity-reservation-type label.
func inCapacityBlock(n *NodeInfo) bool {
	return n.Instance != nil && n.Instance.Lifecycle == lifecycleCapacityBlock ||
		n.Node.Labels[labelCapacityReservationType] == capacityReservationCapacityBlock
}
