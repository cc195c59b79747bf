package blocks

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/fixture"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestBlockMap(t *testing.T) {
	s := fixture.Healthy() // fixture.SubnetA 10.0.1.0/24; the node holds 10.0.1.10 and 10.0.1.200
	s.AddressSubnets = []string{fixture.SubnetA}
	s.Instances[0].ENIs[0].IPv4Prefixes = []string{"10.0.1.64/28"}
	s.Interfaces = []snapshot.InterfaceRecord{
		{ID: "eni-lambda", SubnetID: fixture.SubnetA, Status: "in-use", Description: "AWS Lambda VPC ENI-fn",
			PrivateIPs: []string{"10.0.1.37"}},
		{ID: "eni-0primary" + fixture.InstanceA[len(fixture.InstanceA)-4:], SubnetID: fixture.SubnetA, PrivateIPs: []string{"10.0.1.10"}}, // the node's own, read again
		{ID: "eni-other-subnet", SubnetID: "subnet-other", PrivateIPs: []string{"10.0.1.20"}},
	}
	s.CIDRReservations = []snapshot.CIDRReservation{
		{ID: "scr-1", SubnetID: fixture.SubnetA, CIDR: "10.0.1.128/27", Type: snapshot.ReservationExplicit},
		{ID: "scr-2", SubnetID: fixture.SubnetA, CIDR: "10.0.1.224/28", Type: snapshot.ReservationPrefix},
	}
	x := New(s)
	m, ok := x.Map(&s.Subnets[0])
	if !ok {
		t.Fatal("Map: not ok for a subnet read in full")
	}
	want := []string{
		Reserved, Free, Partly /* .37 */, Free, Full /* .64/28 */, Free, Free, Free,
		Reserved, Reserved /* explicit .128/27 */, Free, Free, Partly /* .200 */, Free,
		PrefixFree, Reserved, /* .240: AWS's broadcast address */
	}
	if diff := cmp.Diff(want, m.States); diff != "" {
		t.Errorf("States (-want +got):\n%s", diff)
	}
	if m.Free != 9 || m.Partly != 2 || m.Full != 1 || m.Reserved != 4 {
		t.Errorf("free %d, partly %d, full %d, reserved %d; want 9, 2, 1, 4", m.Free, m.Partly, m.Full, m.Reserved)
	}
	// .80, .96 and .112 are free; the largest aligned CIDR of free blocks is the /27 at .96.
	if m.LargestFreeRun != 3 || m.LargestFreeCIDR != "10.0.1.96/27" {
		t.Errorf("largest free run %d, CIDR %q; want 3, 10.0.1.96/27", m.LargestFreeRun, m.LargestFreeCIDR)
	}
	if m.Example == nil || m.Example.Address != "10.0.1.37" || m.Example.ENI != "eni-lambda" {
		t.Errorf("example %+v, want 10.0.1.37 on eni-lambda", m.Example)
	}
	// 256 - 5 reserved - 3 addresses - one /28 prefix.
	if m.FreeAddresses != 256-5-3-16 {
		t.Errorf("free addresses %d, want %d", m.FreeAddresses, 256-5-3-16)
	}

	for _, tc := range []struct {
		name string
		edit func(*snapshot.Snapshot)
	}{
		{"subnet not read in full", func(s *snapshot.Snapshot) { s.AddressSubnets = nil }},
		{"IPv6 CIDR", func(s *snapshot.Snapshot) {
			s.AddressSubnets, s.Subnets[0].CIDR = []string{fixture.SubnetA}, "2600:1f14::/64"
		}},
		{"CIDR smaller than a block", func(s *snapshot.Snapshot) {
			s.AddressSubnets, s.Subnets[0].CIDR = []string{fixture.SubnetA}, "10.0.1.0/29"
		}},
		{"CIDR that does not parse", func(s *snapshot.Snapshot) {
			s.AddressSubnets, s.Subnets[0].CIDR = []string{fixture.SubnetA}, "10.0.1.0/33"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fixture.Healthy()
			tc.edit(s)
			x := New(s)
			if _, ok := x.Map(&s.Subnets[0]); ok {
				t.Error("Map ok, want not ok")
			}
		})
	}
}

// TestBlockMapReservationsOutsideTheSubnet: a CIDR reservation must lie within the subnet (a
// reservation is a range of the subnet's own addresses); 0.0.0.0/0, the VPC's CIDR or a
// neighbour's range reserve none of its blocks and are named as ignored.
func TestBlockMapReservationsOutsideTheSubnet(t *testing.T) {
	s := fixture.Healthy()
	s.AddressSubnets = []string{fixture.SubnetA}
	s.Subnets[0].CIDR = "10.0.0.0/19"
	s.Instances[0].ENIs[0].PrivateIPs = nil
	s.Instances[0].ENIs[0].PrimaryIP = ""
	s.Instances[0].PrivateIP = ""
	s.CIDRReservations = []snapshot.CIDRReservation{
		{ID: "scr-0all", SubnetID: fixture.SubnetA, CIDR: "0.0.0.0/0", Type: snapshot.ReservationExplicit},
		{ID: "scr-0vpc", SubnetID: fixture.SubnetA, CIDR: "10.0.0.0/16", Type: snapshot.ReservationPrefix},
		{ID: "scr-0next", SubnetID: fixture.SubnetA, CIDR: "10.0.32.0/28", Type: snapshot.ReservationExplicit},
		{ID: "scr-0own", SubnetID: fixture.SubnetA, CIDR: "10.0.0.16/28", Type: snapshot.ReservationExplicit},
	}
	x := New(s)
	m, ok := x.Map(&s.Subnets[0])
	if !ok {
		t.Fatal("Map: not ok")
	}
	// 512 blocks: AWS's first and last, and the one reservation within the subnet.
	if m.Reserved != 3 || m.Free != 509 || m.FreeAddresses != 8192-5 {
		t.Errorf("reserved %d, free %d, free addresses %d; want 3, 509, %d", m.Reserved, m.Free, m.FreeAddresses, 8192-5)
	}
	want := []string{"scr-0all 0.0.0.0/0", "scr-0vpc 10.0.0.0/16", "scr-0next 10.0.32.0/28"}
	if diff := cmp.Diff(want, m.IgnoredReservations); diff != "" {
		t.Errorf("ignored reservations (-want +got):\n%s", diff)
	}
}
