package maxpods

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// motoTypes returns the embedded table (instance-types.jsonl): the DescribeInstanceTypes
// limits moto serves for every type that eni-max-pods.txt lists.
func motoTypes(t *testing.T) map[string]snapshot.InstanceType {
	t.Helper()
	types, err := OfflineTypes()
	if err != nil {
		t.Fatal(err)
	}
	return types
}

// TestMaxPodsMatchesENIMaxPodsFile checks the plain secondary-IP value, and Karpenter's value
// without reserved ENIs, against eni-max-pods.txt for every type moto's DescribeInstanceTypes
// data knows, multi-card types such as p5.48xlarge included.
func TestMaxPodsMatchesENIMaxPodsFile(t *testing.T) {
	types, pods := motoTypes(t), upstreamMaxPods(t)
	compared := 0
	for name, it := range types {
		want, ok := pods[name]
		if !ok {
			t.Errorf("%s is in instance-types.jsonl but not in eni-max-pods.txt", name)
			continue
		}
		compared++
		got := For(&it, Options{})
		if got.SecondaryIP != want {
			t.Errorf("For(%s).SecondaryIP = %d, want %d from eni-max-pods.txt", name, got.SecondaryIP, want)
		}
		if got.Karpenter != want {
			t.Errorf("For(%s).Karpenter = %d, want %d from eni-max-pods.txt", name, got.Karpenter, want)
		}
	}
	if compared != 1263 {
		t.Errorf("compared %d instance types, want 1263: is instance-types.jsonl intact?", compared)
	}
}

func TestFor(t *testing.T) {
	types := motoTypes(t)
	typ := func(name string) *snapshot.InstanceType {
		it, ok := types[name]
		if !ok {
			t.Fatalf("%s is not in instance-types.jsonl", name)
		}
		return &it
	}
	n := func(v int64) *int64 { return &v }
	m5 := Row{InstanceType: "m5.large", ENIs: 3, IPv4PerENI: 10, VCPUs: 2, Nitro: true}
	with := func(m Row, secondary int64, pd *int64, recommended, karpenter int64) Row {
		m.SecondaryIP, m.PrefixDelegation, m.Recommended, m.Karpenter = secondary, pd, recommended, karpenter
		return m
	}
	tests := []struct {
		name string
		typ  *snapshot.InstanceType
		opts Options
		want Row
	}{
		{"defaults cap prefixes at 110", typ("m5.large"), Options{}, with(m5, 29, n(110), 29, 29)},
		{"prefix delegation recommends the prefix value", typ("m5.large"), Options{PrefixDelegation: true},
			with(m5, 29, n(110), 110, 29)},
		{"max allowed leaves prefixes uncapped", typ("m5.large"), Options{PrefixDelegation: true, MaxAllowed: true},
			with(m5, 29, n(3*9*16+2), 434, 29)},
		{"custom networking takes an ENI from the CNI, not from Karpenter", typ("m5.large"), Options{CustomNetworking: true},
			with(m5, 20, n(110), 20, 29)},
		{"pod ENI takes the trunk's ENI", typ("m5.large"), Options{PodENI: true, MaxAllowed: true},
			with(m5, 20, n(2*9*16+2), 20, 29)},
		{"custom networking and pod ENI take two", typ("m5.large"), Options{CustomNetworking: true, PodENI: true},
			with(m5, 11, n(110), 11, 29)},
		{"reserved ENIs lower only Karpenter's value", typ("m5.large"), Options{ReservedENIs: 1}, with(m5, 29, n(110), 29, 20)},
		{"reserving every ENI leaves 0", typ("m5.large"), Options{ReservedENIs: 5}, with(m5, 29, n(110), 29, 0)},
		{"efa-only on card 0 lowers both", typ("m5.large"), Options{EFAOnly: 1}, with(m5, 20, n(110), 20, 20)},
		{"multi-card type counts the default card only", typ("p5.48xlarge"), Options{PrefixDelegation: true},
			Row{InstanceType: "p5.48xlarge", ENIs: 2, IPv4PerENI: 50, VCPUs: 192, Nitro: true,
				SecondaryIP: 100, PrefixDelegation: n(250), Recommended: 250, Karpenter: 100}},
		{"large type caps at 250", typ("c5.24xlarge"), Options{},
			Row{InstanceType: "c5.24xlarge", ENIs: 15, IPv4PerENI: 50, VCPUs: 96, Nitro: true,
				SecondaryIP: 737, PrefixDelegation: n(250), Recommended: 250, Karpenter: 737}},
		{"bare metal delegates prefixes", typ("c5.metal"), Options{PrefixDelegation: true, MaxAllowed: true},
			Row{InstanceType: "c5.metal", ENIs: 15, IPv4PerENI: 50, VCPUs: 96, Nitro: true, BareMetal: true,
				SecondaryIP: 737, PrefixDelegation: n(15*49*16 + 2), Recommended: 15*49*16 + 2, Karpenter: 737}},
		{"Xen type has no prefix value", typ("m4.large"), Options{PrefixDelegation: true},
			Row{InstanceType: "m4.large", ENIs: 2, IPv4PerENI: 10, VCPUs: 2, SecondaryIP: 20, Recommended: 20, Karpenter: 20}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := For(tc.typ, tc.opts)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("For(%s, %+v) mismatch (-want +got):\n%s", tc.typ.Name, tc.opts, diff)
			}
		})
	}
}

func TestCap(t *testing.T) {
	for _, tc := range []struct {
		vcpus int32
		want  int64
	}{{2, 110}, {30, 110}, {32, 250}, {192, 250}} {
		if got := Cap(tc.vcpus); got != tc.want {
			t.Errorf("Cap(%d) = %d, want %d", tc.vcpus, got, tc.want)
		}
	}
}
