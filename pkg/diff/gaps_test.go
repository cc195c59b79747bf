package diff

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestCompareGaps: a finding gone from one side that could not read what the other read is
// unknown, not resolved; nodes gone while the node list was incomplete were not read, not
// removed. A gap both sides share hides nothing the other side saw, and a data-unavailable
// finding is resolved when its gap is gone.
func TestCompareGaps(t *testing.T) {
	notFound := diagnose.Finding{ID: "instance-not-found", Severity: diagnose.Critical, Node: "a"}
	mismatch := diagnose.Finding{ID: "instance-type-mismatch", Severity: diagnose.Warning, Node: "b"}
	denied := snapshot.Gap{Source: snapshot.SourceDescribeInstances, Reason: "UnauthorizedOperation"}
	events := snapshot.Gap{Source: snapshot.SourceEvents, Reason: "forbidden"}
	gapFinding := diagnose.Finding{ID: diagnose.DataUnavailableID, Severity: diagnose.Warning, Resource: "source/" + denied.Source}
	nodes := []diagnose.NodeReport{{Identity: diagnose.Identity{Node: "a"}}, {Identity: diagnose.Identity{Node: "b"}}, {Identity: diagnose.Identity{Node: "c"}}}
	tests := []struct {
		name          string
		old, new      diagnose.Report
		wantResolved  []diagnose.Finding
		wantUnknown   []diagnose.Finding
		wantRemoved   []string
		wantNotRead   []string
		wantWarnings  []string
		wantUncertain int
	}{
		{
			name:         "NEW could not read instances",
			old:          diagnose.Report{Findings: []diagnose.Finding{notFound, mismatch}},
			new:          diagnose.Report{Findings: []diagnose.Finding{gapFinding}, Gaps: []snapshot.Gap{denied}},
			wantResolved: []diagnose.Finding{}, wantUnknown: []diagnose.Finding{notFound, mismatch}, wantUncertain: 1,
		},
		{
			name:         "OLD could not read instances",
			old:          diagnose.Report{Findings: []diagnose.Finding{gapFinding, mismatch}, Gaps: []snapshot.Gap{denied}},
			new:          diagnose.Report{},
			wantResolved: []diagnose.Finding{gapFinding}, wantUnknown: []diagnose.Finding{mismatch},
		},
		{
			name:         "the same gap on both sides",
			old:          diagnose.Report{Findings: []diagnose.Finding{mismatch}, Gaps: []snapshot.Gap{events}},
			new:          diagnose.Report{Gaps: []snapshot.Gap{events}},
			wantResolved: []diagnose.Finding{mismatch},
		},
		{
			name:         "the node list stopped paging",
			old:          diagnose.Report{Nodes: nodes},
			new:          diagnose.Report{Nodes: nodes[:1], Gaps: []snapshot.Gap{{Source: snapshot.SourceNodes, Reason: "the list did not end"}}},
			wantResolved: []diagnose.Finding{}, wantNotRead: []string{"b", "c"}, wantRemoved: []string{},
		},
		{
			name:         "the node list read whole",
			old:          diagnose.Report{Nodes: nodes},
			new:          diagnose.Report{Nodes: nodes[:1]},
			wantResolved: []diagnose.Finding{}, wantRemoved: []string{"b", "c"},
		},
		{
			name:         "another cluster",
			old:          diagnose.Report{Context: "prod", Cluster: "prod-eks"},
			new:          diagnose.Report{Context: "staging", Cluster: "staging-eks"},
			wantResolved: []diagnose.Finding{},
			wantWarnings: []string{`OLD and NEW are different clusters (prod-eks in context prod, staging-eks in context staging): the changes compare one cluster with another`},
		},
		{
			name:         "another context name for the same cluster",
			old:          diagnose.Report{Context: "prod", Cluster: "prod-eks"},
			new:          diagnose.Report{Context: "arn:aws:eks:us-west-2:1:cluster/prod-eks", Cluster: "prod-eks"},
			wantResolved: []diagnose.Finding{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Compare(tt.old, tt.new, Side{}, Side{})
			if diff := cmp.Diff(tt.wantResolved, d.Findings.Resolved); diff != "" {
				t.Errorf("resolved (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantUnknown, d.Findings.Unknown); diff != "" {
				t.Errorf("unknown (-want +got):\n%s", diff)
			}
			if tt.wantRemoved != nil {
				if diff := cmp.Diff(tt.wantRemoved, d.Nodes.Removed); diff != "" {
					t.Errorf("removed (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tt.wantNotRead, d.Nodes.NotRead); diff != "" {
				t.Errorf("not read (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWarnings, d.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if got := len(d.Uncertain(diagnose.Critical)); got != tt.wantUncertain {
				t.Errorf("Uncertain(critical): got %d findings, want %d", got, tt.wantUncertain)
			}
		})
	}
}

// TestComparePolicyListUnread: network-policy-not-enforced raised on OLD is unknown, not
// resolved, when NEW could not list the ClusterNetworkPolicies it was raised from; the check
// is silent on NEW rather than clean.
func TestComparePolicyListUnread(t *testing.T) {
	side := func(edit func(*snapshot.Snapshot)) diagnose.Report {
		s, err := demo.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		s.Cilium, s.Calico = nil, ""
		s.NetworkPolicies = []snapshot.PolicyCount{{Kind: snapshot.KindClusterNetworkPolicy, Count: 1, Names: []string{"deny-egress"}}}
		if s.AWSNode == nil {
			t.Fatal("the demo has no aws-node")
		}
		s.AWSNode.NodeAgent = &snapshot.NodeAgent{}
		edit(s)
		return diagnose.Analyze(s, diagnose.Options{})
	}
	const id = "network-policy-not-enforced"
	has := func(r diagnose.Report) bool {
		return slices.ContainsFunc(r.Findings, func(f diagnose.Finding) bool { return f.ID == id })
	}
	old := side(func(*snapshot.Snapshot) {})
	if !has(old) {
		t.Fatalf("OLD: no %s finding", id)
	}
	for _, tc := range []struct {
		name    string
		edit    func(*snapshot.Snapshot)
		unknown bool
	}{
		{"the list refused", func(s *snapshot.Snapshot) {
			s.NetworkPolicies = nil
			s.Gaps = append(s.Gaps, snapshot.Gap{Source: snapshot.SourceClusterNetworkPolicies, Reason: "forbidden"})
		}, true},
		{"the policy deleted", func(s *snapshot.Snapshot) { s.NetworkPolicies = nil }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			new := side(tc.edit)
			if has(new) {
				t.Fatalf("NEW: %s still fires", id)
			}
			d := Compare(old, new, Side{}, Side{})
			resolved := slices.ContainsFunc(d.Findings.Resolved, func(f diagnose.Finding) bool { return f.ID == id })
			unknown := slices.ContainsFunc(d.Uncertain(diagnose.Warning), func(f diagnose.Finding) bool { return f.ID == id })
			if unknown != tc.unknown || resolved == tc.unknown {
				t.Errorf("%s: resolved %v, unknown %v; want unknown %v", id, resolved, unknown, tc.unknown)
			}
		})
	}
}
