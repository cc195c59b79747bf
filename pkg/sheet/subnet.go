package sheet

import (
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/blocks"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// SubnetSheetKind is the kind of a SubnetSheet in JSON and YAML.
const SubnetSheetKind = "Subnet"

// SubnetSheet is `describe subnet`'s view of one subnet: its addresses, what selects it, the
// nodes and NodeClaims without a Node whose instances are in it, its way out and its findings.
type SubnetSheet struct {
	Kind       string   `json:"kind"`
	APIVersion string   `json:"apiVersion"`
	ID         string   `json:"id"`
	VpcID      string   `json:"vpcID,omitempty"`
	Zone       string   `json:"zone"`
	ZoneID     string   `json:"zoneID,omitempty"`
	CIDR       string   `json:"cidr"`
	IPv6CIDRs  []string `json:"ipv6CIDRs,omitempty"`
	// AvailableIPs is EC2's AvailableIpAddressCount; UsableIPs the IPv4 CIDR's size less the
	// five addresses AWS reserves (0 when the CIDR does not parse).
	AvailableIPs int32 `json:"availableIPs"`
	UsableIPs    int64 `json:"usableIPs"`
	// Addresses accounts for every IPv4 address of the CIDR; nil when it is not IPv4.
	Addresses *SubnetAddresses `json:"addresses,omitempty"`
	// Blocks maps its /28 blocks; nil unless karpnet read every interface in it (it does
	// where prefixes are carved).
	Blocks *SubnetBlocks `json:"blocks,omitempty"`
	// MapPublicIPOnLaunch gives instances launched into it a public IPv4 address.
	MapPublicIPOnLaunch bool `json:"mapPublicIPOnLaunch,omitempty"`
	// SelectedBy are the classes, ENIConfigs and the VPC CNI's subnet discovery that put nodes
	// or pods in the subnet.
	SelectedBy []SubnetSelector `json:"selectedBy"`
	// Members are the nodes, then the NodeClaims without a Node, whose instances are in it.
	Members []Member `json:"members"`
	// ENIs are the interfaces in the subnet of nodes' instances, other than those instances'
	// primary ones: with custom networking or subnet discovery, where pods take addresses.
	ENIs []SubnetENI `json:"enis"`
	// WayOut is the subnet's way out, for an instance launched into it; nil when the route
	// tables were not read.
	WayOut   *wayout.WayOut     `json:"wayOut,omitempty"`
	Findings []diagnose.Finding `json:"findings"`
}

// SubnetSelector is one thing that selects a subnet.
type SubnetSelector struct {
	// Kind is EC2NodeClass, NodeClass, ENIConfig or SubnetDiscovery; Name names the object
	// (the tag for subnet discovery); Via says how: status.subnets, podSubnetSelectorTerms,
	// spec.subnet or the tag.
	Kind string `json:"kind"`
	Name string `json:"name"`
	Via  string `json:"via"`
}

// DescribeSubnet builds the sheet of subnet id from x and r, the Report Analyze made of the
// same snapshot (with no selection, so that it holds every finding); false when karpnet did
// not read the subnet.
func DescribeSubnet(x *diagnose.Index, r diagnose.Report, id string) (SubnetSheet, bool) {
	s := x.Subnets[id]
	if s == nil {
		return SubnetSheet{}, false
	}
	sh := SubnetSheet{
		Kind: SubnetSheetKind, APIVersion: SheetAPIVersion,
		ID: s.ID, VpcID: s.VpcID, Zone: s.Zone, ZoneID: s.ZoneID, CIDR: s.CIDR, IPv6CIDRs: s.IPv6CIDRs,
		AvailableIPs: s.AvailableIPs, UsableIPs: diagnose.UsableIPs(s.CIDR), Addresses: subnetAddresses(x, s),
		Blocks:              subnetBlocks(x, s),
		MapPublicIPOnLaunch: s.MapPublicIPOnLaunch,
		SelectedBy:          subnetSelectors(x, s),
		Members: members(x, r,
			func(n *diagnose.NodeInfo) bool { return n.Instance != nil && n.Instance.SubnetID == id },
			func(c *diagnose.ClaimInfo) bool { return c.Instance != nil && c.Instance.SubnetID == id }),
		ENIs:     subnetENIs(x, id),
		WayOut:   x.SubnetWayOut(s),
		Findings: r.About("subnet/" + id),
	}
	return sh, true
}

// SubnetBlocks is a subnet's /28 block map: the counts and, in Map, one character per block
// in address order (BlockChars).
type SubnetBlocks struct {
	diagnose.BlockMap
	Map string `json:"map"`
}

// Cells returns one character per block in address order (BlockChars): from the block
// states when the sheet was made here, else from Map when it holds one character for every
// block of the CIDR (a sheet read back from JSON); "" when neither does, and the map is then
// told by its counts alone. Map is never drawn from when it was cut or is short.
func (b *SubnetBlocks) Cells() string {
	blocks := b.Blocks()
	if len(b.States) == blocks && blocks > 0 {
		out := make([]byte, len(b.States))
		for i, st := range b.States {
			c, ok := BlockChars[st]
			if !ok {
				return ""
			}
			out[i] = c
		}
		return string(out)
	}
	if len(b.Map) == blocks && blocks > 0 && strings.Trim(b.Map, ".+o#x") == "" {
		return b.Map
	}
	return ""
}

// Blocks is how many /28 blocks the map's CIDR holds; the sum of its counts when the CIDR is
// not an IPv4 CIDR of at least one block.
func (b *SubnetBlocks) Blocks() int {
	p, err := netip.ParsePrefix(b.CIDR)
	if err != nil || !p.Addr().Is4() || p.Bits() > 28 {
		return b.Free + b.Partly + b.Full + b.Reserved
	}
	return 1 << (28 - p.Bits())
}

// BlockChars are the characters of a block map, by block state: plain characters that read
// without colour.
var BlockChars = map[string]byte{
	blocks.Free:       '.',
	blocks.PrefixFree: '+',
	blocks.Partly:     'o',
	blocks.Full:       '#',
	blocks.Reserved:   'x',
}

// subnetBlocks maps subnet s's /28 blocks; nil unless its every interface was read.
func subnetBlocks(x *diagnose.Index, s *snapshot.Subnet) *SubnetBlocks {
	m, ok := x.BlockMap(s)
	if !ok {
		return nil
	}
	b := make([]byte, len(m.States))
	for i, st := range m.States {
		b[i] = BlockChars[st]
	}
	return &SubnetBlocks{BlockMap: m, Map: string(b)}
}

// subnetSelectors lists what selects s: the classes whose status.subnets or pod subnet terms
// hold it, the ENIConfigs that name it, and subnet discovery when the subnet carries its tag.
func subnetSelectors(x *diagnose.Index, s *snapshot.Subnet) []SubnetSelector {
	out := []SubnetSelector{}
	for _, c := range x.SortedClasses() {
		for _, st := range c.StatusSubnets {
			if st.ID == s.ID {
				out = append(out, SubnetSelector{Kind: c.KindName(), Name: c.Name, Via: "status.subnets"})
				break
			}
		}
		if len(c.PodSubnetSelectorTerms) > 0 {
			pods, _ := x.PodSubnetsOf(c)
			for _, p := range pods {
				if p.ID == s.ID {
					out = append(out, SubnetSelector{Kind: c.KindName(), Name: c.Name, Via: "podSubnetSelectorTerms"})
					break
				}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(x.ENIConfigs)) {
		if x.ENIConfigs[name].Subnet == s.ID {
			out = append(out, SubnetSelector{Kind: "ENIConfig", Name: name, Via: "spec.subnet"})
		}
	}
	if s.Tags[diagnose.TagRoleCNI] == "1" {
		via := "tag, subnet discovery off"
		if x.SubnetDiscoveryOn() {
			via = "tag, subnet discovery on"
		}
		out = append(out, SubnetSelector{Kind: "SubnetDiscovery", Name: diagnose.TagRoleCNI + "=1", Via: via})
	}
	return out
}

// SubnetENI is one interface of a node's instance in a subnet.
type SubnetENI struct {
	ID   string `json:"id"`
	Node string `json:"node"`
	// InterfaceType is interface, efa, efa-only, trunk or branch.
	InterfaceType    string `json:"interfaceType"`
	NetworkCardIndex int32  `json:"networkCardIndex"`
	DeviceIndex      int32  `json:"deviceIndex"`
	// PrivateIPs and IPv4Prefixes count the interface's private IPv4 addresses and /28 prefixes.
	PrivateIPs   int `json:"privateIPs"`
	IPv4Prefixes int `json:"ipv4Prefixes"`
}

// subnetENIs returns the ENIs in subnet id of the nodes' instances, leaving out the primary
// interface (card 0, device 0) of an instance that is in the subnet itself, by node name.
func subnetENIs(x *diagnose.Index, id string) []SubnetENI {
	out := []SubnetENI{}
	for _, n := range x.Nodes {
		for _, e := range n.ENIs() {
			if e.SubnetID != id || e.NetworkCardIndex == 0 && e.DeviceIndex == 0 && n.Instance.SubnetID == id {
				continue
			}
			out = append(out, SubnetENI{ID: e.ID, Node: n.Name(), InterfaceType: e.InterfaceType,
				NetworkCardIndex: e.NetworkCardIndex, DeviceIndex: e.DeviceIndex,
				PrivateIPs: len(e.PrivateIPs), IPv4Prefixes: len(e.IPv4Prefixes)})
		}
	}
	return out
}
