package diff

import (
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"

	"github.com/google/go-cmp/cmp"
)

func TestCompareFindings(t *testing.T) {
	mismatch := diagnose.Finding{ID: "instance-type-mismatch", Severity: diagnose.Warning, Node: "a", Message: "m5.xlarge"}
	drift := diagnose.Finding{ID: "security-group-drift", Severity: diagnose.Warning, Node: "b", Resource: "ec2nodeclass/default"}
	driftWorse := drift
	driftWorse.Severity = diagnose.Critical
	full := diagnose.Finding{ID: "subnet-ip-exhaustion", Severity: diagnose.Critical, Resource: "subnet/subnet-1"}
	otherNode := mismatch
	otherNode.Node = "c"
	reworded := mismatch
	reworded.Message = "m5.large"
	tests := []struct {
		name     string
		old, new []diagnose.Finding
		want     FindingChanges
	}{
		{
			name: "same findings",
			old:  []diagnose.Finding{mismatch, drift}, new: []diagnose.Finding{mismatch, drift},
			want: FindingChanges{Added: []diagnose.Finding{}, Resolved: []diagnose.Finding{}, Changed: []SeverityChange{}},
		},
		{
			name: "a new message under the same key is no change",
			old:  []diagnose.Finding{mismatch}, new: []diagnose.Finding{reworded},
			want: FindingChanges{Added: []diagnose.Finding{}, Resolved: []diagnose.Finding{}, Changed: []SeverityChange{}},
		},
		{
			name: "added, resolved and changed",
			old:  []diagnose.Finding{mismatch, drift}, new: []diagnose.Finding{full, driftWorse},
			want: FindingChanges{
				Added:    []diagnose.Finding{full},
				Resolved: []diagnose.Finding{mismatch},
				Changed:  []SeverityChange{{Finding: driftWorse, OldSeverity: diagnose.Warning}},
			},
		},
		{
			name: "the same check on another node is another finding",
			old:  []diagnose.Finding{mismatch}, new: []diagnose.Finding{otherNode},
			want: FindingChanges{Added: []diagnose.Finding{otherNode}, Resolved: []diagnose.Finding{mismatch}, Changed: []SeverityChange{}},
		},
		{
			name: "the worst of one key stands for it",
			old:  []diagnose.Finding{driftWorse}, new: []diagnose.Finding{driftWorse, drift},
			want: FindingChanges{Added: []diagnose.Finding{}, Resolved: []diagnose.Finding{}, Changed: []SeverityChange{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(diagnose.Report{Findings: tt.old}, diagnose.Report{Findings: tt.new}, Side{}, Side{}).Findings
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiffWorsened(t *testing.T) {
	warn := diagnose.Finding{ID: "instance-type-mismatch", Severity: diagnose.Warning, Node: "a"}
	crit := diagnose.Finding{ID: "instance-not-running", Severity: diagnose.Critical, Node: "b"}
	raised := diagnose.Finding{ID: "security-group-drift", Severity: diagnose.Critical, Node: "c"}
	d := Diff{Findings: FindingChanges{
		Added:   []diagnose.Finding{warn, crit},
		Changed: []SeverityChange{{Finding: raised, OldSeverity: diagnose.Warning}},
	}}
	tests := []struct {
		threshold diagnose.Severity
		want      []diagnose.Finding
	}{
		{diagnose.Critical, []diagnose.Finding{crit, raised}},
		{diagnose.Warning, []diagnose.Finding{warn, crit}},
		{diagnose.Info, []diagnose.Finding{warn, crit}},
	}
	for _, tt := range tests {
		t.Run(tt.threshold.String(), func(t *testing.T) {
			if diff := cmp.Diff(tt.want, d.Worsened(tt.threshold)); diff != "" {
				t.Errorf("worsened at %s (-want +got):\n%s", tt.threshold, diff)
			}
		})
	}
}

func TestCompareNodes(t *testing.T) {
	base := diagnose.NodeReport{
		Identity:       diagnose.Identity{Node: "a", InstanceID: "i-1", InstanceState: "running", InstanceType: "m5.large", Zone: "us-west-2a"},
		Lifecycle:      diagnose.Lifecycle{State: "running"},
		Addresses:      []diagnose.AddressReport{{Address: "10.0.1.5"}, {Address: "10.0.1.4"}},
		Subnet:         &diagnose.SubnetReport{ID: "subnet-1"},
		SecurityGroups: &diagnose.SecurityGroups{Groups: []diagnose.SecurityGroupReport{{ID: "sg-2"}, {ID: "sg-1"}}},
		ENIs:           []diagnose.ENIReport{{ID: "eni-1"}},
		Capacity:       &diagnose.CapacityReport{Pods: 29, IPCapacity: 29},
		Placement:      &diagnose.PlacementReport{GroupName: "pg"},
		Status:         "ok",
	}
	reordered := base
	reordered.Addresses = []diagnose.AddressReport{{Address: "10.0.1.4"}, {Address: "10.0.1.5"}}
	reordered.SecurityGroups = &diagnose.SecurityGroups{Groups: []diagnose.SecurityGroupReport{{ID: "sg-1"}, {ID: "sg-2"}}}
	changed := base
	changed.Identity.InstanceState = "terminated"
	changed.SecurityGroups = &diagnose.SecurityGroups{Groups: []diagnose.SecurityGroupReport{{ID: "sg-1"}}}
	changed.ENIs = nil
	changed.Capacity = &diagnose.CapacityReport{Pods: 110, IPCapacity: 29}
	changed.Placement = nil
	changed.Status = "critical"
	gone := diagnose.NodeReport{Identity: diagnose.Identity{Node: "b"}}
	added := diagnose.NodeReport{Identity: diagnose.Identity{Node: "c"}}
	tests := []struct {
		name     string
		old, new []diagnose.NodeReport
		want     NodeChanges
	}{
		{
			name: "the same facts in another order",
			old:  []diagnose.NodeReport{base}, new: []diagnose.NodeReport{reordered},
			want: NodeChanges{Added: []string{}, Removed: []string{}, Changed: []NodeChange{}},
		},
		{
			name: "added, removed and changed",
			old:  []diagnose.NodeReport{gone, base}, new: []diagnose.NodeReport{changed, added},
			want: NodeChanges{Added: []string{"c"}, Removed: []string{"b"}, Changed: []NodeChange{{Node: "a", Fields: []FieldChange{
				{Field: "instanceState", Old: "running", New: "terminated"},
				{Field: "securityGroups", Old: "sg-1,sg-2", New: "sg-1"},
				{Field: "enis", Old: "1", New: "0"},
				{Field: "pods", Old: "29", New: "110"},
				{Field: "placementGroup", Old: "pg", New: ""},
				{Field: "status", Old: "ok", New: "critical"},
			}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(diagnose.Report{Nodes: tt.old}, diagnose.Report{Nodes: tt.new}, Side{}, Side{}).Nodes
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompareClaimsAndSides(t *testing.T) {
	old := diagnose.Report{Taken: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), Context: "prod",
		NodeClaims: []diagnose.NodeClaimReport{{Name: "gone", Status: diagnose.ClaimNotRegistered}, {Name: "stays", Status: diagnose.ClaimLaunching}}}
	new := diagnose.Report{Taken: time.Date(2026, 11, 20, 10, 0, 0, 0, time.FixedZone("x", 3600)),
		NodeClaims: []diagnose.NodeClaimReport{{Name: "stays", Status: diagnose.ClaimRegistering}, {Name: "b-new", Status: diagnose.ClaimLaunchFailed}, {Name: "a-new", Status: diagnose.ClaimLaunching}}}
	d := Compare(old, new, Side{Source: "old.json"}, Side{Source: "live"})
	want := ClaimChanges{
		Added:   []ClaimRef{{Name: "a-new", Status: diagnose.ClaimLaunching}, {Name: "b-new", Status: diagnose.ClaimLaunchFailed}},
		Removed: []ClaimRef{{Name: "gone", Status: diagnose.ClaimNotRegistered}},
	}
	if diff := cmp.Diff(want, d.NodeClaims); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
	wantOld := Side{Source: "old.json", Taken: old.Taken, Context: "prod"}
	wantNew := Side{Source: "live", Taken: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)}
	if diff := cmp.Diff([]Side{wantOld, wantNew}, []Side{d.Old, d.New}); diff != "" {
		t.Errorf("sides (-want +got):\n%s", diff)
	}
	if d.Kind != Kind || d.APIVersion != diagnose.ReportAPIVersion {
		t.Errorf("kind, apiVersion: got %q, %q, want %q, %q", d.Kind, d.APIVersion, Kind, diagnose.ReportAPIVersion)
	}
}
