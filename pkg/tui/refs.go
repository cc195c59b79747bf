package tui

import (
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
)

// ref is one subject a finding names, as kind/name, with what following it does: open is the
// zero action when the TUI has no view of it.
type ref struct {
	subject string
	// what says what following the reference shows, or how to read the subject elsewhere.
	what string
	open action
}

// openable reports whether following the reference shows something.
func (r ref) openable() bool { return r.open.kind != 0 }

// findingRefs returns what f's sheet references: the finding's Subjects, as the analysis
// related them (its own subject first, then its resource and what uses that resource), then
// what its node uses: the node's NodeClaim, subnet, NodePool, class and instance. A finding
// without Subjects (a report made before they existed) names its own subject and resource.
// The node, a NodeClaim or an instance (the NodeClaim's sheet without a Node, else the Node's
// sheet when no reference names that node already), and the subnet, NodePool, class or
// placement group the snapshot holds (their describe sheets; a subnet the subnets view lists
// when the load has no index) can be opened.
func findingRefs(d *data, f diagnose.Finding) []ref {
	a := newRefAdder(d, f.Context, "")
	subjects := f.Subjects
	if subjects == nil {
		subjects = []string{f.Subject(), f.Resource}
	}
	for _, s := range subjects {
		a.add(s)
	}
	if n, ok := d.node(rowKey(f.Context, f.Node)); ok {
		id := n.Identity
		a.add(claimPrefix + id.NodeClaim)
		if n.Subnet != nil {
			a.add(kinds.Ref(kinds.Subnet, n.Subnet.ID))
		}
		a.add(kinds.Ref(kinds.NodePool, id.NodePool))
		if id.NodeClass != "" {
			a.add(classSubject(id.NodeClassKind, id.NodeClass, id.AutoMode))
		}
		a.add(kinds.Ref(kinds.Instance, id.InstanceID))
	}
	return a.refs
}

// resolveRef says what following subject shows in d.
func resolveRef(d *data, context, subject string) ref {
	kind, name, _ := kinds.Split(subject)
	r := ref{subject: subject, what: "no sheet here yet"}
	switch {
	case kind == kinds.Node:
		if _, ok := d.node(rowKey(context, name)); ok {
			r.what, r.open = "node sheet", action{kind: actOpenNode, arg: rowKey(context, name)}
		}
	case kind == kinds.NodeClaim:
		if _, ok := d.claim(rowKey(context, subject)); ok {
			r.what, r.open = "NodeClaim sheet", action{kind: actOpenClaim, arg: rowKey(context, subject)}
			break
		}
		for _, n := range d.report.Nodes {
			if n.Identity.NodeClaim == name && n.Context == context {
				r.what, r.open = "its Node's sheet (node/"+n.Identity.Node+")", action{kind: actOpenNode, arg: rowKey(context, n.Identity.Node)}
				break
			}
		}
	case kinds.Get(kind).Sheet:
		if sh, ok := d.subjects.sheet(subject); ok {
			r.what, r.open = sh.what, action{kind: actOpenSubject, arg: subject}
			break
		}
		if d.subjects.index != nil {
			r.what = "not in the snapshot"
		}
		if kind != kinds.Subnet {
			break
		}
		for _, s := range d.subnets {
			if s.id == name {
				r.what, r.open = "subnets view, filtered to it", action{kind: actSubnet, arg: name}
			}
		}
	case kind == kinds.Instance:
		for _, n := range d.report.Nodes {
			if n.Identity.InstanceID == name && n.Context == context {
				r.what, r.open = "its Node's sheet (node/"+n.Identity.Node+")", action{kind: actOpenNode, arg: rowKey(context, n.Identity.Node)}
				break
			}
		}
	}
	return r
}
