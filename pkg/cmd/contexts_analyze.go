package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// analyze resolves the selection against snap and analyses it: one cluster as before; over
// several clusters each with its own options, where a named node, --nodepool or --nodeclass
// needs to exist in one cluster only (the others then report no node) and a name found in
// none is a usage error.
func (s selection) analyze(snap *snapshot.Snapshot, only, skip []string) (diagnose.Report, error) {
	if !snap.Multi() {
		opts, err := s.options(snap, only, skip)
		if err != nil {
			return diagnose.Report{}, err
		}
		return diagnose.Analyze(snap, opts), nil
	}
	per := map[string]diagnose.Options{}
	var firstErr error
	read, found := 0, map[string]bool{}
	var contexts []string
	for i := range snap.Clusters {
		m := &snap.Clusters[i]
		if m.Unreachable() != "" {
			per[m.Context] = diagnose.Options{Only: only, Skip: skip}
			continue
		}
		read++
		contexts = append(contexts, m.Context)
		member := s
		member.names = nil
		for _, name := range s.names {
			if hasNode(m, name) {
				member.names = append(member.names, name)
				found[name] = true
			}
		}
		if len(s.names) > 0 && len(member.names) == 0 {
			// None of the names is in this cluster: it reports none of its nodes.
			per[m.Context] = diagnose.Options{Only: only, Skip: skip, Nodes: map[string]bool{}, Resources: map[string]bool{}}
			continue
		}
		opts, err := member.options(m, only, skip)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			opts = diagnose.Options{Only: only, Skip: skip, Nodes: map[string]bool{}, Resources: map[string]bool{}}
			read--
		}
		per[m.Context] = opts
	}
	for _, name := range s.names {
		if !found[name] {
			return diagnose.Report{}, &exitError{code: ExitUsage, err: fmt.Errorf("node %q not found in any of the contexts %s: list nodes with kubectl --context NAME get nodes",
				name, strings.Join(contexts, ", "))}
		}
	}
	if read == 0 && firstErr != nil {
		var e *exitError
		if errors.As(firstErr, &e) {
			return diagnose.Report{}, &exitError{code: e.code, err: fmt.Errorf("%w (in every context: %s)", e.err, strings.Join(contexts, ", "))}
		}
		return diagnose.Report{}, firstErr
	}
	return diagnose.AnalyzeClusters(snap, func(m *snapshot.Snapshot) diagnose.Options { return per[m.Context] }), nil
}

// hasNode reports whether snap holds a node called name.
func hasNode(snap *snapshot.Snapshot, name string) bool {
	for i := range snap.Nodes {
		if snap.Nodes[i].Name == name {
			return true
		}
	}
	return false
}

// printUnreachable says on standard error which clusters of a report over several could not
// be read, for output (the node sheets) that shows no data-unavailable finding.
func (o *commonOptions) printUnreachable(r diagnose.Report) {
	for _, c := range r.Clusters {
		if c.Status == diagnose.StatusUnreachable {
			fmt.Fprintf(o.ErrOut, "warning: context %s could not be read: %s\n", printableLine(c.Context), printableLine(c.Gap))
		}
	}
}
