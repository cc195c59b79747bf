package diagnose

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// describeFirst indexes s and describes its first node by name.
func describeFirst(s *snapshot.Snapshot) NodeReport {
	x := NewIndex(s)
	return Describe(x, x.Nodes[0])
}

func TestDescribeHealthy(t *testing.T) {
	got := describeFirst(healthy())
	want := NodeReport{
		Identity: Identity{
			Node: nodeA, ProviderID: "aws:///us-west-2a/" + instanceA, InstanceID: instanceA, InstanceState: "running",
			InstanceType: "m5.large", Zone: "us-west-2a", ZoneID: "usw2-az1", NodePool: "default", NodeClass: "default",
			NodeClaim: "default-abcde",
		},
		Lifecycle: Lifecycle{State: "running"},
		Platform:  Platform{Compute: "ec2", IPFamily: "ipv4", VPCCNI: true, VPCCNIReason: "aws-node runs here"},
		Addresses: []AddressReport{{Address: "10.0.1.10", InSubnet: ptr(true), IsPrimaryIP: ptr(true)}},
		Subnet: &SubnetReport{
			ID: subnetA, CIDR: "10.0.1.0/24", Zone: "us-west-2a", ZoneID: "usw2-az1", AvailableIPs: ptr[int32](200), Selected: ptr(true),
		},
		SecurityGroups: &SecurityGroups{
			Groups:    []SecurityGroupReport{{ID: sgNodes, Name: "eks-nodes", InNodeClass: ptr(true)}},
			NodeClass: []string{sgNodes},
			Match:     ptr(true),
		},
		ENIs: []ENIReport{{
			ID: "eni-0primarydef0", InterfaceType: "interface", SubnetID: subnetA,
			PrivateIPs: []string{"10.0.1.10", "10.0.1.200"}, SecurityGroups: []string{sgNodes},
		}},
		Capacity: &CapacityReport{
			IPFamily: IPv4, Pods: 29, IPCapacity: 29, DefaultCardENIs: 3, IPv4PerENI: 10, UsableENIs: 3, ENIsAttached: 1,
			Formula: "(3 ENIs - 0) x (10 IPv4 - 1) + 2 = 29",
		},
		EFA:       &EFAReport{},
		Placement: &PlacementReport{},
		Findings:  []Finding{},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Describe mismatch (-want +got):\n%s", diff)
	}
}

func TestDescribeEFAAndPlacement(t *testing.T) {
	s := healthy()
	s.InstanceTypes = append(s.InstanceTypes, snapshot.InstanceType{
		Name: "p5.48xlarge", Hypervisor: "nitro", MaxENIs: 64, IPv4PerENI: 50, EFASupported: true, MaxEFAInterfaces: 32,
		NetworkCards: []snapshot.NetworkCard{{Index: 0, MaxENIs: 2}, {Index: 1, MaxENIs: 2}},
	})
	in := &s.Instances[0]
	in.Type = "p5.48xlarge"
	in.Placement = snapshot.Placement{GroupName: "training", PartitionNumber: 0}
	in.SecurityGroups = append(in.SecurityGroups, snapshot.GroupRef{ID: "sg-0efa", Name: "efa"})
	in.ENIs = append(in.ENIs,
		snapshot.ENI{ID: "eni-0c1", InterfaceType: "efa-only", NetworkCardIndex: 1, DeviceIndex: 0},
		snapshot.ENI{ID: "eni-0c0d1", InterfaceType: "efa-only", NetworkCardIndex: 0, DeviceIndex: 1},
	)
	s.PlacementGroups = []snapshot.PlacementGroup{{ID: "pg-0abc", Name: "training", Strategy: "cluster"}}
	s.NodeClasses[0].PlacementGroupSelector = &snapshot.PlacementGroupSelector{Name: "training"}
	s.NodeClasses[0].NetworkInterfaces = []snapshot.NetworkInterface{
		{InterfaceType: "interface"}, {DeviceIndex: 1, InterfaceType: "efa-only"}, {NetworkCardIndex: 1, InterfaceType: "efa-only"},
	}
	s.Nodes[0].Status.Allocatable[ResourceEFA] = resource.MustParse("2")
	s.Nodes[0].Status.Capacity[corev1.ResourcePods] = resource.MustParse("51")

	got := describeFirst(s)
	if diff := cmp.Diff(&EFAReport{Supported: true, MaxInterfaces: 32, Attached: 2, Allocatable: 2, NodeClassEFAOnly: 2}, got.EFA); diff != "" {
		t.Errorf("EFA mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&PlacementReport{GroupName: "training", GroupID: "pg-0abc", Strategy: "cluster", NodeClassSelects: "name=training"}, got.Placement); diff != "" {
		t.Errorf("placement mismatch (-want +got):\n%s", diff)
	}
	var order []string
	for _, e := range got.ENIs {
		order = append(order, e.ID)
	}
	if diff := cmp.Diff([]string{"eni-0primarydef0", "eni-0c0d1", "eni-0c1"}, order); diff != "" {
		t.Errorf("ENI order mismatch (-want +got):\n%s", diff)
	}
	if got.Capacity == nil || got.Capacity.IPCapacity != 51 || got.Capacity.EFAOnlyOnCard0 != 1 {
		t.Errorf("capacity = %+v, want 51 pod IPs with 1 efa-only on card 0", got.Capacity)
	}
	wantSG := &SecurityGroups{
		Groups: []SecurityGroupReport{
			{ID: "sg-0efa", Name: "efa", InNodeClass: ptr(false)},
			{ID: sgNodes, Name: "eks-nodes", InNodeClass: ptr(true)},
		},
		NodeClass: []string{sgNodes},
		Match:     ptr(false),
	}
	if diff := cmp.Diff(wantSG, got.SecurityGroups); diff != "" {
		t.Errorf("security groups mismatch (-want +got):\n%s", diff)
	}
}

func TestDescribeMissingData(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*snapshot.Snapshot)
		check func(t *testing.T, r NodeReport)
	}{
		{
			name: "no instance leaves instance sections nil",
			edit: edits(func(s *snapshot.Snapshot) { s.Instances = nil }, gap(snapshot.SourceDescribeInstances)),
			check: func(t *testing.T, r NodeReport) {
				if r.Subnet != nil || r.SecurityGroups != nil || r.Placement != nil || len(r.ENIs) != 0 {
					t.Errorf("sections = %+v, want no subnet, security groups, placement or ENIs", r)
				}
				if r.Capacity == nil || r.Capacity.IPCapacity != 29 {
					t.Errorf("capacity = %+v, want 29 from the instance-type label", r.Capacity)
				}
				if diff := cmp.Diff([]AddressReport{{Address: "10.0.1.10"}}, r.Addresses); diff != "" {
					t.Errorf("addresses mismatch (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "no subnet data keeps the subnet ID",
			edit: func(s *snapshot.Snapshot) { s.Subnets = nil },
			check: func(t *testing.T, r NodeReport) {
				if diff := cmp.Diff(&SubnetReport{ID: subnetA, Selected: ptr(true)}, r.Subnet); diff != "" {
					t.Errorf("subnet mismatch (-want +got):\n%s", diff)
				}
				if r.Identity.ZoneID != "usw2-az1" {
					t.Errorf("zone ID = %q, want it from the instance", r.Identity.ZoneID)
				}
			},
		},
		{
			name: "no instance types leaves capacity and EFA nil",
			edit: func(s *snapshot.Snapshot) { s.InstanceTypes = nil },
			check: func(t *testing.T, r NodeReport) {
				if r.Capacity != nil || r.EFA != nil {
					t.Errorf("capacity = %+v, EFA = %+v, want both nil", r.Capacity, r.EFA)
				}
			},
		},
		{
			name: "aws-node gap leaves capacity nil",
			edit: gap(snapshot.SourceAWSNode),
			check: func(t *testing.T, r NodeReport) {
				if r.Capacity != nil {
					t.Errorf("capacity = %+v, want nil", r.Capacity)
				}
			},
		},
		{
			name: "no NodeClass leaves comparisons unknown",
			edit: func(s *snapshot.Snapshot) { s.NodeClasses = nil },
			check: func(t *testing.T, r NodeReport) {
				if r.Subnet.Selected != nil || r.SecurityGroups.Match != nil || r.SecurityGroups.Groups[0].InNodeClass != nil {
					t.Errorf("subnet = %+v, security groups = %+v, want no NodeClass comparison", r.Subnet, r.SecurityGroups)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := healthy()
			tc.edit(s)
			tc.check(t, describeFirst(s))
		})
	}
}

// The report's ENI address lists are the snapshot's own: appending to them, as a printer or
// the TUI might, must not write into the snapshot.
func TestDescribeENIListsLeaveTheSnapshotAlone(t *testing.T) {
	s := healthy()
	eni := &s.Instances[0].ENIs[0]
	eni.PrivateIPs = append(make([]string, 0, 8), eni.PrivateIPs...)
	eni.IPv4Prefixes = append(make([]string, 0, 8), "10.0.1.16/28")
	got := describeFirst(s)
	ips := append(got.ENIs[0].PrivateIPs, "10.0.1.99")
	prefixes := append(got.ENIs[0].IPv4Prefixes, "10.0.1.32/28")
	if len(ips) != 3 || len(prefixes) != 2 {
		t.Fatalf("appended lists %v %v", ips, prefixes)
	}
	if extra := eni.PrivateIPs[:cap(eni.PrivateIPs)][2]; extra != "" {
		t.Errorf("an append to the report's private IPs wrote %q into the snapshot's list", extra)
	}
	if extra := eni.IPv4Prefixes[:cap(eni.IPv4Prefixes)][1]; extra != "" {
		t.Errorf("an append to the report's prefixes wrote %q into the snapshot's list", extra)
	}
}
