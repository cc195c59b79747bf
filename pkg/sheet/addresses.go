package sheet

import (
	"net/netip"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// SubnetAddresses accounts for every IPv4 address of a subnet's CIDR: the parts add up to
// Size. What karpnet read (the nodes' and NodeClaims' instances, EC2's free count, AWS's
// reservation) is counted; the rest is held by interfaces karpnet does not read (other
// instances, load balancers, VPC endpoints, Lambda, NAT gateways, ENIs left behind).
type SubnetAddresses struct {
	// Size is the number of addresses of the CIDR.
	Size  int64         `json:"size"`
	Parts []AddressPart `json:"parts"`
}

// AddressPart is one kind of holder of a subnet's addresses.
type AddressPart struct {
	// What names the holder: reserved, free, node-primary-ips, node-primary-prefixes,
	// node-other-ips, node-other-prefixes, nodeclaim-ips, nodeclaim-prefixes, other-ips,
	// other-prefixes, not-read.
	What string `json:"what"`
	// Addresses counts the addresses it holds (16 for a /28 prefix); Interfaces counts the
	// interfaces they are on, where that applies.
	Addresses  int64 `json:"addresses"`
	Interfaces int   `json:"interfaces,omitempty"`
}

// The holders of a subnet's addresses, in the order a sheet lists them.
const (
	AddressesReserved            = "reserved"
	AddressesFree                = "free"
	AddressesNodePrimaryIPs      = "node-primary-ips"
	AddressesNodePrimaryPrefixes = "node-primary-prefixes"
	AddressesNodeOtherIPs        = "node-other-ips"
	AddressesNodeOtherPrefixes   = "node-other-prefixes"
	AddressesClaimIPs            = "nodeclaim-ips"
	AddressesClaimPrefixes       = "nodeclaim-prefixes"
	// AddressesOtherIPs and AddressesOtherPrefixes are the interfaces karpnet read on their
	// own: every other interface of a subnet prefixes are carved from, and those left
	// available.
	AddressesOtherIPs      = "other-ips"
	AddressesOtherPrefixes = "other-prefixes"
	// AddressesNotRead is the rest: the CIDR less every other part. It is negative when the
	// parts read exceed the CIDR (EC2's free count and the instances were read moments apart).
	AddressesNotRead = "not-read"
)

// subnetAddresses accounts for the addresses of subnet s; nil when its CIDR is not IPv4.
func subnetAddresses(x *diagnose.Index, s *snapshot.Subnet) *SubnetAddresses {
	p, err := netip.ParsePrefix(s.CIDR)
	if err != nil || !p.Addr().Is4() {
		return nil
	}
	a := &SubnetAddresses{Size: int64(1) << (32 - p.Bits())}
	counts := map[string]*AddressPart{}
	order := []string{AddressesReserved, AddressesFree, AddressesNodePrimaryIPs, AddressesNodePrimaryPrefixes,
		AddressesNodeOtherIPs, AddressesNodeOtherPrefixes, AddressesClaimIPs, AddressesClaimPrefixes,
		AddressesOtherIPs, AddressesOtherPrefixes}
	for _, w := range order {
		counts[w] = &AddressPart{What: w}
	}
	counts[AddressesReserved].Addresses = min(diagnose.AWSReservedIPs, a.Size)
	counts[AddressesFree].Addresses = int64(s.AvailableIPs)
	add := func(ips, prefixes string, e snapshot.ENI) {
		if n := len(e.PrivateIPs); n > 0 {
			counts[ips].Addresses += int64(n)
			counts[ips].Interfaces++
		}
		if n := prefixAddresses(e.IPv4Prefixes); n > 0 {
			counts[prefixes].Addresses += n
			counts[prefixes].Interfaces++
		}
	}
	for _, n := range x.Nodes {
		for _, e := range n.ENIs() {
			switch {
			case e.SubnetID != s.ID:
			case e.NetworkCardIndex == 0 && e.DeviceIndex == 0:
				add(AddressesNodePrimaryIPs, AddressesNodePrimaryPrefixes, e)
			default:
				add(AddressesNodeOtherIPs, AddressesNodeOtherPrefixes, e)
			}
		}
	}
	for _, c := range x.Claims {
		if c.Instance == nil {
			continue
		}
		for _, e := range c.Instance.ENIs {
			if e.SubnetID == s.ID {
				add(AddressesClaimIPs, AddressesClaimPrefixes, e)
			}
		}
	}
	for i := range x.Snapshot.Interfaces {
		if e := &x.Snapshot.Interfaces[i]; e.SubnetID == s.ID {
			add(AddressesOtherIPs, AddressesOtherPrefixes, snapshot.ENI{PrivateIPs: e.PrivateIPs, IPv4Prefixes: e.IPv4Prefixes})
		}
	}
	rest := a.Size
	for _, w := range order {
		part := *counts[w]
		rest -= part.Addresses
		if part.Addresses != 0 || w == AddressesReserved || w == AddressesFree {
			a.Parts = append(a.Parts, part)
		}
	}
	a.Parts = append(a.Parts, AddressPart{What: AddressesNotRead, Addresses: rest})
	return a
}

// prefixAddresses returns the addresses the IPv4 prefixes hold (16 for each /28); a prefix
// that does not parse counts as a /28, the only size the VPC CNI and Karpenter assign.
func prefixAddresses(prefixes []string) int64 {
	var n int64
	for _, pfx := range prefixes {
		bits := 28
		if p, err := netip.ParsePrefix(pfx); err == nil && p.Addr().Is4() {
			bits = p.Bits()
		}
		n += int64(1) << (32 - bits)
	}
	return n
}
