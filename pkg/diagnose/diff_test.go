package diagnose

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCompareFindings(t *testing.T) {
	mismatch := Finding{ID: "instance-type-mismatch", Severity: Warning, Node: "a", Message: "m5.xlarge"}
	drift := Finding{ID: "security-group-drift", Severity: Warning, Node: "b", Resource: "ec2nodeclass/default"}
	driftWorse := drift
	driftWorse.Severity = Critical
	full := Finding{ID: "subnet-ip-exhaustion", Severity: Critical, Resource: "subnet/subnet-1"}
	otherNode := mismatch
	otherNode.Node = "c"
	reworded := mismatch
	reworded.Message = "m5.large"
	tests := []struct {
		name     string
		old, new []Finding
		want     FindingChanges
	}{
		{
			name: "same findings",
			old:  []Finding{mismatch, drift}, new: []Finding{mismatch, drift},
			want: FindingChanges{Added: []Finding{}, Resolved: []Finding{}, Changed: []SeverityChange{}},
		},
		{
			name: "a new message under the same key is no change",
			old:  []Finding{mismatch}, new: []Finding{reworded},
			want: FindingChanges{Added: []Finding{}, Resolved: []Finding{}, Changed: []SeverityChange{}},
		},
		{
			name: "added, resolved and changed",
			old:  []Finding{mismatch, drift}, new: []Finding{full, driftWorse},
			want: FindingChanges{
				Added:    []Finding{full},
				Resolved: []Finding{mismatch},
				Changed:  []SeverityChange{{Finding: driftWorse, OldSeverity: Warning}},
			},
		},
		{
			name: "the same check on another node is another finding",
			old:  []Finding{mismatch}, new: []Finding{otherNode},
			want: FindingChanges{Added: []Finding{otherNode}, Resolved: []Finding{mismatch}, Changed: []SeverityChange{}},
		},
		{
			name: "the worst of one key stands for it",
			old:  []Finding{driftWorse}, new: []Finding{driftWorse, drift},
			want: FindingChanges{Added: []Finding{}, Resolved: []Finding{}, Changed: []SeverityChange{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(Report{Findings: tt.old}, Report{Findings: tt.new}, DiffSide{}, DiffSide{}).Findings
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiffWorsened(t *testing.T) {
	warn := Finding{ID: "instance-type-mismatch", Severity: Warning, Node: "a"}
	crit := Finding{ID: "instance-not-running", Severity: Critical, Node: "b"}
	raised := Finding{ID: "security-group-drift", Severity: Critical, Node: "c"}
	d := Diff{Findings: FindingChanges{
		Added:   []Finding{warn, crit},
		Changed: []SeverityChange{{Finding: raised, OldSeverity: Warning}},
	}}
	tests := []struct {
		threshold Severity
		want      []Finding
	}{
		{Critical, []Finding{crit, raised}},
		{Warning, []Finding{warn, crit}},
		{Info, []Finding{warn, crit}},
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
	base := NodeReport{
		Identity:       Identity{Node: "a", InstanceID: "i-1", InstanceState: "running", InstanceType: "m5.large", Zone: "us-west-2a"},
		Lifecycle:      Lifecycle{State: "running"},
		Addresses:      []AddressReport{{Address: "10.0.1.5"}, {Address: "10.0.1.4"}},
		Subnet:         &SubnetReport{ID: "subnet-1"},
		SecurityGroups: &SecurityGroups{Groups: []SecurityGroupReport{{ID: "sg-2"}, {ID: "sg-1"}}},
		ENIs:           []ENIReport{{ID: "eni-1"}},
		Capacity:       &CapacityReport{Pods: 29, IPCapacity: 29},
		Placement:      &PlacementReport{GroupName: "pg"},
		Status:         "ok",
	}
	reordered := base
	reordered.Addresses = []AddressReport{{Address: "10.0.1.4"}, {Address: "10.0.1.5"}}
	reordered.SecurityGroups = &SecurityGroups{Groups: []SecurityGroupReport{{ID: "sg-1"}, {ID: "sg-2"}}}
	changed := base
	changed.Identity.InstanceState = "terminated"
	changed.SecurityGroups = &SecurityGroups{Groups: []SecurityGroupReport{{ID: "sg-1"}}}
	changed.ENIs = nil
	changed.Capacity = &CapacityReport{Pods: 110, IPCapacity: 29}
	changed.Placement = nil
	changed.Status = "critical"
	gone := NodeReport{Identity: Identity{Node: "b"}}
	added := NodeReport{Identity: Identity{Node: "c"}}
	tests := []struct {
		name     string
		old, new []NodeReport
		want     NodeChanges
	}{
		{
			name: "the same facts in another order",
			old:  []NodeReport{base}, new: []NodeReport{reordered},
			want: NodeChanges{Added: []string{}, Removed: []string{}, Changed: []NodeChange{}},
		},
		{
			name: "added, removed and changed",
			old:  []NodeReport{gone, base}, new: []NodeReport{changed, added},
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
			got := Compare(Report{Nodes: tt.old}, Report{Nodes: tt.new}, DiffSide{}, DiffSide{}).Nodes
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompareClaimsAndSides(t *testing.T) {
	old := Report{Taken: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), Context: "prod",
		NodeClaims: []NodeClaimReport{{Name: "gone", Status: ClaimNotRegistered}, {Name: "stays", Status: ClaimLaunching}}}
	new := Report{Taken: time.Date(2026, 11, 20, 10, 0, 0, 0, time.FixedZone("x", 3600)),
		NodeClaims: []NodeClaimReport{{Name: "stays", Status: ClaimRegistering}, {Name: "b-new", Status: ClaimLaunchFailed}, {Name: "a-new", Status: ClaimLaunching}}}
	d := Compare(old, new, DiffSide{Source: "old.json"}, DiffSide{Source: "live"})
	want := ClaimChanges{
		Added:   []ClaimRef{{Name: "a-new", Status: ClaimLaunching}, {Name: "b-new", Status: ClaimLaunchFailed}},
		Removed: []ClaimRef{{Name: "gone", Status: ClaimNotRegistered}},
	}
	if diff := cmp.Diff(want, d.NodeClaims); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
	wantOld := DiffSide{Source: "old.json", Taken: old.Taken, Context: "prod"}
	wantNew := DiffSide{Source: "live", Taken: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)}
	if diff := cmp.Diff([]DiffSide{wantOld, wantNew}, []DiffSide{d.Old, d.New}); diff != "" {
		t.Errorf("sides (-want +got):\n%s", diff)
	}
	if d.Kind != DiffKind || d.APIVersion != ReportAPIVersion {
		t.Errorf("kind, apiVersion: got %q, %q, want %q, %q", d.Kind, d.APIVersion, DiffKind, ReportAPIVersion)
	}
}
