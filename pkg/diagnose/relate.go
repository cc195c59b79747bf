package diagnose

import (
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// subjectGraph is what the analysis knows of how subjects hang together, made once per
// Analyze: which classes use a subnet, which NodePools use a class, and the other way. It is
// the one place that decides which subjects a finding concerns; sheets, the TUI, the summary
// and metrics read the result (Finding.Subjects) and never decide it again.
type subjectGraph struct {
	// subnetClasses are the classes (ec2nodeclass/NAME, nodeclass/NAME) that select a subnet,
	// have nodes in it or take pod addresses from it, by subnet ID.
	subnetClasses map[string][]string
	// classPools are the NodePools (nodepool/NAME) whose nodeClassRef names a class, and
	// poolClass the class a NodePool names, by their refs.
	classPools map[string][]string
	poolClass  map[string]string
	// claimOwners are the NodePool and class of a NodeClaim, by its ref.
	claimOwners map[string][]string
	// groupClasses are the classes whose placement-group selector names a group, by the
	// group's ID and by its name.
	groupClasses map[string][]string
	// eniConfigSubnet is the pod subnet of an ENIConfig, by name.
	eniConfigSubnet map[string]string
}

// newSubjectGraph builds the graph of x, whose subnets in use are uses.
func newSubjectGraph(x *Index, uses []subnetUse) *subjectGraph {
	g := &subjectGraph{
		subnetClasses: map[string][]string{}, classPools: map[string][]string{}, poolClass: map[string]string{},
		claimOwners: map[string][]string{}, groupClasses: map[string][]string{}, eniConfigSubnet: map[string]string{},
	}
	for _, u := range uses {
		var classes []string
		for _, key := range u.classes {
			kind, name, _ := strings.Cut(key, "/")
			classes = append(classes, kindRef(kind, name))
		}
		for _, name := range u.podClasses {
			classes = append(classes, "nodeclass/"+name)
		}
		g.subnetClasses[u.subnet.ID] = sortedUnique(classes)
	}
	for _, name := range sortedKeys(x.NodePools) {
		ref := x.NodePools[name].NodeClassRef
		kind := refKind(ref)
		if kind == "" || ref.Name == "" {
			continue
		}
		class := kindRef(kind, ref.Name)
		g.poolClass["nodepool/"+name] = class
		g.classPools[class] = append(g.classPools[class], "nodepool/"+name)
	}
	for _, c := range x.Claims {
		var owners []string
		if c.PoolName != "" {
			owners = append(owners, "nodepool/"+c.PoolName)
		}
		if c.ClassName != "" {
			kind := c.ClassKind
			if kind == "" {
				kind = snapshot.KindEC2NodeClass
			}
			owners = append(owners, kindRef(kind, c.ClassName))
		}
		g.claimOwners[c.Ref()] = owners
	}
	for _, n := range x.Nodes {
		if n.Claim == nil || n.Claim.Name == "" {
			continue
		}
		var owners []string
		if n.PoolName != "" {
			owners = append(owners, "nodepool/"+n.PoolName)
		}
		if ref := n.ClassRef(); ref != "" {
			owners = append(owners, ref)
		}
		g.claimOwners["nodeclaim/"+n.Claim.Name] = owners
	}
	for _, c := range x.sortedClasses() {
		if sel := c.PlacementGroupSelector; sel != nil {
			for _, key := range []string{sel.ID, sel.Name} {
				if key != "" {
					g.groupClasses[key] = append(g.groupClasses[key], classRef(c))
				}
			}
		}
	}
	for name, cfg := range x.ENIConfigs {
		if cfg.Subnet != "" {
			g.eniConfigSubnet[name] = cfg.Subnet
		}
	}
	return g
}

// of returns the subjects finding f concerns and, of those, the ones it concerns only through
// what uses its resource. One rule for every check: the direct subjects are its own subject (its
// node, else its resource) and its resource; the inherited ones are what uses that resource: a
// subnet's classes (node and pod subnets) and their NodePools, a class's NodePools, a NodePool's
// class, a NodeClaim's NodePool and class, a placement group's classes and their NodePools, and
// the subnet of an instance, an interface or an ENIConfig, and a zone's subnets in use with
// their classes and NodePools. A NodePool or class that the finding's commands change is a
// direct subject too, and what uses it inherited. Nodes are never listed through what
// they use: a node inherits a finding in the views through its subnets, class and NodePool
// (Report.OnWhatUses), so a finding on a class of 10,000 nodes names the class, not the nodes.
// The subjects are its own first, then the rest sorted; inherited keeps that order.
func (g *subjectGraph) of(x *Index, f Finding) (subjects, inherited []string) {
	own := f.Subject()
	if own == "" {
		return nil, nil
	}
	var more []string
	direct := []string{f.Resource}
	if f.ID != DataUnavailableID {
		more = g.users(x, f.Resource)
		for _, ref := range changedOwners(f) {
			direct = append(direct, ref)
			more = append(more, g.users(x, ref)...)
		}
	}
	more = slices.DeleteFunc(sortedUnique(more), func(s string) bool { return s == own || slices.Contains(direct, s) })
	inherited = slices.Clone(more)
	for _, ref := range sortedUnique(direct) {
		if ref != "" && ref != own {
			more = append(more, ref)
		}
	}
	slices.Sort(more)
	if len(inherited) == 0 {
		inherited = nil
	}
	return append([]string{own}, more...), inherited
}

// changedOwners returns the NodePools and classes (kind/name) that f's commands change: a
// finding on a node whose fix is a change to its NodePool or class concerns that NodePool or
// class directly, as a finding on the class itself would.
func changedOwners(f Finding) []string {
	var out []string
	for _, c := range f.Commands {
		// kubectl patch KIND NAME ...: the object is in the argument vector, the data the
		// command is built from, not in the Changes text.
		if c.ReadOnly || len(c.Argv) < 4 || c.Argv[0] != "kubectl" || c.Argv[1] != "patch" {
			continue
		}
		k, ok := kinds.Lookup(c.Argv[2])
		if ok && (k.Name == kinds.NodePool || kinds.IsClass(k.Name)) && c.Argv[3] != "" {
			out = append(out, kinds.Ref(k.Name, c.Argv[3]))
		}
	}
	return out
}

// users returns what uses resource (kind/name), as of's rule says, unsorted.
func (g *subjectGraph) users(x *Index, resource string) []string {
	kind, name, _ := strings.Cut(resource, "/")
	var more, classes []string
	switch kind {
	case SubjectSubnet:
		classes = g.subnetClasses[name]
	case kinds.EC2NodeClass, kinds.NodeClass:
		more = append(more, g.classPools[resource]...)
	case SubjectNodePool:
		if c := g.poolClass[resource]; c != "" {
			more = append(more, c)
		}
	case SubjectNodeClaim:
		more = append(more, g.claimOwners[resource]...)
	case SubjectPlacementGroup:
		classes = g.groupClasses[name]
		if pg := x.PlacementGroups[name]; pg != nil && len(classes) == 0 {
			classes = slices.Concat(g.groupClasses[pg.ID], g.groupClasses[pg.Name])
		}
	case SubjectInstance:
		if in := x.Instances[name]; in != nil && in.SubnetID != "" {
			more = append(more, subnetRef(in.SubnetID))
		}
	case SubjectENI:
		if e := x.Interface(name); e != nil && e.SubnetID != "" {
			more = append(more, subnetRef(e.SubnetID))
		}
	case SubjectENIConfig:
		if id := g.eniConfigSubnet[name]; id != "" {
			more = append(more, subnetRef(id))
		}
	case SubjectZone:
		for _, id := range sortedKeys(g.subnetClasses) {
			if s := x.Subnets[id]; s != nil && s.Zone == name {
				more = append(more, subnetRef(id))
				classes = append(classes, g.subnetClasses[id]...)
			}
		}
	}
	for _, c := range classes {
		more = append(more, c)
		more = append(more, g.classPools[c]...)
	}
	return more
}

// relateFindings sets every finding's Subjects from one subject graph of x and its subnets in
// use.
func relateFindings(x *Index, uses []subnetUse, findings []Finding) {
	if len(findings) == 0 {
		return
	}
	g := newSubjectGraph(x, uses)
	for i := range findings {
		findings[i].Subjects, findings[i].InheritedSubjects = g.of(x, findings[i])
	}
}
