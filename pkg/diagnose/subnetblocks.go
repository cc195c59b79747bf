package diagnose

import (
	"cmp"
	"net/netip"
	"slices"
	"strings"
	"sync"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// A subnet's /28 blocks. EC2 carves an IPv4 prefix for prefix delegation (or an
// ipPrefixCount) from an aligned /28 block of the subnet none of whose addresses is in use,
// outside the five addresses AWS reserves and outside explicit CIDR reservations; a prefix
// reservation keeps its blocks for prefixes (EC2 User Guide, "Assign prefixes to network
// interfaces"; VPC User Guide, "Subnet CIDR reservations"). A subnet can so have hundreds of
// free addresses and no free block.

// Block states of a BlockMap.
const (
	// BlockFree: no address of the block is held; a prefix can be carved from it.
	BlockFree = "free"
	// BlockPrefixFree: free, inside a prefix reservation (kept for prefixes).
	BlockPrefixFree = "free-for-prefixes"
	// BlockPartly: some of its addresses are held, so no prefix fits.
	BlockPartly = "partly"
	// BlockFull: a prefix or sixteen addresses hold all of it.
	BlockFull = "full"
	// BlockReserved: AWS's reserved addresses or an explicit CIDR reservation are in it.
	BlockReserved = "reserved"
)

// blockSize is the number of IPv4 addresses of a /28 block.
const blockSize = 16

// BlockMap is a subnet's IPv4 CIDR cut into aligned /28 blocks, with what holds each.
type BlockMap struct {
	SubnetID string `json:"subnetID"`
	CIDR     string `json:"cidr"`
	// States is one state per block, in address order.
	States []string `json:"-"`
	// Free counts the blocks a prefix can be carved from (BlockFree and BlockPrefixFree);
	// Partly, Full and Reserved the others; LargestFreeRun the longest run of free blocks,
	// LargestFreeCIDR the largest aligned CIDR of free blocks not yet reserved for prefixes
	// ("" when there is none).
	Free            int    `json:"free"`
	Partly          int    `json:"partly"`
	Full            int    `json:"full"`
	Reserved        int    `json:"reserved"`
	LargestFreeRun  int    `json:"largestFreeRun"`
	LargestFreeCIDR string `json:"largestFreeCIDR,omitempty"`
	// FreeAddresses counts the addresses held by nothing karpnet read and not reserved.
	FreeAddresses int64 `json:"freeAddresses"`
	// Example is a held address in a partly used block and what holds it, to show what
	// fragments the subnet.
	Example *BlockHolder `json:"example,omitempty"`
	// IgnoredReservations are the subnet's CIDR reservations (ID and CIDR) that are not within
	// its CIDR, which EC2 never makes: they reserve none of its blocks.
	IgnoredReservations []string `json:"ignoredReservations,omitempty"`

	base netip.Addr
}

// BlockHolder is an address and the interface that holds it.
type BlockHolder struct {
	Address     string `json:"address"`
	ENI         string `json:"eni"`
	Description string `json:"description,omitempty"`
}

// blockMapOf maps the subnet's /28 blocks from every interface known to be in it (the
// nodes' instances' ENIs and the interfaces read on their own) and its CIDR reservations. ok
// is false unless the subnet's every interface was read (snapshot AddressSubnets) and its
// CIDR is an IPv4 CIDR of 16 addresses or more.
func blockMapOf(x *Index, s *snapshot.Subnet) (m BlockMap, ok bool) {
	if !slices.Contains(x.Snapshot.AddressSubnets, s.ID) {
		return BlockMap{}, false
	}
	p, err := netip.ParsePrefix(s.CIDR)
	if err != nil || !p.Addr().Is4() || p.Bits() > 28 || p.Bits() < 8 {
		return BlockMap{}, false
	}
	p = p.Masked()
	size := 1 << (32 - p.Bits())
	m = BlockMap{SubnetID: s.ID, CIDR: p.String(), base: p.Addr(), States: make([]string, size/blockSize)}
	held := make([]uint8, size/blockSize)
	first := make([]*BlockHolder, size/blockSize)
	hold := func(addr string, eni, desc string) {
		i, ok := m.offset(addr)
		if !ok {
			return
		}
		b := i / blockSize
		if held[b] < blockSize {
			held[b]++
		}
		if first[b] == nil {
			first[b] = &BlockHolder{Address: addr, ENI: eni, Description: desc}
		}
	}
	holdPrefix := func(cidr string) {
		q, err := netip.ParsePrefix(cidr)
		if err != nil || !q.Addr().Is4() || q.Bits() < p.Bits() {
			return
		}
		i, ok := m.offset(q.Masked().Addr().String())
		if !ok {
			return
		}
		n := max(1<<(32-q.Bits())/blockSize, 1)
		for b := i / blockSize; b < i/blockSize+n && b < len(held); b++ {
			held[b] = blockSize
		}
	}
	seen := map[string]bool{}
	for _, in := range x.instancesIn(s.ID) {
		for _, e := range in.ENIs {
			if e.SubnetID != s.ID && !(e.SubnetID == "" && in.SubnetID == s.ID && e.DeviceIndex == 0) {
				continue
			}
			seen[e.ID] = true
			ips := e.PrivateIPs
			if len(ips) == 0 && e.PrimaryIP != "" {
				ips = []string{e.PrimaryIP}
			}
			for _, ip := range ips {
				hold(ip, e.ID, cmp.Or(e.Description, "instance "+in.ID))
			}
			for _, pr := range e.IPv4Prefixes {
				holdPrefix(pr)
			}
		}
		if len(in.ENIs) == 0 && in.SubnetID == s.ID && in.PrivateIP != "" {
			hold(in.PrivateIP, in.ID, "instance "+in.ID)
		}
	}
	for i := range x.Snapshot.Interfaces {
		e := &x.Snapshot.Interfaces[i]
		if e.SubnetID != s.ID || seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		for _, ip := range e.PrivateIPs {
			hold(ip, e.ID, e.Description)
		}
		for _, pr := range e.IPv4Prefixes {
			holdPrefix(pr)
		}
	}
	reserved := make([]string, len(held))
	reserved[0], reserved[len(reserved)-1] = BlockReserved, BlockReserved
	for _, r := range x.Snapshot.CIDRReservations {
		q, err := netip.ParsePrefix(r.CIDR)
		if r.SubnetID != s.ID || err != nil || !q.Addr().Is4() {
			continue
		}
		q = q.Masked()
		if q.Bits() < p.Bits() || !p.Contains(q.Addr()) {
			// A subnet CIDR reservation is a range of the subnet's own addresses: one that is
			// not within it reserves nothing here, whatever the answer said.
			m.IgnoredReservations = append(m.IgnoredReservations, cmp.Or(r.ID, "a reservation")+" "+q.String())
			continue
		}
		lo, _ := m.offset(q.Addr().String())
		hi := lo + (1 << (32 - q.Bits())) - 1
		for b := lo / blockSize; b <= hi/blockSize && b < len(reserved); b++ {
			switch {
			case reserved[b] == BlockReserved:
			case strings.EqualFold(r.Type, snapshot.ReservationPrefix) && q.Bits() <= 28:
				reserved[b] = BlockPrefixFree
			default:
				reserved[b] = BlockReserved
			}
		}
	}
	var heldAddrs int64
	run := 0
	for b := range m.States {
		heldAddrs += int64(held[b])
		switch {
		case held[b] >= blockSize:
			m.States[b] = BlockFull
		case reserved[b] == BlockReserved:
			m.States[b] = BlockReserved
		case held[b] > 0:
			m.States[b] = BlockPartly
			if m.Example == nil {
				m.Example = first[b]
			}
		case reserved[b] == BlockPrefixFree:
			m.States[b] = BlockPrefixFree
		default:
			m.States[b] = BlockFree
		}
		switch m.States[b] {
		case BlockFree, BlockPrefixFree:
			m.Free++
			run++
			m.LargestFreeRun = max(m.LargestFreeRun, run)
		case BlockPartly:
			m.Partly++
			run = 0
		case BlockFull:
			m.Full++
			run = 0
		default:
			m.Reserved++
			run = 0
		}
	}
	m.LargestFreeCIDR = m.largestFreeCIDR()
	m.FreeAddresses = max(int64(size)-awsReservedIPs-heldAddrs, 0)
	return m, true
}

// offset returns an address's offset from the start of the map's CIDR.
func (m *BlockMap) offset(addr string) (int, bool) {
	a, err := netip.ParseAddr(addr)
	if err != nil || !a.Is4() {
		return 0, false
	}
	b, base := a.As4(), m.base.As4()
	off := int(uint32(b[0])<<24|uint32(b[1])<<16|uint32(b[2])<<8|uint32(b[3])) -
		int(uint32(base[0])<<24|uint32(base[1])<<16|uint32(base[2])<<8|uint32(base[3]))
	if off < 0 || off >= len(m.States)*blockSize {
		return 0, false
	}
	return off, true
}

// BlockAddr returns the first address of block b of the map's CIDR.
func (m *BlockMap) BlockAddr(b int) netip.Addr {
	base := m.base
	if !base.IsValid() {
		p, err := netip.ParsePrefix(m.CIDR)
		if err != nil {
			return netip.Addr{}
		}
		base = p.Masked().Addr()
	}
	a := base.As4()
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3]) + uint32(b*blockSize)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// largestFreeCIDR returns the largest aligned CIDR whose blocks are all free and not reserved
// for prefixes, the lowest of equals; "" when there is none.
func (m *BlockMap) largestFreeCIDR() string {
	free := func(b int) bool { return m.States[b] == BlockFree }
	for n := len(m.States); n >= 1; n /= 2 {
		for start := 0; start+n <= len(m.States); start += n {
			all := true
			for b := start; b < start+n && all; b++ {
				all = free(b)
			}
			if all {
				addr := m.BlockAddr(start)
				bits := 28
				for k := n; k > 1; k /= 2 {
					bits--
				}
				return netip.PrefixFrom(addr, bits).String()
			}
		}
	}
	return ""
}

// blockIndex is what the block maps keep per Index, each part made once when first asked:
// the instances with an interface in each subnet, and each subnet's block map.
type blockIndex struct {
	bySubnet     map[string][]*snapshot.Instance
	bySubnetOnce sync.Once
	maps         sync.Map // subnet ID -> blockMapEntry
}

// instancesIn returns the instances, not terminated, with an interface in the subnet.
func (x *Index) instancesIn(subnetID string) []*snapshot.Instance {
	b := &x.blocks
	b.bySubnetOnce.Do(func() {
		b.bySubnet = map[string][]*snapshot.Instance{}
		for i := range x.Snapshot.Instances {
			in := &x.Snapshot.Instances[i]
			if in.State == "terminated" {
				continue
			}
			subnets := []string{in.SubnetID}
			for _, e := range in.ENIs {
				subnets = append(subnets, e.SubnetID)
			}
			slices.Sort(subnets)
			for _, id := range slices.Compact(subnets) {
				if id != "" {
					b.bySubnet[id] = append(b.bySubnet[id], in)
				}
			}
		}
	})
	return b.bySubnet[subnetID]
}

// blockMapEntry is a cached blockMapOf answer.
type blockMapEntry struct {
	m  BlockMap
	ok bool
}

// BlockMap returns the subnet's /28 block map, made once per Index; ok is false unless the
// subnet's every interface was read and its CIDR is IPv4.
func (x *Index) BlockMap(s *snapshot.Subnet) (BlockMap, bool) {
	if e, ok := x.blocks.maps.Load(s.ID); ok {
		return e.(blockMapEntry).m, e.(blockMapEntry).ok
	}
	m, ok := blockMapOf(x, s)
	x.blocks.maps.Store(s.ID, blockMapEntry{m, ok})
	return m, ok
}
