package diagnose

import (
	"hash/maphash"
	"slices"
)

// sharedSections keeps one copy of each section that is equal among the nodes one goroutine
// of describeAll describes: the nodes of one subnet, instance type, class and placement group
// have the same subnet, capacity, EFA, placement and security group sections, and their ENIs
// the same security group lists (about 650 bytes a node of the scale cluster's report). A
// report's sections are read, never written, once Describe has returned them.
type sharedSections struct {
	seed      maphash.Seed
	capacity  map[CapacityReport]*CapacityReport
	efa       map[EFAReport]*EFAReport
	placement map[PlacementReport]*PlacementReport
	subnet    map[subnetKey]*SubnetReport
	groups    map[uint64][]*SecurityGroups
	eniGroups map[uint64][][]string
}

// maxShared bounds each table of sharedSections; past it a section is kept as it is.
const maxShared = 1024

// subnetKey is a SubnetReport's value, its pointers followed.
type subnetKey struct {
	id, cidr, zone, zoneID   string
	available                int32
	hasAvailable, isSelected bool
	selected                 bool
}

func newSharedSections() *sharedSections {
	return &sharedSections{seed: maphash.MakeSeed(), capacity: map[CapacityReport]*CapacityReport{},
		efa: map[EFAReport]*EFAReport{}, placement: map[PlacementReport]*PlacementReport{},
		subnet: map[subnetKey]*SubnetReport{}, groups: map[uint64][]*SecurityGroups{}, eniGroups: map[uint64][][]string{}}
}

// share makes r's sections the copies kept of equal ones.
func (t *sharedSections) share(r *NodeReport) {
	r.Capacity = shareValue(t.capacity, r.Capacity)
	r.EFA = shareValue(t.efa, r.EFA)
	r.Placement = shareValue(t.placement, r.Placement)
	if s := r.Subnet; s != nil {
		k := subnetKey{id: s.ID, cidr: s.CIDR, zone: s.Zone, zoneID: s.ZoneID}
		if s.AvailableIPs != nil {
			k.available, k.hasAvailable = *s.AvailableIPs, true
		}
		if s.Selected != nil {
			k.selected, k.isSelected = *s.Selected, true
		}
		r.Subnet = shareKeyed(t.subnet, k, s)
	}
	if g := r.SecurityGroups; g != nil {
		r.SecurityGroups = t.shareGroups(g)
	}
	for i := range r.ENIs {
		r.ENIs[i].SecurityGroups = t.shareIDs(r.ENIs[i].SecurityGroups)
	}
}

func shareValue[T comparable](m map[T]*T, v *T) *T {
	if v == nil {
		return nil
	}
	return shareKeyed(m, *v, v)
}

func shareKeyed[K comparable, T any](m map[K]*T, k K, v *T) *T {
	if seen, ok := m[k]; ok {
		return seen
	}
	if len(m) < maxShared {
		m[k] = v
	}
	return v
}

func (t *sharedSections) shareGroups(g *SecurityGroups) *SecurityGroups {
	var h maphash.Hash
	h.SetSeed(t.seed)
	for _, sg := range g.Groups {
		h.WriteString(sg.ID)
		h.WriteByte(0)
		h.WriteString(sg.Name)
		h.WriteByte(boolByte(sg.InNodeClass))
	}
	for _, id := range g.NodeClass {
		h.WriteString(id)
		h.WriteByte(0)
	}
	h.WriteByte(boolByte(g.Match))
	key := h.Sum64()
	for _, seen := range t.groups[key] {
		if sameGroups(seen, g) {
			return seen
		}
	}
	if len(t.groups) < maxShared {
		t.groups[key] = append(t.groups[key], g)
	}
	return g
}

// shareIDs returns the list kept that is equal to ids, or ids cut to its length (an append to
// a shared list then copies it).
func (t *sharedSections) shareIDs(ids []string) []string {
	if len(ids) == 0 {
		return ids
	}
	var h maphash.Hash
	h.SetSeed(t.seed)
	for _, id := range ids {
		h.WriteString(id)
		h.WriteByte(0)
	}
	key := h.Sum64()
	for _, seen := range t.eniGroups[key] {
		if slices.Equal(seen, ids) {
			return seen
		}
	}
	ids = ids[:len(ids):len(ids)]
	if len(t.eniGroups) < maxShared {
		t.eniGroups[key] = append(t.eniGroups[key], ids)
	}
	return ids
}

// boolByte is a *bool as a byte: 2 for nil.
func boolByte(b *bool) byte {
	switch {
	case b == nil:
		return 2
	case *b:
		return 1
	}
	return 0
}

func sameGroups(a, b *SecurityGroups) bool {
	return boolByte(a.Match) == boolByte(b.Match) && (a.Groups == nil) == (b.Groups == nil) &&
		(a.NodeClass == nil) == (b.NodeClass == nil) && slices.Equal(a.NodeClass, b.NodeClass) &&
		slices.EqualFunc(a.Groups, b.Groups, func(x, y SecurityGroupReport) bool {
			return x.ID == y.ID && x.Name == y.Name && boolByte(x.InNodeClass) == boolByte(y.InNodeClass)
		})
}
