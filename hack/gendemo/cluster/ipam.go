package cluster

import (
	"fmt"
	"net/netip"
)

// pool hands out addresses and /28 prefixes of one subnet without overlap. AWS reserves the
// first four addresses and the last one of every subnet; the pool never hands them out.
type pool struct {
	cidr netip.Prefix
	size int
	used map[int]bool
}

func newPool(cidr string) *pool {
	p := netip.MustParsePrefix(cidr)
	if !p.Addr().Is4() || p != p.Masked() {
		panic(fmt.Sprintf("subnet CIDR %s is not a masked IPv4 prefix", cidr))
	}
	return &pool{cidr: p, size: 1 << (32 - p.Bits()), used: map[int]bool{}}
}

// usable is the number of addresses EC2 lets instances use.
func (p *pool) usable() int { return p.size - 5 }

// inUse is the number of addresses handed out so far.
func (p *pool) inUse() int { return len(p.used) }

func (p *pool) reserved(off int) bool { return off < 4 || off == p.size-1 }

func (p *pool) addr(off int) string {
	a := p.cidr.Addr().As4()
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	v += uint32(off)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}).String()
}

// ip returns a free address chosen from key.
func (p *pool) ip(key string) string {
	start := int(number("ip", p.cidr.String()+"/"+key, uint64(p.size)))
	for i := range p.size {
		off := (start + i) % p.size
		if !p.reserved(off) && !p.used[off] {
			p.used[off] = true
			return p.addr(off)
		}
	}
	panic(fmt.Sprintf("subnet %s has no free address", p.cidr))
}

// prefix28 returns a free, aligned /28 chosen from key.
func (p *pool) prefix28(key string) string {
	blocks := p.size / 16
	start := int(number("prefix", p.cidr.String()+"/"+key, uint64(blocks)))
	for i := range blocks {
		b := (start + i) % blocks
		if p.blockFree(b * 16) {
			for off := b * 16; off < b*16+16; off++ {
				p.used[off] = true
			}
			return fmt.Sprintf("%s/28", p.addr(b*16))
		}
	}
	panic(fmt.Sprintf("subnet %s has no free /28", p.cidr))
}

func (p *pool) blockFree(first int) bool {
	for off := first; off < first+16; off++ {
		if p.reserved(off) || p.used[off] {
			return false
		}
	}
	return true
}

// anyBlockFree reports whether some aligned /28 block is free.
func (p *pool) anyBlockFree() bool {
	for b := 0; b < p.size/16; b++ {
		if p.blockFree(b * 16) {
			return true
		}
	}
	return false
}

// take marks n addresses from addr in use.
func (p *pool) take(addr string, n int) {
	a, err := netip.ParseAddr(addr)
	if err != nil || !p.cidr.Contains(a) {
		panic(fmt.Sprintf("address %s is not in subnet %s", addr, p.cidr))
	}
	b, base := a.As4(), p.cidr.Addr().As4()
	off := int(uint32(b[0])<<24|uint32(b[1])<<16|uint32(b[2])<<8|uint32(b[3])) -
		int(uint32(base[0])<<24|uint32(base[1])<<16|uint32(base[2])<<8|uint32(base[3]))
	for i := off; i < off+n; i++ {
		p.used[i] = true
	}
}
