package diagnose

import (
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestCNIChecksSilentOnHealthy runs every VPC CNI check over the healthy fixture, with and
// without the aws-node DaemonSet.
func TestCNIChecksSilentOnHealthy(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*snapshot.Snapshot)
	}{
		{name: "healthy"},
		{name: "no aws-node", edit: func(s *snapshot.Snapshot) { s.AWSNode = nil }},
		{name: "nothing from EC2", edit: func(s *snapshot.Snapshot) {
			s.Instances, s.Subnets, s.InstanceTypes = nil, nil, nil
			s.Gaps = []snapshot.Gap{{Source: snapshot.SourceEC2, Reason: "no credentials"}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := healthy()
			if tc.edit != nil {
				tc.edit(s)
			}
			x := NewIndex(s)
			for _, c := range cniChecks() {
				if got := c.Findings(x); len(got) != 0 {
					t.Errorf("%s: got %+v, want no finding", c.ID, got)
				}
			}
		})
	}
}
