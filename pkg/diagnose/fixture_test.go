package diagnose

import (
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/fixture"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Names used by the healthy fixture.
const (
	nodeA     = fixture.NodeA
	instanceA = fixture.InstanceA
	subnetA   = fixture.SubnetA
	sgNodes   = fixture.SGNodes
)

// healthy returns a snapshot of one healthy Karpenter node (fixture.Healthy).
func healthy() *snapshot.Snapshot { return fixture.Healthy() }

// karpenterNode returns a Karpenter m5.large Node in us-west-2a with 29 pods.
func karpenterNode(name, instanceID, ip string) corev1.Node {
	return fixture.KarpenterNode(name, instanceID, ip)
}

// instance returns a running m5.large in subnetA with one ENI whose primary IP is ip.
func instance(id, ip string) snapshot.Instance { return fixture.Instance(id, ip) }

// checkCase is one table row of a single-check test: edit the healthy snapshot, expect findings.
type checkCase struct {
	name string
	edit func(*snapshot.Snapshot)
	want []Finding
}

// runCheckCases runs every case of a single-check table over the healthy fixture.
func runCheckCases(t *testing.T, c Check, cases []checkCase) {
	t.Helper()
	runCasesOver(t, healthy, c, cases)
}

// runCasesOver runs every case of a single-check table over a fresh snapshot from base.
func runCasesOver(t *testing.T, base func() *snapshot.Snapshot, c Check, cases []checkCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := base()
			if tc.edit != nil {
				tc.edit(s)
			}
			if os.Getenv("KARPNET_WRITE_WORLDS") != "" {
				writeWorld(t, c.ID, worldName(tc), s)
			}
			got := c.Findings(NewIndex(s))
			coverage.record(c.ID, len(got))
			recordCommands(t, s, got)
			for _, f := range got {
				if !slices.Contains(c.Severities(), f.Severity) {
					t.Errorf("%s raised %s, which its catalogue entry does not list (%v)", c.ID, f.Severity, c.Severities())
				}
				if !slices.Contains(c.Examines, f.SubjectKind()) {
					t.Errorf("%s raised a finding about %s (kind %s), which its catalogue entry does not examine (%v)",
						c.ID, f.Subject(), f.SubjectKind(), c.Examines)
				}
			}
			assertCommandScope(t, c, got)
			slices.SortFunc(got, compareFindings)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s findings mismatch (-want +got):\n%s", c.ID, diff)
			}
		})
	}
}

// gap returns an edit that records a Gap for source.
func gap(source string) func(*snapshot.Snapshot) { return fixture.Gap(source) }

// edits combines edits in order.
func edits(fs ...func(*snapshot.Snapshot)) func(*snapshot.Snapshot) { return fixture.Edits(fs...) }

// edited applies edit to s and returns it.
func edited(s *snapshot.Snapshot, edit func(*snapshot.Snapshot)) *snapshot.Snapshot {
	edit(s)
	return s
}
