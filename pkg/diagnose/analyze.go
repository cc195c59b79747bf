package diagnose

import "github.com/karpnet/kubectl-karpnet/pkg/snapshot"

// Analyze runs the chosen checks over s and returns a deterministic Report.
func Analyze(s *snapshot.Snapshot, opts Options) Report {
	panic("not yet written")
}
