package cmd

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// selection is the typed form of the node-choosing flags: names, -l, --nodepool, --nodeclass.
type selection struct {
	names     []string
	selector  labels.Selector
	nodePool  string
	nodeClass string
}

// newSelection parses the flags into a selection.
func newSelection(names []string, selector, nodePool, nodeClass string) (selection, error) {
	sel := selection{names: names, nodePool: nodePool, nodeClass: nodeClass}
	var err error
	sel.selector, err = labels.Parse(selector)
	if err != nil {
		return sel, usageErrorf("-l/--selector %q: %v", selector, err)
	}
	for _, v := range []struct{ flag, key, value string }{
		{"--nodepool", snapshot.LabelNodePool, nodePool},
		{"--nodeclass", snapshot.LabelEC2NodeClass, nodeClass},
	} {
		if v.value == "" {
			continue
		}
		r, err := labels.NewRequirement(v.key, "=", []string{v.value})
		if err != nil {
			return sel, usageErrorf("%s %q is not a valid name", v.flag, v.value)
		}
		sel.selector = sel.selector.Add(*r)
	}
	return sel, nil
}

// scope is what the live collector should read.
func (s selection) scope() collect.Scope {
	return collect.Scope{Names: s.names, Selector: s.selector.String()}
}

// options resolves the selection against a snapshot (which may hold more nodes than were
// asked for, e.g. a saved one) into diagnose options. Named nodes that do not exist are a
// usage error.
func (s selection) options(snap *snapshot.Snapshot, only, skip []string) (diagnose.Options, error) {
	opts := diagnose.Options{Only: only, Skip: skip}
	if len(s.names) == 0 && s.selector.Empty() {
		return opts, nil
	}
	opts.Nodes = map[string]bool{}
	present := map[string]bool{}
	for i := range snap.Nodes {
		n := &snap.Nodes[i]
		present[n.Name] = true
		if len(s.names) == 0 && s.selector.Matches(labels.Set(n.Labels)) {
			opts.Nodes[n.Name] = true
		}
	}
	for _, name := range s.names {
		if !present[name] {
			return opts, &exitError{code: ExitUsage, err: fmt.Errorf("node %q not found: list nodes with kubectl get nodes", name)}
		}
		if s.selector.Matches(labels.Set(nodeLabels(snap, name))) {
			opts.Nodes[name] = true
		}
	}
	if err := s.known(snap, opts.Nodes); err != nil {
		return opts, err
	}
	opts.Resources = map[string]bool{}
	if s.nodePool != "" {
		opts.Resources["nodepool/"+s.nodePool] = true
		// The pool's EC2NodeClass is part of it even when the pool has no node (yet): a class
		// that is not Ready is why it launches none.
		for _, p := range snap.NodePools {
			if p.Name == s.nodePool && p.NodeClassRef.Name != "" &&
				(p.NodeClassRef.Kind == "" || p.NodeClassRef.Kind == snapshot.KindEC2NodeClass) {
				opts.Resources["ec2nodeclass/"+p.NodeClassRef.Name] = true
			}
		}
	}
	if s.nodeClass != "" {
		opts.Resources["ec2nodeclass/"+s.nodeClass] = true
	}
	return opts, nil
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
		return usageErrorf("NodePool %q not found: list NodePools with kubectl get nodepools", s.nodePool)
	}
	if s.nodeClass != "" && !snap.Unavailable(snapshot.SourceNodeClasses) &&
		!slices.ContainsFunc(snap.NodeClasses, func(c snapshot.EC2NodeClass) bool { return c.Name == s.nodeClass }) {
		return usageErrorf("EC2NodeClass %q not found: list them with kubectl get ec2nodeclasses", s.nodeClass)
	}
	return nil
}
