package collect

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestCollectEC2ReadsTheVPCsDNS(t *testing.T) {
	w := newEC2World(t, 3)
	off := false
	w.sim.AddVPCs(snapshot.VPC{ID: "vpc-1", DHCPOptionsID: "dopt-corp", DNSHostnames: &off})
	w.sim.AddDHCPOptions(snapshot.DHCPOptions{ID: "dopt-corp", DomainNameServers: []string{"10.0.0.53", "10.1.0.53"}},
		snapshot.DHCPOptions{ID: "dopt-other", DomainNameServers: []string{snapshot.AmazonProvidedDNS}})
	(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
	if len(w.snap.Gaps) != 0 {
		t.Fatalf("got gaps %+v, want none", w.snap.Gaps)
	}
	on := true
	want := []snapshot.VPC{{ID: "vpc-1", DHCPOptionsID: "dopt-corp", DNSSupport: &on, DNSHostnames: &off}}
	if diff := cmp.Diff(want, w.snap.VPCs); diff != "" {
		t.Errorf("VPCs (-want +got):\n%s", diff)
	}
	wantSets := []snapshot.DHCPOptions{{ID: "dopt-corp", DomainNameServers: []string{"10.0.0.53", "10.1.0.53"}}}
	if diff := cmp.Diff(wantSets, w.snap.DHCPOptions); diff != "" {
		t.Errorf("DHCP options (-want +got):\n%s", diff)
	}
	// One DescribeVpcs and one DescribeDhcpOptions for the VPC, one DescribeVpcAttribute per attribute.
	for action, n := range map[string]int{ec2sim.DescribeVpcs: 1, ec2sim.DescribeDhcpOptions: 1, ec2sim.DescribeVpcAttribute: 2} {
		if got := w.sim.Count(action); got != n {
			t.Errorf("%s: %d requests, want %d", action, got, n)
		}
	}
}

func TestCollectEC2VPCAttributesDeniedAreAGap(t *testing.T) {
	w := newEC2World(t, 3)
	w.sim.Fail(ec2sim.DescribeVpcAttribute, "UnauthorizedOperation", 100)
	(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
	if len(w.snap.Gaps) != 1 || w.snap.Gaps[0].Source != snapshot.SourceVPCAttributes ||
		w.snap.Gaps[0].Remedy != "allow ec2:DescribeVpcAttribute to the caller" {
		t.Fatalf("gaps %+v, want one of %s allowing ec2:DescribeVpcAttribute", w.snap.Gaps, snapshot.SourceVPCAttributes)
	}
	// The VPC's DHCP options set is read; its attributes are unknown, not off.
	want := []snapshot.VPC{{ID: "vpc-1", DHCPOptionsID: snapshot.DefaultDHCPOptions}}
	if diff := cmp.Diff(want, w.snap.VPCs); diff != "" {
		t.Errorf("VPCs (-want +got):\n%s", diff)
	}
}
