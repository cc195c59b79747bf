package snapshot

import (
	"hash/maphash"
	"maps"
	"slices"
	"unsafe"
)

// What is shared whole rather than string by string: equal maps and security group lists, and
// the strings of a list in one allocation.

// maxSharedMaps bounds how many different maps sharedMap shares; past it a map is kept as
// it is.
const maxSharedMaps = 4096

// stringMaps holds one copy of each map sharedMap has seen, by a hash of its members.
type stringMaps struct {
	byHash map[uint64][]map[string]string
	n      int
}

// sharedMap returns the map seen before that is equal to m, or m. NodeClaims' labels are the
// NodePool's template and what Karpenter derives from the instance type, zone and capacity
// type, so the NodeClaims of one pool, type and zone have equal labels (twelve sets among the
// test cluster's 10,000): about 600 bytes a NodeClaim kept once. A map is shared, not copied:
// nothing writes to a NodeClaim's maps once it is read. A map with a value that Bound may cut
// (64 KiB or longer; a label is at most 63 bytes) is not shared.
func (in interner) sharedMap(m map[string]string) map[string]string {
	if len(m) == 0 || len(m) > 64 {
		return m
	}
	t := in.maps
	seed := in.seen.seed
	var h uint64
	for k, v := range m {
		if len(k) >= 1<<16 || len(v) >= 1<<16 {
			return m
		}
		// The members' hashes are summed, so the order the map gives them in does not matter.
		h += maphash.String(seed, k)*31 + maphash.String(seed, v)
	}
	for _, seen := range t.byHash[h] {
		if maps.Equal(seen, m) {
			return seen
		}
	}
	if t.n < maxSharedMaps {
		t.byHash[h] = append(t.byHash[h], m)
		t.n++
	}
	return m
}

// sharedGroups interns gs and returns the list seen before that is equal to it, or gs, its
// capacity cut to its length so that an append copies it. An instance and its interfaces carry
// the class's security groups, so most instances' lists are equal (three of them a node).
func (in interner) sharedGroups(gs []GroupRef) []GroupRef {
	if len(gs) == 0 || len(gs) > 16 {
		return gs
	}
	in.groups(gs)
	seed := in.seen.seed
	var h uint64
	for _, g := range gs {
		if len(g.ID) >= 1<<16 || len(g.Name) >= 1<<16 {
			return gs // Bound may cut it
		}
		h = h*31 + maphash.String(seed, g.ID)*7 + maphash.String(seed, g.Name)
	}
	for _, seen := range in.sgs[h] {
		if slices.Equal(seen, gs) {
			return seen
		}
	}
	gs = gs[:len(gs):len(gs)]
	if len(in.sgs) < maxSharedMaps {
		in.sgs[h] = append(in.sgs[h], gs)
	}
	return gs
}

// Pack makes the strings of ss one allocation, in place: an interface's 15 or 50 addresses are
// an allocation each (16 bytes for an address of 9 to 15) when made apart. Values do not
// change.
func Pack(ss []string) {
	size := 0
	for _, s := range ss {
		size += len(s)
	}
	if len(ss) < 2 || size == 0 {
		return
	}
	text := make([]byte, 0, size)
	for _, s := range ss {
		text = append(text, s...)
	}
	all := unsafe.String(unsafe.SliceData(text), len(text))
	off := 0
	for i, s := range ss {
		ss[i] = all[off : off+len(s)]
		off += len(s)
	}
}
