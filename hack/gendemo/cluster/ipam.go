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
