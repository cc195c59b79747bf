package diagnose

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ResourceEFA is the extended resource the EFA device plugin advertises.
const ResourceEFA corev1.ResourceName = "vpc.amazonaws.com/efa"

// Describe builds the networking picture of one indexed node, without findings or status
// (Analyze adds those). Sections whose data is missing are nil.
func Describe(x *Index, n *NodeInfo) NodeReport {
	r := NodeReport{
		Identity:  describeIdentity(n),
		Lifecycle: Lifecycle{State: string(n.State), Reason: n.StateReason},
		Platform:  describePlatform(x, n),
		Addresses: describeAddresses(n),
		Subnet:    describeSubnet(n),
		ENIs:      describeENIs(n),
		Findings:  []Finding{},
	}
	if !n.Checked() {
		return r
	}
	r.SecurityGroups = describeSecurityGroups(x, n)
	if n.AutoMode() || n.Windows() || !x.Unavailable(snapshot.SourceAWSNode) {
		if c, ok := nodeCapacity(n, x.CNI()); ok {
			r.Capacity = &c
		}
	}
	r.Cilium = describeCilium(x, n)
	if c := r.Cilium; c != nil && c.Formula != "" && r.Capacity != nil {
		// Cilium addresses the node's pods: its count is the node's IP capacity in every view.
		r.Capacity.IPCapacity = c.PodIPs + c.HostNetworkPods
		r.Capacity.PrefixDelegation = c.PrefixDelegation
		r.Capacity.Formula = fmt.Sprintf("Cilium's ENI IPAM: %s, + %d host-network pods = %d", c.Formula, c.HostNetworkPods,
			r.Capacity.IPCapacity)
	}
	r.AutoMode = describeAutoMode(x, n)
	r.EFA = describeEFA(n)
	r.Placement = describePlacement(x, n)
	r.WayOut = describeWayOut(x, n)
	return r
}

// describeWayOut is the way out of the node's subnet for `describe node`, for its instance
// (public IPv4 or not) and its OS's return ports; nil unless the subnet's route table is
// known.
func describeWayOut(x *Index, n *NodeInfo) *wayout.WayOut {
	if n.Instance == nil || n.Subnet == nil {
		return nil
	}
	return x.net.Describe(n.Subnet, wayout.InstancePublicIP(n.Instance), n.Windows())
}

func describeIdentity(n *NodeInfo) Identity {
	id := Identity{
		Node:         n.Name(),
		ProviderID:   n.Node.Spec.ProviderID,
		InstanceID:   n.Provider.InstanceID,
		Zone:         n.Provider.Zone,
		InstanceType: n.Node.Labels[corev1.LabelInstanceTypeStable],
		NodePool:     n.PoolName,
		NodeClass:    n.ClassName,
		AutoMode:     n.AutoMode(),
	}
	if n.AutoMode() {
		id.NodeClassKind = snapshot.KindNodeClass
	}
	if id.Zone == "" {
		id.Zone = n.Node.Labels[corev1.LabelTopologyZone]
	}
	if n.Claim != nil {
		id.NodeClaim = n.Claim.Name
	}
	if in := n.Instance; in != nil {
		id.InstanceID, id.InstanceState, id.ZoneID = in.ID, in.State, in.ZoneID
		id.InstanceType = cmp.Or(in.Type, id.InstanceType)
		id.Zone = cmp.Or(in.Zone, id.Zone)
	}
	if id.ZoneID == "" && n.Subnet != nil {
		id.ZoneID = n.Subnet.ZoneID
	}
	switch {
	case n.Compute == ComputeFargate || n.Compute == ComputeHybrid:
		id.Skipped = n.StateReason
	case !n.EC2 && n.Node.Spec.ProviderID == "":
		id.Skipped = "no providerID and no EC2 or Karpenter labels: not an EC2 node"
	case !n.EC2:
		id.Skipped = fmt.Sprintf("providerID %q is not an EC2 one", n.Node.Spec.ProviderID)
	case n.ProviderErr != nil:
		id.Skipped = n.ProviderErr.Error()
	case n.Unread != nil:
		id.Skipped = n.StateReason
	}
	return id
}

// describePlatform reports the node's compute kind, OS, IP family and whether aws-node runs there.
func describePlatform(x *Index, n *NodeInfo) Platform {
	p := Platform{Compute: n.Compute, OS: n.OS, VPCCNI: n.VPCCNI, VPCCNIReason: n.VPCCNIReason, NetworkPolicy: networkPolicyText(x, n)}
	if n.EC2 {
		p.IPFamily = n.IPFamily
	}
	return p
}

// describeAddresses compares each InternalIP with the subnet's CIDRs and the instance's
// primary address of its family; what cannot be told is left nil.
func describeAddresses(n *NodeInfo) []AddressReport {
	out := []AddressReport{}
	for _, a := range n.InternalIPs() {
		r := AddressReport{Address: a}
		ip, err := netip.ParseAddr(a)
		if err != nil {
			out = append(out, r)
			continue
		}
		ip = ip.Unmap()
		if n.Subnet != nil {
			if cidrs := subnetCIDRs(n.Subnet, ip.Is6()); len(cidrs) > 0 {
				r.InSubnet = ptr(slices.ContainsFunc(cidrs, func(p netip.Prefix) bool { return p.Contains(ip) }))
			}
		}
		if n.Instance != nil {
			primary := primaryIP(n.Instance)
			if ip.Is6() {
				primary = primaryIPv6(n.Instance)
			}
			if p, err := netip.ParseAddr(primary); err == nil {
				r.IsPrimaryIP = ptr(p.Unmap() == ip)
			}
		}
		out = append(out, r)
	}
	return out
}

func describeSubnet(n *NodeInfo) *SubnetReport {
	if n.Instance == nil || n.Instance.SubnetID == "" {
		return nil
	}
	r := &SubnetReport{ID: n.Instance.SubnetID}
	if s := n.Subnet; s != nil {
		r.CIDR, r.Zone, r.ZoneID, r.AvailableIPs = s.CIDR, s.Zone, s.ZoneID, ptr(s.AvailableIPs)
	}
	if n.Class != nil && len(n.Class.StatusSubnets) > 0 {
		r.Selected = ptr(slices.ContainsFunc(n.Class.StatusSubnets, func(s snapshot.SubnetStatus) bool { return s.ID == r.ID }))
	}
	return r
}

func describeSecurityGroups(x *Index, n *NodeInfo) *SecurityGroups {
	if n.Instance == nil {
		return nil
	}
	r := &SecurityGroups{Groups: []SecurityGroupReport{}}
	want := map[string]bool{}
	if n.Class != nil {
		for _, g := range n.Class.StatusSecurityGroups {
			want[g.ID] = true
		}
		r.NodeClass = sortedKeys(want)
	}
	have := map[string]bool{}
	for _, g := range n.Instance.SecurityGroups {
		have[g.ID] = true
		sg := SecurityGroupReport{ID: g.ID, Name: g.Name}
		if known := x.SecurityGroups[g.ID]; known != nil && known.Name != "" {
			sg.Name = known.Name
		}
		if len(want) > 0 {
			sg.InNodeClass = ptr(want[g.ID])
		}
		r.Groups = append(r.Groups, sg)
	}
	slices.SortFunc(r.Groups, func(a, b SecurityGroupReport) int { return cmp.Compare(a.ID, b.ID) })
	if len(want) > 0 {
		r.Match = ptr(len(setDiff(want, have)) == 0 && len(setDiff(have, want)) == 0)
	}
	return r
}

func describeENIs(n *NodeInfo) []ENIReport {
	out := []ENIReport{}
	if n.Instance == nil {
		return out
	}
	for _, e := range n.Instance.ENIs {
		r := ENIReport{
			NetworkCardIndex: e.NetworkCardIndex,
			DeviceIndex:      e.DeviceIndex,
			ID:               e.ID,
			InterfaceType:    e.InterfaceType,
			SubnetID:         e.SubnetID,
			// The snapshot's own lists, which nothing changes; capped, so that an append
			// to the report's never writes into them.
			PrivateIPs:   e.PrivateIPs[:len(e.PrivateIPs):len(e.PrivateIPs)],
			IPv4Prefixes: e.IPv4Prefixes[:len(e.IPv4Prefixes):len(e.IPv4Prefixes)],
		}
		for _, g := range e.SecurityGroups {
			r.SecurityGroups = append(r.SecurityGroups, g.ID)
		}
		slices.Sort(r.SecurityGroups)
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b ENIReport) int {
		return cmp.Or(cmp.Compare(a.NetworkCardIndex, b.NetworkCardIndex), cmp.Compare(a.DeviceIndex, b.DeviceIndex),
			cmp.Compare(a.ID, b.ID))
	})
	return out
}

func describeEFA(n *NodeInfo) *EFAReport {
	if n.Type == nil {
		return nil
	}
	r := &EFAReport{Supported: n.Type.EFASupported, MaxInterfaces: n.Type.MaxEFAInterfaces}
	if n.Instance != nil {
		for _, e := range n.Instance.ENIs {
			if e.InterfaceType == interfaceEFA || e.InterfaceType == interfaceEFAOnly {
				r.Attached++
			}
		}
	}
	if q, ok := n.Node.Status.Allocatable[ResourceEFA]; ok {
		r.Allocatable = q.Value()
	}
	if n.Class != nil {
		for _, ni := range n.Class.NetworkInterfaces {
			if ni.InterfaceType == interfaceEFAOnly {
				r.NodeClassEFAOnly++
			}
		}
	}
	return r
}

func describePlacement(x *Index, n *NodeInfo) *PlacementReport {
	if n.Instance == nil {
		return nil
	}
	p := n.Instance.Placement
	r := &PlacementReport{GroupName: p.GroupName, GroupID: p.GroupID, Partition: p.PartitionNumber}
	var pg *snapshot.PlacementGroup
	if p.GroupID != "" {
		pg = x.PlacementGroups[p.GroupID]
	}
	if pg == nil && p.GroupName != "" {
		pg = x.PlacementGroups[p.GroupName]
	}
	if pg != nil {
		r.Strategy = pg.Strategy
		r.GroupID, r.GroupName = cmp.Or(r.GroupID, pg.ID), cmp.Or(r.GroupName, pg.Name)
	}
	if n.Class != nil && n.Class.PlacementGroupSelector != nil {
		switch sel := n.Class.PlacementGroupSelector; {
		case sel.ID != "":
			r.NodeClassSelects = "id=" + sel.ID
		case sel.Name != "":
			r.NodeClassSelects = "name=" + sel.Name
		}
	}
	return r
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }
