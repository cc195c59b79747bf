package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diff"
)

// DiffArgs are the arguments of diff.
type DiffArgs struct {
	Old    string `json:"old" jsonschema:"path of the older snapshot file (check --save-snapshot FILE)"`
	New    string `json:"new,omitempty" jsonschema:"path of the newer snapshot file; leave out to compare with the cluster now"`
	Limit  int    `json:"limit,omitempty" jsonschema:"items per list (findings added, resolved, changed; nodes), 1 to 100 (default 10)"`
	Offset int    `json:"offset,omitempty" jsonschema:"skip this many items of each list"`
}

// DiffResult is diff's answer: the counts of each list, then a page of each.
type DiffResult struct {
	Summary DiffSummary `json:"summary"`
	diff.Diff
}

// DiffSummary counts what changed, before paging.
type DiffSummary struct {
	FindingsAdded    int    `json:"findingsAdded"`
	FindingsResolved int    `json:"findingsResolved"`
	FindingsChanged  int    `json:"findingsChanged"`
	FindingsUnknown  int    `json:"findingsUnknown,omitempty"`
	NodesAdded       int    `json:"nodesAdded"`
	NodesRemoved     int    `json:"nodesRemoved"`
	NodesChanged     int    `json:"nodesChanged"`
	Offset           int    `json:"offset"`
	Limit            int    `json:"limit"`
	Next             string `json:"next,omitempty"`
}

func (t tools) diff(ctx context.Context, a DiffArgs) (any, error) {
	limit, err := limitOf(a.Limit, a.Offset, defaultChanges, maxChanges)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Old) == "" {
		return nil, errors.New("old: name a snapshot file saved with check --save-snapshot")
	}
	d, err := t.src.Diff(ctx, a.Old, a.New)
	if err != nil {
		return nil, err
	}
	f, n := &d.Findings, &d.Nodes
	s := DiffSummary{FindingsAdded: len(f.Added), FindingsResolved: len(f.Resolved), FindingsChanged: len(f.Changed),
		FindingsUnknown: len(f.Unknown), NodesAdded: len(n.Added), NodesRemoved: len(n.Removed), NodesChanged: len(n.Changed),
		Offset: a.Offset, Limit: limit}
	more := false
	f.Added, more = cut(f.Added, a.Offset, limit, more)
	f.Resolved, more = cut(f.Resolved, a.Offset, limit, more)
	f.Changed, more = cut(f.Changed, a.Offset, limit, more)
	f.Unknown, more = cut(f.Unknown, a.Offset, limit, more)
	n.Added, more = cut(n.Added, a.Offset, limit, more)
	n.Removed, more = cut(n.Removed, a.Offset, limit, more)
	n.Changed, more = cut(n.Changed, a.Offset, limit, more)
	n.NotRead, more = cut(n.NotRead, a.Offset, limit, more)
	if more {
		s.Next = fmt.Sprintf("lists go on: call diff again with offset %d", a.Offset+limit)
	}
	return DiffResult{Summary: s, Diff: d}, nil
}

// cut returns the page of s and whether s goes on past it (or more already did).
func cut[T any](s []T, offset, limit int, more bool) ([]T, bool) {
	lo, hi, p := page(len(s), offset, limit)
	if s == nil {
		return nil, more
	}
	return slices.Clone(s[lo:hi]), more || p.NextOffset > 0
}
