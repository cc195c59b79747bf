package cluster

import (
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// zoneID maps the demo account's zone names to zone IDs.
func zoneID(zone string) string {
	return "usw2-az" + string(rune('1'+zone[len(zone)-1]-'a'))
}

// subnetDef describes one subnet of the demo VPC.
type subnetDef struct {
	key  string
	cidr string
	zone string
	tags map[string]string
	// free, when set, is the subnet's AvailableIpAddressCount; otherwise it is computed from
	// what the demo's ENIs use plus some addresses used by other things in the VPC.
	free *int32
}

// subnet is a subnet of the demo VPC and the pool its addresses come from.
type subnet struct {
	subnetDef
	id   string
	pool *pool
}

// network is the demo VPC: subnets, security groups and the placement group.
type network struct {
	vpcID   string
	subnets map[string]*subnet
	// Security group IDs.
	clusterSG, nodeSG, debugSG string
	placementGroup             snapshot.PlacementGroup
}

func ptr[T any](v T) *T { return &v }

func subnetDefs() []subnetDef {
	discovery := func(value, name string) map[string]string {
		t := map[string]string{"Name": name, "kubernetes.io/role/internal-elb": "1"}
		if value != "" {
			t["karpenter.sh/discovery"] = value
		}
		return t
	}
	pods := func(name string) map[string]string {
		return map[string]string{"Name": name, "purpose": "pod-networking"}
	}
	autoPods := func(name string) map[string]string {
		return map[string]string{"Name": name, autoPodSubnetTag: "1"}
	}
	return []subnetDef{
		{key: "private-a", cidr: "10.0.0.0/20", zone: "a", tags: discovery(clusterName, "demo-private-us-west-2a")},
		{key: "private-b", cidr: "10.0.16.0/20", zone: "b", tags: discovery(clusterName, "demo-private-us-west-2b")},
		{key: "private-c", cidr: "10.0.32.0/20", zone: "c", tags: discovery(clusterName, "demo-private-us-west-2c")},
		// The batch subnets are small and shared with other workloads: one is nearly full.
		// With custom networking a node takes one address here, so this is a warning.
		{key: "batch-a", cidr: "10.0.48.0/24", zone: "a", tags: discovery("demo-batch", "demo-batch-us-west-2a"), free: ptr[int32](4)},
		{key: "batch-b", cidr: "10.0.49.0/24", zone: "b", tags: discovery("demo-batch", "demo-batch-us-west-2b"), free: ptr[int32](87)},
		{key: "batch-c", cidr: "10.0.50.0/23", zone: "c", tags: discovery("demo-batch", "demo-batch-us-west-2c")},
		// The legacy subnet lost its discovery tag; a node launched before that still runs there.
		{key: "legacy-c", cidr: "10.0.56.0/22", zone: "c", tags: discovery("", "demo-legacy-us-west-2c")},
		{key: "ml-b", cidr: "10.0.64.0/22", zone: "b", tags: discovery("demo-ml", "demo-ml-us-west-2b")},
		{key: "pods-a", cidr: "100.64.0.0/18", zone: "a", tags: pods("demo-pods-us-west-2a")},
		// The pod subnet of zone b has run dry: the next node there cannot give its pods addresses.
		{key: "pods-b", cidr: "100.64.64.0/18", zone: "b", tags: pods("demo-pods-us-west-2b"), free: ptr[int32](12)},
		{key: "pods-c", cidr: "100.64.128.0/18", zone: "c", tags: pods("demo-pods-us-west-2c")},
		// The Auto Mode NodeClass's pod subnets: someone tagged them in two zones only.
		{key: "web-pods-a", cidr: "100.64.192.0/20", zone: "a", tags: autoPods("demo-web-pods-us-west-2a")},
		{key: "web-pods-b", cidr: "100.64.208.0/20", zone: "b", tags: autoPods("demo-web-pods-us-west-2b")},
	}
}

func newNetwork() *network {
	n := &network{
		vpcID:     hexID("vpc", clusterName),
		subnets:   map[string]*subnet{},
		clusterSG: hexID("sg", "cluster"),
		nodeSG:    hexID("sg", "node"),
		debugSG:   hexID("sg", "debug-ssh"),
		placementGroup: snapshot.PlacementGroup{
			ID: hexID("pg", "training"), Name: "demo-training", Strategy: "cluster", State: "available",
		},
	}
	for _, d := range subnetDefs() {
		n.subnets[d.key] = &subnet{subnetDef: d, id: hexID("subnet", d.key), pool: newPool(d.cidr)}
	}
	return n
}

func (n *network) subnet(key string) *subnet {
	s, ok := n.subnets[key]
	if !ok {
		panic("no subnet " + key)
	}
	return s
}

// podSubnet returns the ENIConfig subnet of a zone.
func (n *network) podSubnet(zone string) *subnet {
	return n.subnet("pods-" + strings.TrimPrefix(zone, region))
}

// snapshotSubnets returns DescribeSubnets for every subnet, once all addresses are handed out
// (fill).
func (n *network) snapshotSubnets() []snapshot.Subnet {
	var out []snapshot.Subnet
	for _, s := range n.subnets {
		// Load balancers, endpoints and other tools' addresses are handed out by fill.
		free := int32(s.pool.usable() - s.pool.inUse())
		zone := region + s.zone
		out = append(out, snapshot.Subnet{
			ID: s.id, VpcID: n.vpcID, CIDR: s.cidr, Zone: zone, ZoneID: zoneID(zone),
			AvailableIPs: free, Tags: s.tags,
		})
	}
	slices.SortFunc(out, func(a, b snapshot.Subnet) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// selected returns the subnets an EC2NodeClass selecting discovery=value resolves to, in
// Karpenter's status order.
func selected(subnets []snapshot.Subnet, value string) []snapshot.SubnetStatus {
	return selectedBy(subnets, func(s snapshot.Subnet) bool { return s.Tags["karpenter.sh/discovery"] == value })
}

// selectedBy returns the subnets for which match is true in Karpenter's status order: most
// available addresses first, then ID.
func selectedBy(subnets []snapshot.Subnet, match func(snapshot.Subnet) bool) []snapshot.SubnetStatus {
	var chosen []snapshot.Subnet
	for _, s := range subnets {
		if match(s) {
			chosen = append(chosen, s)
		}
	}
	slices.SortFunc(chosen, func(a, b snapshot.Subnet) int {
		if a.AvailableIPs != b.AvailableIPs {
			return int(b.AvailableIPs - a.AvailableIPs)
		}
		return strings.Compare(a.ID, b.ID)
	})
	var out []snapshot.SubnetStatus
	for _, s := range chosen {
		out = append(out, snapshot.SubnetStatus{ID: s.ID, Zone: s.Zone, ZoneID: s.ZoneID})
	}
	return out
}
