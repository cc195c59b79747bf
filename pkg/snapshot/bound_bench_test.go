package snapshot_test

import (
	"fmt"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// BenchmarkBound bounds a snapshot of 20,000 nodes and instances copied from the demo's,
// which holds nothing to cut: the cost every live run pays.
func BenchmarkBound(b *testing.B) {
	d, err := demo.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	s := snapshot.New(d.Taken)
	for i := range 20_000 {
		n := *d.Nodes[i%len(d.Nodes)].DeepCopy()
		n.Name = fmt.Sprintf("node-%d", i)
		s.Nodes = append(s.Nodes, n)
		s.Instances = append(s.Instances, d.Instances[i%len(d.Instances)])
	}
	s.InstanceTypes, s.Subnets = d.InstanceTypes, d.Subnets
	b.ResetTimer()
	for b.Loop() {
		s.Bound()
	}
}
