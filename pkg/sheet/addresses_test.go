package sheet

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/fixture"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestSubnetAddressesAddUpToTheCIDR(t *testing.T) {
	s := fixture.Healthy() // one node in fixture.SubnetA (10.0.1.0/24, 200 free) with 2 IPs on its primary ENI
	s.Instances[0].ENIs = append(s.Instances[0].ENIs,
		snapshot.ENI{ID: "eni-0pods", DeviceIndex: 1, SubnetID: fixture.SubnetA, PrivateIPs: []string{"10.0.1.30"},
			IPv4Prefixes: []string{"10.0.1.48/28", "10.0.1.64/28"}},
		snapshot.ENI{ID: "eni-0elsewhere", DeviceIndex: 2, SubnetID: "subnet-0other", PrivateIPs: []string{"100.64.0.9"}})
	x := diagnose.NewIndex(s)
	got := subnetAddresses(x, x.Subnets[fixture.SubnetA])
	want := &SubnetAddresses{Size: 256, Parts: []AddressPart{
		{What: AddressesReserved, Addresses: 5},
		{What: AddressesFree, Addresses: 200},
		{What: AddressesNodePrimaryIPs, Addresses: 2, Interfaces: 1},
		{What: AddressesNodeOtherIPs, Addresses: 1, Interfaces: 1},
		{What: AddressesNodeOtherPrefixes, Addresses: 32, Interfaces: 1},
		{What: AddressesNotRead, Addresses: 256 - 5 - 200 - 2 - 1 - 32},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("addresses mismatch (-want +got):\n%s", diff)
	}
	var sum int64
	for _, p := range got.Parts {
		sum += p.Addresses
	}
	if sum != got.Size {
		t.Errorf("parts add up to %d, want the CIDR's %d", sum, got.Size)
	}

	// More counted than the CIDR holds leaves a negative rest, so the parts still add up.
	x.Subnets[fixture.SubnetA].AvailableIPs = 251
	got = subnetAddresses(x, x.Subnets[fixture.SubnetA])
	if rest := got.Parts[len(got.Parts)-1]; rest.What != AddressesNotRead || rest.Addresses != 256-5-251-2-1-32 {
		t.Errorf("rest = %+v, want %d not read", rest, 256-5-251-2-1-32)
	}

	// An IPv6-only or unparsable CIDR is not accounted.
	x.Subnets[fixture.SubnetA].CIDR = ""
	if got := subnetAddresses(x, x.Subnets[fixture.SubnetA]); got != nil {
		t.Errorf("no CIDR: got %+v, want nil", got)
	}
}
