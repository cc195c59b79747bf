package tui

import (
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
)

// maxMemberRefs is how many of a subject's nodes and NodeClaims its sheet lists as references;
// the rest are one line that lists them in the nodes view.
const maxMemberRefs = 20

// refList is a sheet's references and the selected one.
type refList struct {
	refs []ref
	// pick is the index in refs of the selected reference, or -1 when none is.
	pick int
	// manual lists start with none selected, until the user selects one: sheets whose
	// references are below the fold, where Enter must not follow what is not shown.
	manual bool
}

// newRefList returns a list of refs: the first that can be opened selected, or, when manual,
// none.
func newRefList(refs []ref, manual bool) refList {
	return refList{pick: -1, manual: manual}.set(refs)
}

// set replaces the references, keeping the selected one when it can still be opened, else
// selecting the first that can (none in a manual list with none selected).
func (l refList) set(refs []ref) refList {
	was := ""
	if l.pick >= 0 && l.pick < len(l.refs) {
		was = l.refs[l.pick].subject
	}
	if l.manual && was == "" {
		l.refs = refs
		return l
	}
	l.refs, l.pick = refs, -1
	for i, r := range refs {
		if r.openable() && (l.pick < 0 || r.subject == was) {
			l.pick = i
		}
	}
	return l
}

// openable reports whether a reference can be selected and opened.
func (l refList) openable() bool {
	for _, r := range l.refs {
		if r.openable() {
			return true
		}
	}
	return false
}

// cycle selects the openable reference delta steps away, wrapping around; with none selected
// it selects the first (or, going back, the last).
func (l refList) cycle(delta int) refList {
	n := len(l.refs)
	i := l.pick
	if i < 0 {
		i = -1
		if delta < 0 {
			i = n
		}
		delta = max(min(delta, 1), -1)
	}
	for range n {
		i = ((i+delta)%n + n) % n
		if l.refs[i].openable() {
			l.pick = i
			return l
		}
	}
	return l
}

// follow is what Enter on the list does: the selected reference's action.
func (l refList) follow() action {
	if l.pick < 0 {
		return action{}
	}
	return l.refs[l.pick].open
}

// block renders the "References" section in cols columns, the selected reference marked;
// hint names the keys that select and follow. It is empty without references.
func (l refList) block(th theme, cols int, hint string) string {
	if len(l.refs) == 0 {
		return ""
	}
	var b strings.Builder
	if l.pick < 0 {
		hint = ""
	}
	if hint != "" {
		hint = th.Dim.Render("  " + hint)
	}
	b.WriteString(th.Header.Render("References") + hint + "\n")
	sw := 0
	for _, r := range l.refs {
		sw = max(sw, width(r.subject))
	}
	for i, r := range l.refs {
		subject := fit(r.subject, min(sw, cols/2), true)
		line := subject + "  " + r.what
		switch {
		case i == l.pick:
			b.WriteString(th.Selected.Render(fit("▸ "+line, cols, false)) + "\n")
		case r.openable():
			b.WriteString(fit("  "+th.Strong.Render(subject)+"  "+r.what, cols, false) + "\n")
		default:
			b.WriteString(th.Dim.Render(fit("  "+line, cols, false)) + "\n")
		}
	}
	return b.String()
}

// refAdder collects references without repeats, leaving out self (the sheet's own subject)
// and what resolves to self.
type refAdder struct {
	d *data
	// context is the cluster the subjects are in; empty for a single cluster.
	context string
	self    string
	seen    map[string]bool
	refs    []ref
}

func newRefAdder(d *data, context, self string) *refAdder {
	return &refAdder{d: d, context: context, self: self, seen: map[string]bool{self: true}}
}

// add appends subject (kind/name) unless it is empty, a repeat or the sheet itself.
func (a *refAdder) add(subject string) {
	if subject == "" || strings.HasSuffix(subject, "/") || a.seen[subject] {
		return
	}
	a.seen[subject] = true
	r := resolveRef(a.d, a.context, subject)
	node := kinds.Ref(kinds.Node, r.open.arg[strings.IndexByte(r.open.arg, 0)+1:]) // the node's name without its cluster
	if r.open.kind == actOpenNode && a.seen[node] && subject != node {
		if node == a.self {
			return // this node's own NodeClaim or instance
		}
		r.what, r.open = "its Node, listed above", action{}
	}
	a.refs = append(a.refs, r)
}

// members adds a subject's nodes and NodeClaims (kind/name), at most maxMemberRefs, then one
// reference that lists them all in the nodes view filtered by query.
func (a *refAdder) members(ms []string, query string) {
	for i, m := range ms {
		if i == maxMemberRefs {
			a.refs = append(a.refs, ref{subject: "+" + strconv.Itoa(len(ms)-i) + " more",
				what: "nodes view, filtered to " + query, open: action{kind: actNodesIn, arg: query}})
			return
		}
		a.add(m)
	}
}

// classSubject is the reference of a node's or NodeClaim's class.
func classSubject(kind, name string, autoMode bool) string {
	return kinds.ClassRef(kind, name, autoMode)
}

// nodeRefs are what a node's sheet names: its NodeClaim (when it has no sheet of its own this
// is the node), subnets (the node's and its ENIs'), NodePool, class and placement group.
func nodeRefs(d *data, n diagnose.NodeReport) []ref {
	id := n.Identity
	a := newRefAdder(d, n.Context, kinds.Ref(kinds.Node, id.Node))
	a.add(kinds.Ref(kinds.Instance, id.InstanceID))
	for _, ref := range n.Uses() { // its NodeClaim, subnets, NodePool and class
		a.add(ref)
	}
	if p := n.Placement; p != nil {
		a.add(kinds.Ref(kinds.PlacementGroup, cmpOr(p.GroupName, p.GroupID)))
	}
	return a.refs
}

// claimRefs are what a NodeClaim's sheet names: its NodePool, class, instance's subnet and
// placement group.
func claimRefs(d *data, c diagnose.NodeClaimReport) []ref {
	a := newRefAdder(d, c.Context, claimPrefix+c.Name)
	a.add(kinds.Ref(kinds.NodePool, c.NodePool))
	if c.NodeClass != "" {
		a.add(classSubject(c.NodeClassKind, c.NodeClass, false))
	}
	if i := c.Instance; i != nil {
		a.add(kinds.Ref(kinds.Subnet, i.SubnetID))
	}
	return a.refs
}

// subjectRefs are what a subject's sheet names (its References): the subnets view first for
// a subnet, then the classes, pools, subnets and placement groups it names, and its nodes and
// NodeClaims.
func subjectRefs(d *data, subject string, sh subjectSheet) []ref {
	a := newRefAdder(d, "", subject)
	if kind, id, _ := kinds.Split(subject); kind == kinds.Subnet {
		a.refs = append(a.refs, ref{subject: "subnets view", what: "the subnet listed with the others; enter there lists its nodes",
			open: action{kind: actSubnet, arg: id}})
	}
	for _, r := range sh.refs.Related {
		a.add(r)
	}
	a.members(sh.refs.Members, sh.query)
	return a.refs
}

// cmpOr returns a unless it is empty, else b.
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
