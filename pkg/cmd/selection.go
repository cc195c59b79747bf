package cmd

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// selection is the typed form of the node-choosing flags: names, -l, --nodepool, --nodeclass.
// selector holds -l and --nodepool. --nodeclass names an EC2NodeClass or an EKS Auto Mode
// NodeClass, whose nodes carry different labels (karpenter.k8s.aws/ec2nodeclass,
// eks.amazonaws.com/nodeclass); a label selector cannot say "either", so the live read lists
// the nodes of each label, and matches filters a snapshot by class.
type selection struct {
	names     []string
	selector  labels.Selector
	nodePool  string
	nodeClass string
	// hints name the commands that list what was not found.
	hints hints
}

// newSelection parses the flags into a selection.
func newSelection(names []string, selector, nodePool, nodeClass string) (selection, error) {
	sel := selection{names: names, nodePool: nodePool, nodeClass: nodeClass}
	var err error
	sel.selector, err = labels.Parse(selector)
	if err != nil {
		return sel, usageErrorf("-l/--selector %q: %v", selector, err)
	}
	if nodePool != "" {
		r, err := labels.NewRequirement(snapshot.LabelNodePool, "=", []string{nodePool})
		if err != nil {
			return sel, usageErrorf("--nodepool %q is not a valid name", nodePool)
		}
		sel.selector = sel.selector.Add(*r)
	}
	if nodeClass != "" {
		if _, err := labels.NewRequirement(snapshot.LabelEC2NodeClass, "=", []string{nodeClass}); err != nil {
			return sel, usageErrorf("--nodeclass %q is not a valid name", nodeClass)
		}
	}
	return sel, nil
}

// scope is what the live collector should read: the named nodes, or those -l and --nodepool
// select, and with --nodeclass those of either class label.
func (s selection) scope() collect.Scope {
	if s.nodeClass == "" || len(s.names) > 0 {
		return collect.Scope{Names: s.names, Selector: s.selector.String()}
	}
	of := func(label string) string {
		r, _ := labels.NewRequirement(label, "=", []string{s.nodeClass}) // validated by newSelection
		return s.selector.DeepCopySelector().Add(*r).String()
	}
	return collect.Scope{Selector: of(snapshot.LabelEC2NodeClass), OrSelectors: []string{of(snapshot.LabelAutoNodeClass)}}
}

// matches reports whether a node with these labels is selected by -l, --nodepool and
// --nodeclass (the EC2NodeClass label or the Auto Mode NodeClass label).
func (s selection) matches(nodeLabels map[string]string) bool {
	if !s.selector.Matches(labels.Set(nodeLabels)) {
		return false
	}
	return s.nodeClass == "" || nodeLabels[snapshot.LabelEC2NodeClass] == s.nodeClass ||
		nodeLabels[snapshot.LabelAutoNodeClass] == s.nodeClass
}

// empty reports whether the selection keeps every node.
func (s selection) empty() bool {
	return len(s.names) == 0 && s.selector.Empty() && s.nodeClass == ""
}

// options resolves the selection against a snapshot (which may hold more nodes than were
// asked for, e.g. a saved one) into diagnose options. Named nodes that do not exist are a
// usage error.
func (s selection) options(snap *snapshot.Snapshot, only, skip []string) (diagnose.Options, error) {
	opts := diagnose.Options{Only: only, Skip: skip}
	if s.empty() {
		return opts, nil
	}
	opts.Nodes = map[string]bool{}
	present := map[string]bool{}
	for i := range snap.Nodes {
		n := &snap.Nodes[i]
		present[n.Name] = true
		if len(s.names) == 0 && s.matches(n.Labels) {
			opts.Nodes[n.Name] = true
		}
	}
	for _, name := range s.names {
		if !present[name] {
			next := s.hints.list("nodes", "list nodes with kubectl get nodes")
			if hint := didYouMean(suggestions(name, slices.Collect(maps.Keys(present)))); hint != "" {
				next = printableLine(hint)
			}
			return opts, &exitError{code: ExitUsage, err: fmt.Errorf("node %q not found: %s", name, next)}
		}
		if s.matches(nodeLabels(snap, name)) {
			opts.Nodes[name] = true
		}
	}
	if err := s.known(snap, opts.Nodes); err != nil {
		return opts, err
	}
	opts.Resources = map[string]bool{}
	if s.nodePool != "" {
		opts.Resources[kinds.Ref(kinds.NodePool, s.nodePool)] = true
		// The pool's EC2NodeClass or NodeClass is part of it even when the pool has no node
		// (yet): a class that is not Ready is why it launches none.
		for _, p := range snap.NodePools {
			if p.Name == s.nodePool && p.NodeClassRef.Name != "" {
				if kind := poolClassKind(p.NodeClassRef); kind != "" {
					opts.Resources[kinds.Ref(kind, p.NodeClassRef.Name)] = true
				}
			}
		}
	}
	if s.nodeClass != "" {
		opts.Resources[kinds.Ref(kinds.EC2NodeClass, s.nodeClass)] = true
		opts.Resources[kinds.Ref(kinds.NodeClass, s.nodeClass)] = true
	}
	return opts, nil
}

// poolClassKind returns the resource kind of a NodePool's class reference: ec2nodeclass (an
// empty kind counts, as v1beta1 NodePools may omit it), nodeclass for EKS Auto Mode, or "".
func poolClassKind(ref snapshot.NodeClassRef) string {
	switch {
	case ref.Kind == "" || ref.Kind == snapshot.KindEC2NodeClass:
		return kinds.EC2NodeClass
	case ref.Kind == snapshot.KindNodeClass && (ref.Group == "" || ref.Group == snapshot.AutoModeGroup):
		return kinds.NodeClass
	}
	return ""
}

func nodeLabels(snap *snapshot.Snapshot, name string) map[string]string {
	for i := range snap.Nodes {
		if snap.Nodes[i].Name == name {
			return snap.Nodes[i].Labels
		}
	}
	return nil
}

// known rejects a --nodepool or --nodeclass that names nothing: no such object was read and no
// selected node carries it, which is almost always a typo that would otherwise pass as clean.
func (s selection) known(snap *snapshot.Snapshot, selected map[string]bool) error {
	if len(selected) > 0 {
		return nil
	}
	if s.nodePool != "" && !snap.Unavailable(snapshot.SourceNodePools) &&
		!slices.ContainsFunc(snap.NodePools, func(p snapshot.NodePool) bool { return p.Name == s.nodePool }) {
		next := s.hints.list("NodePools", "list NodePools with kubectl get nodepools")
		if hint := didYouMean(suggestions(s.nodePool, nodePoolNames(snap))); hint != "" {
			next = printableLine(hint)
		}
		return usageErrorf("NodePool %q not found: %s", s.nodePool, next)
	}
	if s.nodeClass != "" && !snap.Unavailable(snapshot.SourceNodeClasses) && !snap.Unavailable(snapshot.SourceAutoNodeClasses) &&
		!slices.ContainsFunc(snap.NodeClasses, func(c snapshot.EC2NodeClass) bool { return c.Name == s.nodeClass }) {
		next := s.hints.list("EC2NodeClasses and NodeClasses",
			"list them with kubectl get ec2nodeclasses.karpenter.k8s.aws,nodeclasses.eks.amazonaws.com")
		if hint := didYouMean(suggestions(s.nodeClass, nodeClassNames(snap))); hint != "" {
			next = printableLine(hint)
		}
		return usageErrorf("EC2NodeClass or NodeClass %q not found: %s", s.nodeClass, next)
	}
	return nil
}

// nodePoolNames are the names of the NodePools in snap.
func nodePoolNames(snap *snapshot.Snapshot) []string {
	out := make([]string, len(snap.NodePools))
	for i := range snap.NodePools {
		out[i] = snap.NodePools[i].Name
	}
	return out
}

// nodeClassNames are the names of the EC2NodeClasses and NodeClasses in snap.
func nodeClassNames(snap *snapshot.Snapshot) []string {
	out := make([]string, len(snap.NodeClasses))
	for i := range snap.NodeClasses {
		out[i] = snap.NodeClasses[i].Name
	}
	return out
}
