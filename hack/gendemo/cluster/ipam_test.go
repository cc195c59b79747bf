package cluster

import (
	"fmt"
	"net/netip"
	"testing"
)

func TestPoolSkipsReservedAddresses(t *testing.T) {
	p := newPool("10.0.0.0/28")
	got := map[string]bool{}
	for i := range p.usable() {
		got[p.ip(fmt.Sprint(i))] = true
	}
	for _, reserved := range []string{"10.0.0.0", "10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.15"} {
		if got[reserved] {
			t.Errorf("ip: handed out %s, which AWS reserves", reserved)
		}
	}
	if len(got) != 11 {
		t.Errorf("ip: got %d distinct addresses, want 11", len(got))
	}
	defer func() {
		if recover() == nil {
			t.Error("ip on a full subnet: got no panic, want one")
		}
	}()
	p.ip("one too many")
}

func TestPoolPrefixes(t *testing.T) {
	p := newPool("10.0.0.0/24")
	cidr := netip.MustParsePrefix("10.0.0.0/24")
	ip := netip.MustParseAddr(p.ip("node"))
	// 16 blocks less the first and last, which hold reserved addresses, and the node's.
	for i := range 13 {
		pfx := netip.MustParsePrefix(p.prefix28(fmt.Sprint(i)))
		if pfx != pfx.Masked() || !cidr.Contains(pfx.Addr()) {
			t.Errorf("prefix28: got %s, want an aligned /28 of %s", pfx, cidr)
		}
		if pfx.Contains(ip) || pfx.Addr() == cidr.Addr() || pfx.Contains(netip.MustParseAddr("10.0.0.255")) {
			t.Errorf("prefix28: got %s, which holds a used or reserved address", pfx)
		}
	}
}
