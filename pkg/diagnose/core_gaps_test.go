package diagnose

import (
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestDataUnavailable(t *testing.T) {
	runCheckCases(t, dataUnavailable, []checkCase{
		{name: "no gaps is silent"},
		{
			name: "one finding per gap",
			edit: func(s *snapshot.Snapshot) {
				s.Gaps = []snapshot.Gap{
					{Source: snapshot.SourceDescribeSubnets, Reason: "UnauthorizedOperation", Remedy: "allow ec2:DescribeSubnets"},
					{Source: snapshot.SourceNodePools},
				}
			},
			want: []Finding{
				{
					ID: "data-unavailable", Severity: Warning, Resource: "ec2:DescribeSubnets",
					Message: "could not read ec2:DescribeSubnets (UnauthorizedOperation); checks that need it were skipped",
					Remedy:  "allow ec2:DescribeSubnets",
				},
				{
					ID: "data-unavailable", Severity: Warning, Resource: "nodepools.karpenter.sh",
					Message: "could not read nodepools.karpenter.sh (no reason given); checks that need it were skipped",
					Remedy:  "grant karpnet read access to nodepools.karpenter.sh and run it again",
				},
			},
		},
	})
}
