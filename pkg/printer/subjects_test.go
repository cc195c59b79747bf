package printer

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostiletext"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/sheet"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// partitionGroupSheet is a partition placement group of three partitions holding two nodes in
// partitions 1 and 3 and a NodeClaim without a Node whose partition is not known.
func partitionGroupSheet() sheet.PlacementGroupSheet {
	return sheet.PlacementGroupSheet{
		Kind: sheet.PlacementGroupSheetKind, APIVersion: sheet.SheetAPIVersion,
		ID: "pg-0part", Name: "train-part", Strategy: "partition", PartitionCount: 3, State: "available",
		Members: []sheet.Member{
			{Kind: "node", Name: "ip-10-0-1-1.ec2.internal", Status: "ok", InstanceID: "i-0a", InstanceState: "running", Zone: "us-east-1a", SubnetID: "subnet-0a", PrivateIP: "10.0.1.1", Partition: 1},
			{Kind: "node", Name: "ip-10-0-1-2.ec2.internal", Status: "warning", InstanceID: "i-0b", InstanceState: "running", Zone: "us-east-1a", SubnetID: "subnet-0a", PrivateIP: "10.0.1.2", Partition: 3},
			{Kind: "nodeclaim", Name: "train-x1", Status: diagnose.ClaimRegistering, InstanceID: "i-0c", InstanceState: "pending", Zone: "us-east-1a"},
		},
		ZonesFull: []string{},
		Classes:   []string{"ec2nodeclass/train"},
		Findings:  []diagnose.Finding{},
	}
}

// spreadGroupSheet is a spread placement group with seven running instances in us-east-1a,
// which is full, and one in us-east-1b.
func spreadGroupSheet() sheet.PlacementGroupSheet {
	sh := sheet.PlacementGroupSheet{
		Kind: sheet.PlacementGroupSheetKind, APIVersion: sheet.SheetAPIVersion,
		ID: "pg-0spread", Name: "web-spread", Strategy: "spread", SpreadLevel: "rack", State: "available",
		ZonesFull: []string{"us-east-1a"}, Classes: []string{},
		Findings: []diagnose.Finding{{ID: "planted-spread", Severity: diagnose.Warning, Resource: "placementgroup/web-spread",
			Message: "the group is full in us-east-1a", Remedy: "select a partition group"}},
	}
	for i, z := range []string{"us-east-1a", "us-east-1a", "us-east-1a", "us-east-1a", "us-east-1a", "us-east-1a", "us-east-1a", "us-east-1b"} {
		sh.Members = append(sh.Members, sheet.Member{Kind: "nodeclaim", Name: "web-" + string(rune('a'+i)), Status: diagnose.ClaimLaunching,
			InstanceID: "i-0" + string(rune('a'+i)), InstanceState: "running", Zone: z})
	}
	return sh
}

// classSheetFixture is an EC2NodeClass with EFA interfaces, a placement-group selector whose
// group was not read, a numeric maxPods and no public IPs.
func classSheetFixture() sheet.NodeClassSheet {
	maxPods, public, prefixes := int32(58), false, int32(2)
	return sheet.NodeClassSheet{
		Kind: "EC2NodeClass", APIVersion: sheet.SheetAPIVersion, Name: "train", Resource: "ec2nodeclass/train",
		SubnetSelectorTerms:        []snapshot.SelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "c", "tier": "private"}}, {ID: "subnet-0a"}},
		SecurityGroupSelectorTerms: []snapshot.SelectorTerm{{Name: "nodes"}},
		StatusSubnets:              []snapshot.SubnetStatus{{ID: "subnet-0a", Zone: "us-east-1a", ZoneID: "use1-az1"}},
		StatusSecurityGroups:       []snapshot.SecurityGroupStatus{{ID: "sg-0a", Name: "nodes"}},
		PlacementGroupSelector:     &snapshot.PlacementGroupSelector{Name: "gone"},
		NetworkInterfaces: []snapshot.NetworkInterface{{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
			{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "efa-only", SecondaryIPv4PrefixCount: &prefixes}},
		Kubelet: &snapshot.Kubelet{MaxPods: &maxPods}, AssociatePublicIPAddress: &public,
		Conditions: []snapshot.Condition{{Type: "Ready", Status: "True", Reason: "Ready"}},
		NodePools:  []string{"train"}, Members: []sheet.Member{}, Findings: []diagnose.Finding{},
	}
}

func TestSubjectSheetGoldens(t *testing.T) {
	tests := []struct {
		golden string
		print  func(*bytes.Buffer) error
	}{
		{golden: "describe-placementgroup-partition.table.golden", print: func(b *bytes.Buffer) error {
			return PrintPlacementGroups(b, []sheet.PlacementGroupSheet{partitionGroupSheet()}, Table, plainStyles())
		}},
		{golden: "describe-placementgroup-spread.table.golden", print: func(b *bytes.Buffer) error {
			return PrintPlacementGroups(b, []sheet.PlacementGroupSheet{spreadGroupSheet()}, Table, plainStyles())
		}},
		{golden: "describe-nodeclass-interfaces.table.golden", print: func(b *bytes.Buffer) error {
			return PrintNodeClasses(b, []sheet.NodeClassSheet{classSheetFixture()}, Table, plainStyles())
		}},
		{golden: "describe-placementgroup-list.yaml.golden", print: func(b *bytes.Buffer) error {
			return PrintPlacementGroups(b, []sheet.PlacementGroupSheet{partitionGroupSheet(), spreadGroupSheet()}, YAML, nil)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tt.print(&buf); err != nil {
				t.Fatalf("printing: %v", err)
			}
			testutil.Assert(t, filepath.Join("testdata", tt.golden), buf.String())
		})
	}
}

func TestFreeIPs(t *testing.T) {
	tests := []struct {
		free   int32
		usable int64
		want   string
	}{
		{free: 200, usable: 251, want: "200 of 251 usable (79% free) ▕█████░░░░░░░░░░░░░░░▏"},
		{free: 12, usable: 16379, want: "12 of 16379 usable (<1% free) ▕████████████████████▏"},
		{free: 0, usable: 11, want: "0 of 11 usable (0% free) ▕████████████████████▏"},
		{free: 11, usable: 11, want: "11 of 11 usable (100% free) ▕░░░░░░░░░░░░░░░░░░░░▏"},
		{free: 30, usable: 0, want: "30 (the CIDR's size is not known)"},
	}
	for _, tt := range tests {
		if got := freeIPs(tt.free, tt.usable); got != tt.want {
			t.Errorf("freeIPs(%d, %d): got %q, want %q", tt.free, tt.usable, got, tt.want)
		}
	}
}

// TestSubjectSheetsEscapeAndFit poisons every string of each kind's sheet and renders it at
// the narrowest width: no raw control reaches the output and every line fits.
func TestSubjectSheetsEscapeAndFit(t *testing.T) {
	sub := sheet.SubnetSheet{ID: "subnet-0a", CIDR: "10.0.0.0/24", Zone: "us-east-1a", AvailableIPs: 9, UsableIPs: 251,
		SelectedBy: []sheet.SubnetSelector{{Kind: "ENIConfig", Name: "us-east-1a", Via: "spec.subnet"}},
		Members:    partitionGroupSheet().Members, Findings: spreadGroupSheet().Findings,
		ENIs: []sheet.SubnetENI{{ID: "eni-0a", Node: "ip-10-0-1-1.ec2.internal", InterfaceType: "interface", DeviceIndex: 1, PrivateIPs: 1}}}
	class := classSheetFixture()
	class.Kind, class.PodSubnetSelectorTerms, class.PodSubnets = "NodeClass", []snapshot.SelectorTerm{{ID: "subnet-0p"}}, []string{"subnet-0p"}
	pool := sheet.NodePoolSheet{Name: "train", NodeClassRef: snapshot.NodeClassRef{Name: "train"}, NodeClassKind: "EC2NodeClass", NodeClassFound: true,
		Requirements: []snapshot.Requirement{{Key: "topology.kubernetes.io/zone", Operator: "In", Values: []string{"us-east-1a"}}},
		ClassZones:   []string{"us-east-1a"}, Conditions: []snapshot.Condition{{Type: "NodeRegistrationHealthy", Status: "False", Message: "m"}},
		Members: partitionGroupSheet().Members, Findings: spreadGroupSheet().Findings}
	pool.Zones, pool.ZonesWithoutSubnet = &pool.Requirements[0], []string{"us-east-1b"}
	const cols = minSheetWidth
	outs := map[string]string{
		"subnet":          SubnetSheet(hostiletext.Poison(sub), cols, plainStyles()),
		"nodeclass":       NodeClassSheet(hostiletext.Poison(class), cols, plainStyles()),
		"nodepool":        NodePoolSheet(hostiletext.Poison(pool), cols, plainStyles()),
		"partition group": PlacementGroupSheet(hostiletext.Poison(partitionGroupSheet()), cols, plainStyles()),
		"spread group":    PlacementGroupSheet(hostiletext.Poison(spreadGroupSheet()), cols, plainStyles()),
	}
	for kind, out := range outs {
		if bad := hostiletext.RawControls(out, false); len(bad) > 0 {
			t.Errorf("%s sheet: raw controls reach the output: %q", kind, bad)
		}
		if !strings.Contains(out, `\x1b]0;pwned`) {
			t.Errorf("%s sheet: want the poisoned strings shown escaped, got\n%s", kind, out)
		}
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if w := width(l); w > minSheetWidth && !isCommandLine(l) {
				t.Errorf("%s sheet: line of %d columns, want at most %d: %q", kind, w, minSheetWidth, l)
			}
		}
	}
}

// TestSubjectSheetsCutLongStrings: a 1 MiB finding message shows cut in a sheet's text, as in
// every other text output, and whole in JSON.
func TestSubjectSheetsCutLongStrings(t *testing.T) {
	sh := partitionGroupSheet()
	sh.Findings = []diagnose.Finding{{ID: "long", Severity: diagnose.Info, Resource: "placementgroup/train-part", Message: strings.Repeat("x", 1<<20)}}
	out := PlacementGroupSheet(sh, 0, plainStyles())
	if len(out) > 16<<10 || !strings.Contains(out, "more bytes cut)") {
		t.Errorf("text: got %d bytes, want the message cut to a few KiB with a note", len(out))
	}
	var buf bytes.Buffer
	if err := PrintPlacementGroups(&buf, []sheet.PlacementGroupSheet{sh}, JSON, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), strings.Repeat("x", 1<<20)) {
		t.Error("JSON: want the message whole")
	}
}
