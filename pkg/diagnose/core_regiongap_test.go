package diagnose

import (
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// bogusRegion adds a node whose providerID names an invented Region, and the gap collection
// leaves for that Region.
func bogusRegion(s *snapshot.Snapshot) {
	n := *s.Nodes[0].DeepCopy()
	n.Name = "bogus"
	n.Spec.ProviderID = "aws:///zz-bogus0-1a/i-0123456789abcdef9"
	s.Nodes = append(s.Nodes, n)
	s.Gaps = append(s.Gaps, snapshot.Gap{Source: snapshot.SourceEC2, Region: "zz-bogus0-1",
		Reason: "zz-bogus0-1 is not a Region of any AWS partition (named by 1 providerID)", Remedy: "check the providerIDs"})
}

// TestRegionGapSkipsItsNodesOnly: a node in a Region EC2 could not be read in used to hide every
// EC2 finding (one "ec2" gap); now only that node is skipped and the main Region's critical
// instance-not-found stands.
func TestRegionGapSkipsItsNodesOnly(t *testing.T) {
	s := healthy()
	s.Instances = nil
	bogusRegion(s)
	r := Analyze(s, Options{})

	var notFound, unavailable []Finding
	for _, f := range r.Findings {
		switch f.ID {
		case "instance-not-found":
			notFound = append(notFound, f)
		case DataUnavailableID:
			unavailable = append(unavailable, f)
		}
	}
	if len(notFound) != 1 || notFound[0].Node != nodeA || notFound[0].Severity != Critical {
		t.Errorf("instance-not-found = %+v, want one critical finding on %s only", notFound, nodeA)
	}
	if len(unavailable) != 1 || unavailable[0].Resource != "ec2 in zz-bogus0-1" ||
		!strings.Contains(unavailable[0].Message, "could not read ec2 in Region zz-bogus0-1 (zz-bogus0-1 is not a Region") {
		t.Errorf("data-unavailable = %+v, want one about ec2 in zz-bogus0-1", unavailable)
	}
	for _, n := range r.Nodes {
		if n.Identity.Node != "bogus" {
			continue
		}
		if n.Status != StatusSkipped || len(n.Findings) != 0 || !strings.HasPrefix(n.Identity.Skipped, "EC2 was not read in Region zz-bogus0-1") {
			t.Errorf("bogus node: status %s with %d findings, skipped %q; want skipped with none, for its Region",
				n.Status, len(n.Findings), n.Identity.Skipped)
		}
	}
	if r.Summary.SkippedBy[SkippedUnread] != 1 {
		t.Errorf("SkippedBy = %v, want 1 %s", r.Summary.SkippedBy, SkippedUnread)
	}
}

func TestDataUnavailableOfARegion(t *testing.T) {
	runCheckCases(t, dataUnavailable, []checkCase{{
		name: "a Region's gap names the Region",
		edit: func(s *snapshot.Snapshot) {
			s.Gaps = []snapshot.Gap{{Source: snapshot.SourceEC2, Region: "eu-south-2", Reason: "AuthFailure: no", Remedy: "enable it"}}
		},
		want: []Finding{{
			ID: DataUnavailableID, Severity: Warning, Resource: "ec2 in eu-south-2",
			Message: "could not read ec2 in Region eu-south-2 (AuthFailure: no); its nodes and NodeClaims were not checked " +
				"against EC2, the other Regions' were",
			Remedy: "enable it",
		}},
	}})
}
