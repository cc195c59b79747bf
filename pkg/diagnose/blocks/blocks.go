package blocks

import (
	"cmp"
	"net/netip"
	"slices"
	"strings"
	"sync"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Block states of a Map.
const (
	// Free: no address of the block is held; a prefix can be carved from it.
	Free = "free"
	// PrefixFree: free, inside a prefix reservation (kept for prefixes).
	PrefixFree = "free-for-prefixes"
	// Partly: some of its addresses are held, so no prefix fits.
	Partly = "partly"
	// Full: a prefix or sixteen addresses hold all of it.
	Full = "full"
	// Reserved: AWS's reserved addresses or an explicit CIDR reservation are in it.
	Reserved = "reserved"
)

// blockSize is the number of IPv4 addresses of a /28 block.
const blockSize = 16

// AWSReservedIPs is the number of addresses AWS reserves in every subnet.
const AWSReservedIPs = 5

// Map is a subnet's IPv4 CIDR cut into aligned /28 blocks, with what holds each.
type Map struct {
	SubnetID string `json:"subnetID"`
	CIDR     string `json:"cidr"`
	// States is one state per block, in address order.
	States []string `json:"-"`
	// Free counts the blocks a prefix can be carved from (Free and PrefixFree);
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
	Example *Holder `json:"example,omitempty"`
	// IgnoredReservations are the subnet's CIDR reservations (ID and CIDR) that are not within
	// its CIDR, which EC2 never makes: they reserve none of its blocks.
	IgnoredReservations []string `json:"ignoredReservations,omitempty"`

	base netip.Addr
}

// Holder is an address and the interface that holds it.
type Holder struct {
	Address     string `json:"address"`
	ENI         string `json:"eni"`
	Description string `json:"description,omitempty"`
}

// mapOf maps the subnet's /28 blocks from every interface known to be in it (the
// nodes' instances' ENIs and the interfaces read on their own) and its CIDR reservations. ok
// is false unless the subnet's every interface was read (snapshot AddressSubnets) and its
// CIDR is an IPv4 CIDR of 16 addresses or more.
func (x *Index) mapOf(s *snapshot.Subnet) (m Map, ok bool) {
	if !slices.Contains(x.s.AddressSubnets, s.ID) {
		return Map{}, false
	}
	p, err := netip.ParsePrefix(s.CIDR)
	if err != nil || !p.Addr().Is4() || p.Bits() > 28 || p.Bits() < 8 {
		return Map{}, false
	}
	p = p.Masked()
	size := 1 << (32 - p.Bits())
	m = Map{SubnetID: s.ID, CIDR: p.String(), base: p.Addr(), States: make([]string, size/blockSize)}
	held := make([]uint8, size/blockSize)
	first := make([]*Holder, size/blockSize)
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
			first[b] = &Holder{Address: addr, ENI: eni, Description: desc}
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
	for _, in := range x.InstancesIn(s.ID) {
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
	for i := range x.s.Interfaces {
		e := &x.s.Interfaces[i]
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
	reserved[0], reserved[len(reserved)-1] = Reserved, Reserved
	for _, r := range x.s.CIDRReservations {
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
			case reserved[b] == Reserved:
			case strings.EqualFold(r.Type, snapshot.ReservationPrefix) && q.Bits() <= 28:
				reserved[b] = PrefixFree
			default:
				reserved[b] = Reserved
			}
		}
	}
	var heldAddrs int64
	run := 0
	for b := range m.States {
		heldAddrs += int64(held[b])
		switch {
		case held[b] >= blockSize:
			m.States[b] = Full
		case reserved[b] == Reserved:
			m.States[b] = Reserved
		case held[b] > 0:
			m.States[b] = Partly
			if m.Example == nil {
				m.Example = first[b]
			}
		case reserved[b] == PrefixFree:
			m.States[b] = PrefixFree
		default:
			m.States[b] = Free
		}
		switch m.States[b] {
		case Free, PrefixFree:
			m.Free++
			run++
			m.LargestFreeRun = max(m.LargestFreeRun, run)
		case Partly:
			m.Partly++
			run = 0
		case Full:
			m.Full++
			run = 0
		default:
			m.Reserved++
			run = 0
		}
	}
	m.LargestFreeCIDR = m.largestFreeCIDR()
	m.FreeAddresses = max(int64(size)-AWSReservedIPs-heldAddrs, 0)
	return m, true
}

// offset returns an address's offset from the start of the map's CIDR.
func (m *Map) offset(addr string) (int, bool) {
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
func (m *Map) BlockAddr(b int) netip.Addr {
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
func (m *Map) largestFreeCIDR() string {
	free := func(b int) bool { return m.States[b] == Free }
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

// Index is what the block maps of one snapshot keep, each part made once when first asked:
// the instances with an interface in each subnet, and each subnet's block map. It is safe for
// concurrent use.
type Index struct {
	s            *snapshot.Snapshot
	bySubnet     map[string][]*snapshot.Instance
	bySubnetOnce sync.Once
	maps         sync.Map // subnet ID -> mapEntry
}

// New returns the block maps' index of s; it maps nothing until asked.
func New(s *snapshot.Snapshot) *Index { return &Index{s: s} }

// InstancesIn returns the instances, not terminated, with an interface in the subnet.
func (x *Index) InstancesIn(subnetID string) []*snapshot.Instance {
	x.bySubnetOnce.Do(func() {
		x.bySubnet = map[string][]*snapshot.Instance{}
		for i := range x.s.Instances {
			in := &x.s.Instances[i]
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
					x.bySubnet[id] = append(x.bySubnet[id], in)
				}
			}
		}
	})
	return x.bySubnet[subnetID]
}

// mapEntry is a cached mapOf answer.
type mapEntry struct {
	m  Map
	ok bool
}

// Map returns the subnet's /28 block map, made once per Index; ok is false unless the
// subnet's every interface was read and its CIDR is IPv4.
func (x *Index) Map(s *snapshot.Subnet) (Map, bool) {
	if e, ok := x.maps.Load(s.ID); ok {
		return e.(mapEntry).m, e.(mapEntry).ok
	}
	m, ok := x.mapOf(s)
	x.maps.Store(s.ID, mapEntry{m, ok})
	return m, ok
}
