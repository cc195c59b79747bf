package demo_test

import (
	"bytes"
	"net/netip"
	"os"
	"slices"
	"testing"

	"github.com/karpnet/kubectl-karpnet/hack/gendemo/cluster"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestEmbeddedMatchesGenerator fails when the embedded file and the generator drift apart.
func TestEmbeddedMatchesGenerator(t *testing.T) {
	want, err := cluster.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if testutil.Update() {
		if err := os.WriteFile(demo.FileName, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := demo.Bytes(); !bytes.Equal(got, want) {
		t.Errorf("embedded %s (%d bytes) differs from what hack/gendemo writes (%d bytes): run go generate ./pkg/demo or go test ./pkg/demo -update",
			demo.FileName, len(got), len(want))
	}
}

func TestSnapshot(t *testing.T) {
	s, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Taken, cluster.Taken(); !got.Equal(want) {
		t.Errorf("taken: got %v, want %v", got, want)
	}
	if s.Context != "demo" || s.Region != "us-west-2" || s.Cluster != cluster.ClusterARN {
		t.Errorf("identity: got context %q region %q cluster %q", s.Context, s.Region, s.Cluster)
	}
	if got := len(s.Nodes); got < 30 {
		t.Errorf("nodes: got %d, want at least 30", got)
	}
	names := demo.NodeNames()
	if len(names) != len(s.Nodes) || !slices.IsSorted(names) {
		t.Errorf("NodeNames: got %d names (sorted %v), want %d sorted", len(names), slices.IsSorted(names), len(s.Nodes))
	}
	s.Nodes = nil
	again, err := demo.Snapshot()
	if err != nil || len(again.Nodes) == 0 {
		t.Errorf("Snapshot after modifying an earlier result: got %d nodes, %v; want a fresh copy", len(again.Nodes), err)
	}
}

// TestAddresses checks the generator's address plan: every ENI address and prefix lies in its
// subnet and no address is handed out twice.
func TestAddresses(t *testing.T) {
	s, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	cidrs := map[string]netip.Prefix{}
	for _, sn := range s.Subnets {
		cidrs[sn.ID] = netip.MustParsePrefix(sn.CIDR)
	}
	seen := map[netip.Addr]string{}
	claim := func(owner string, a netip.Addr) {
		if prev, ok := seen[a]; ok {
			t.Errorf("%s: address %s is also on %s", owner, a, prev)
		}
		seen[a] = owner
	}
	for _, in := range s.Instances {
		for _, eni := range in.ENIs {
			cidr, ok := cidrs[eni.SubnetID]
			if !ok {
				t.Errorf("%s %s: unknown subnet %s", in.ID, eni.ID, eni.SubnetID)
				continue
			}
			for _, ip := range eni.PrivateIPs {
				a := netip.MustParseAddr(ip)
				if !cidr.Contains(a) {
					t.Errorf("%s %s: address %s outside %s", in.ID, eni.ID, a, cidr)
				}
				claim(eni.ID, a)
			}
			for _, p := range eni.IPv4Prefixes {
				pfx := netip.MustParsePrefix(p)
				if pfx.Bits() != 28 || pfx != pfx.Masked() || !cidr.Overlaps(pfx) || pfx.Bits() < cidr.Bits() {
					t.Errorf("%s %s: prefix %s is not an aligned /28 of %s", in.ID, eni.ID, pfx, cidr)
				}
				for a, i := pfx.Addr(), 0; i < 16; a, i = a.Next(), i+1 {
					claim(eni.ID, a)
				}
			}
			if eni.InterfaceType == "efa-only" && (len(eni.PrivateIPs) > 0 || len(eni.IPv4Prefixes) > 0) {
				t.Errorf("%s %s: an efa-only interface has addresses", in.ID, eni.ID)
			}
		}
		if in.State == "running" && (len(in.ENIs) == 0 || in.ENIs[0].PrimaryIP != in.PrivateIP) {
			t.Errorf("%s: primary ENI does not carry the instance address %s", in.ID, in.PrivateIP)
		}
	}
}

// TestDescribedTypes checks that every instance's type is described, as karpnet collects them.
func TestDescribedTypes(t *testing.T) {
	s, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]snapshot.InstanceType{}
	for _, it := range s.InstanceTypes {
		types[it.Name] = it
	}
	for _, in := range s.Instances {
		it, ok := types[in.Type]
		if !ok {
			t.Errorf("%s: type %s is not described", in.ID, in.Type)
			continue
		}
		perCard := map[int32]int32{}
		for _, eni := range in.ENIs {
			perCard[eni.NetworkCardIndex]++
		}
		for card, n := range perCard {
			if int(card) >= len(it.NetworkCards) || n > it.NetworkCards[card].MaxENIs {
				t.Errorf("%s: %d ENIs on card %d of a %s", in.ID, n, card, in.Type)
			}
		}
	}
}
