package collect

import (
	"context"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// collectKube is written by the Kubernetes collector work.
func (c *Collector) collectKube(ctx context.Context, s *snapshot.Snapshot, scope Scope) error {
	return nil
}
