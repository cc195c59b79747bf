package sheet

import "github.com/karpnet/kubectl-karpnet/pkg/kinds"

// References are the subjects a sheet names, as kind/name, each once and never the sheet's own
// subject: Related are what uses the subject or what it uses (classes, NodePools, subnets,
// placement groups), Members its nodes and NodeClaims. `describe` prints them under "See also";
// the terminal UI lists them as links it can follow. Both read them from here, so the two
// never name different subjects.
type References struct {
	Related []string
	Members []string
}

// All returns Related, then Members.
func (r References) All() []string { return append(append([]string{}, r.Related...), r.Members...) }

// refs collects references in order, without repeats, empty names or self.
type refs struct {
	self string
	seen map[string]bool
	out  References
}

func newRefs(self string) *refs { return &refs{self: self, seen: map[string]bool{self: true}} }

// add appends kind/name to list unless name is empty or the reference is already there.
func (a *refs) add(list *[]string, kind, name string) {
	ref := kinds.Ref(kind, name)
	if name == "" || a.seen[ref] {
		return
	}
	a.seen[ref] = true
	*list = append(*list, ref)
}

func (a *refs) related(kind, name string) { a.add(&a.out.Related, kind, name) }

func (a *refs) members(ms []Member) {
	for _, m := range ms {
		a.add(&a.out.Members, m.Kind, m.Name)
	}
}

// References returns what the subnet's sheet names: the classes that select it, then the
// nodes and NodeClaims in it and the nodes whose other interfaces are in it.
func (sh SubnetSheet) References() References {
	a := newRefs(kinds.Ref(kinds.Subnet, sh.ID))
	for _, s := range sh.SelectedBy {
		if class := kinds.Class(s.Kind); class != "" {
			a.related(class, s.Name)
		}
	}
	a.members(sh.Members)
	for _, e := range sh.ENIs {
		a.add(&a.out.Members, kinds.Node, e.Node)
	}
	return a.out
}

// References returns what the NodePool's sheet names: its class when it was read, then its
// nodes and NodeClaims.
func (sh NodePoolSheet) References() References {
	a := newRefs(kinds.Ref(kinds.NodePool, sh.Name))
	if class := kinds.Class(sh.NodeClassKind); sh.NodeClassFound && class != "" {
		a.related(class, sh.NodeClassRef.Name)
	}
	a.members(sh.Members)
	return a.out
}

// References returns what the class's sheet names: its NodePools, the subnets Karpenter
// resolved for it and its pod subnets, its placement group, then its nodes and NodeClaims.
func (sh NodeClassSheet) References() References {
	a := newRefs(sh.Resource)
	for _, p := range sh.NodePools {
		a.related(kinds.NodePool, p)
	}
	for _, s := range sh.StatusSubnets {
		a.related(kinds.Subnet, s.ID)
	}
	for _, id := range sh.PodSubnets {
		a.related(kinds.Subnet, id)
	}
	if g := sh.PlacementGroup; g != nil {
		a.related(kinds.PlacementGroup, firstOf(g.Name, g.ID))
	}
	a.members(sh.Members)
	return a.out
}

// References returns what the placement group's sheet names: the classes that select it, then
// the nodes and NodeClaims in it.
func (sh PlacementGroupSheet) References() References {
	a := newRefs(kinds.Ref(kinds.PlacementGroup, firstOf(sh.Name, sh.ID)))
	for _, c := range sh.Classes {
		kind, name, _ := kinds.Split(c)
		a.related(kind, name)
	}
	a.members(sh.Members)
	return a.out
}

// References returns what the interface's sheet names: its subnet.
func (sh ENISheet) References() References {
	a := newRefs(kinds.Ref(kinds.ENI, sh.ID))
	a.related(kinds.Subnet, sh.SubnetID)
	return a.out
}

// firstOf returns a unless it is empty, else b.
func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
