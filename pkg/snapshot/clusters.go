package snapshot

import (
	"errors"
	"fmt"
	"time"
)

// Format versions. A snapshot of one cluster is written as format 1, as before; a snapshot
// of several clusters (Clusters set) as format 2, so that a karpnet that does not know
// Clusters refuses it ("newer than this karpnet reads") instead of reading it as an empty
// cluster.
const (
	formatSingle = 1
	formatMulti  = 2
)

// SourceKubeAPI is the Gap of a cluster whose API server could not be read at all in a run
// over several clusters (unreachable, refusing the credentials, nodes forbidden): the other
// clusters are still diagnosed.
const SourceKubeAPI = "kubernetes"

// NewMulti returns a snapshot of several clusters: one member Snapshot per kubeconfig
// context, in the order given. Taken is the earliest member's.
func NewMulti(members []Snapshot) *Snapshot {
	var taken time.Time
	for _, m := range members {
		if taken.IsZero() || (!m.Taken.IsZero() && m.Taken.Before(taken)) {
			taken = m.Taken
		}
	}
	s := New(taken)
	s.Clusters = members
	return s
}

// Multi reports whether s holds several clusters' snapshots (Clusters) rather than one.
func (s *Snapshot) Multi() bool { return len(s.Clusters) > 0 }

// Unreachable returns the reason a member of a multi-cluster snapshot could not be read at
// all (its SourceKubeAPI gap), or "".
func (s *Snapshot) Unreachable() string {
	for _, g := range s.Gaps {
		if g.Source == SourceKubeAPI {
			return g.Reason
		}
	}
	return ""
}

// formatVersion is the format Write gives s: 2 with Clusters, else 1.
func (s *Snapshot) formatVersion() int {
	if s.Multi() {
		return formatMulti
	}
	return formatSingle
}

// validateClusters checks the members of a multi-cluster snapshot: no member holds members
// of its own, each is stamped and names its context once, and each member's numbers are in
// range. Members carry no kind or version of their own.
func (s *Snapshot) validateClusters() error {
	if !s.Multi() {
		return nil
	}
	if s.FormatVersion < formatMulti {
		return fmt.Errorf("clusters needs format version %d, the file says %d", formatMulti, s.FormatVersion)
	}
	if len(s.Nodes) > 0 {
		return errors.New("a snapshot with clusters holds its nodes in them, not at the top")
	}
	seen := map[string]bool{}
	for i := range s.Clusters {
		m := &s.Clusters[i]
		at := fmt.Sprintf("clusters[%d]", i)
		switch {
		case m.Multi():
			return fmt.Errorf("%s holds clusters of its own", at)
		case m.Context == "":
			return fmt.Errorf("%s has no context", at)
		case seen[m.Context]:
			return fmt.Errorf("%s repeats context %q", at, m.Context)
		case m.Taken.IsZero():
			return fmt.Errorf("%s has no taken time", at)
		}
		seen[m.Context] = true
		if err := m.validate(); err != nil {
			return fmt.Errorf("%s.%w", at, err)
		}
		m.Redact()
	}
	return nil
}
