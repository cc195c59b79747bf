package maxpods

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/enimaxpods"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/fixture"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// upstreamTypes reads testdata/instance-info.jsonl (nodeadm's table) as instance types with one
// default network card.
func upstreamTypes(t *testing.T) map[string]snapshot.InstanceType {
	t.Helper()
	f, err := os.Open("testdata/instance-info.jsonl")
	if err != nil {
		t.Fatalf("opening instance-info.jsonl: %v", err)
	}
	defer f.Close()
	types := map[string]snapshot.InstanceType{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row struct {
			InstanceType              string `json:"instanceType"`
			DefaultMaxENIs            int32  `json:"defaultMaxENIs"`
			IPv4AddressesPerInterface int32  `json:"ipv4AddressesPerInterface"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("decoding %q: %v", sc.Text(), err)
		}
		types[row.InstanceType] = snapshot.InstanceType{
			Name:         row.InstanceType,
			Hypervisor:   "nitro",
			MaxENIs:      row.DefaultMaxENIs,
			NetworkCards: []snapshot.NetworkCard{{Index: 0, MaxENIs: row.DefaultMaxENIs}},
			IPv4PerENI:   row.IPv4AddressesPerInterface,
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading instance-info.jsonl: %v", err)
	}
	return types
}

// upstreamMaxPods returns the VPC CNI's eni-max-pods.txt table.
func upstreamMaxPods(t *testing.T) map[string]int64 {
	t.Helper()
	pods, err := enimaxpods.Table()
	if err != nil {
		t.Fatal(err)
	}
	return pods
}

// TestIPCapacityMatchesUpstreamTables checks the default formula against every instance type
// that both nodeadm's instance-info.jsonl and the VPC CNI's eni-max-pods.txt list.
func TestIPCapacityMatchesUpstreamTables(t *testing.T) {
	types, pods := upstreamTypes(t), upstreamMaxPods(t)
	compared := 0
	for name, it := range types {
		want, ok := pods[name]
		if !ok {
			continue
		}
		compared++
		if got := IPCapacity(&it, Settings{}, nil, false).IPCapacity; got != want {
			t.Errorf("IPCapacity(%s) = %d, want %d from eni-max-pods.txt", name, got, want)
		}
		if got := ENILimitedPods(&it); got != want {
			t.Errorf("ENILimitedPods(%s) = %d, want %d from eni-max-pods.txt", name, got, want)
		}
	}
	if compared < 1000 {
		t.Fatalf("compared %d instance types, want at least 1000: are the testdata tables intact?", compared)
	}
}

func TestIPCapacity(t *testing.T) {
	types, pods := upstreamTypes(t), upstreamMaxPods(t)
	typ := func(name string) *snapshot.InstanceType {
		it, ok := types[name]
		if !ok {
			t.Fatalf("%s is not in instance-info.jsonl", name)
		}
		return &it
	}
	p5 := typ("p5.48xlarge")
	p5.MaxENIs = 64
	p5.NetworkCards = nil
	for i := range int32(32) {
		p5.NetworkCards = append(p5.NetworkCards, snapshot.NetworkCard{Index: i, MaxENIs: 2})
	}
	xen := typ("m4.large")
	xen.Hypervisor = "xen"
	eni := func(typ string, card, device int32) snapshot.ENI {
		return snapshot.ENI{ID: "eni-x", InterfaceType: typ, NetworkCardIndex: card, DeviceIndex: device}
	}

	tests := []struct {
		name     string
		typ      *snapshot.InstanceType
		cni      Settings
		attached []snapshot.ENI
		trunk    bool // the CNI reserves a slot for the trunk ENI
		want     int64
		formula  string
	}{
		{name: "m5.large", typ: typ("m5.large"), want: pods["m5.large"], formula: "(3 ENIs - 0) x (10 IPv4 - 1) + 2 = 29"},
		{name: "c5.large", typ: typ("c5.large"), want: pods["c5.large"], formula: "(3 ENIs - 0) x (10 IPv4 - 1) + 2 = 29"},
		{name: "t3.medium", typ: typ("t3.medium"), want: pods["t3.medium"], formula: "(3 ENIs - 0) x (6 IPv4 - 1) + 2 = 17"},
		{name: "p5.48xlarge counts the default card only", typ: p5, want: pods["p5.48xlarge"], formula: "(2 ENIs - 0) x (50 IPv4 - 1) + 2 = 100"},
		{
			name: "c6i.2xlarge with custom networking", typ: typ("c6i.2xlarge"), cni: Settings{CustomNetworking: true},
			want: 44, formula: "(4 ENIs - 1 custom networking) x (15 IPv4 - 1) + 2 = 44",
		},
		{
			name: "m5.large with prefix delegation", typ: typ("m5.large"), cni: Settings{PrefixDelegation: true},
			want: 434, formula: "(3 ENIs - 0) x (10 IPv4 - 1) x 16 + 2 = 434",
		},
		{
			name: "prefix delegation needs Nitro", typ: xen, cni: Settings{PrefixDelegation: true},
			want: pods["m4.large"], formula: "(2 ENIs - 0) x (10 IPv4 - 1) + 2 = 20",
		},
		{
			name: "trunk ENI takes one", typ: typ("m5.large"),
			attached: []snapshot.ENI{eni("interface", 0, 0), eni("trunk", 0, 1)},
			want:     20, formula: "(3 ENIs - 1 trunk) x (10 IPv4 - 1) + 2 = 20",
		},
		{
			name: "MAX_ENI caps first", typ: typ("m5.large"), cni: Settings{MaxENI: 2, CustomNetworking: true},
			want: 11, formula: "(2 ENIs (MAX_ENI) - 1 custom networking) x (10 IPv4 - 1) + 2 = 11",
		},
		{
			name: "MAX_ENI above the limit is ignored", typ: typ("m5.large"), cni: Settings{MaxENI: 8},
			want: 29, formula: "(3 ENIs - 0) x (10 IPv4 - 1) + 2 = 29",
		},
		{
			name: "attached efa-only on card 0 takes its slot", typ: p5,
			attached: []snapshot.ENI{eni("interface", 0, 0), eni("efa-only", 0, 1), eni("efa-only", 1, 0)},
			want:     51, formula: "(2 ENIs - 1 efa-only) x (50 IPv4 - 1) + 2 = 51",
		},
		{
			// A class that asks for efa-only interfaces the instance never got is
			// efa-interface-count-mismatch, not a smaller IP capacity.
			name: "efa-only the instance does not have takes nothing", typ: p5,
			attached: []snapshot.ENI{eni("interface", 0, 0)},
			want:     pods["p5.48xlarge"], formula: "(2 ENIs - 0) x (50 IPv4 - 1) + 2 = 100",
		},
		{
			name: "a trunk the CNI reserves before it is attached takes one", typ: typ("m5.large"), trunk: true,
			attached: []snapshot.ENI{eni("interface", 0, 0)},
			want:     20, formula: "(3 ENIs - 1 trunk) x (10 IPv4 - 1) + 2 = 20",
		},
		{
			name: "no usable ENI gives 0", typ: typ("t3.nano"), cni: Settings{CustomNetworking: true},
			attached: []snapshot.ENI{eni("trunk", 0, 1)},
			want:     0, formula: "2 ENIs - 1 custom networking - 1 trunk leaves no ENI for pods = 0",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := IPCapacity(tc.typ, tc.cni, tc.attached, tc.trunk)
			if got.IPCapacity != tc.want {
				t.Errorf("IPCapacity = %d, want %d", got.IPCapacity, tc.want)
			}
			if got.Formula != tc.formula {
				t.Errorf("Formula = %q, want %q", got.Formula, tc.formula)
			}
		})
	}
}

func TestIPCapacityFields(t *testing.T) {
	it := m5Large()
	attached := []snapshot.ENI{
		{InterfaceType: "interface"}, {InterfaceType: "trunk", DeviceIndex: 1}, {InterfaceType: "interface", NetworkCardIndex: 1},
	}
	got := IPCapacity(&it, Settings{CustomNetworking: true, PrefixDelegation: true}, attached, false)
	want := Capacity{
		IPCapacity: 146, DefaultCardENIs: 3, IPv4PerENI: 10, PrefixDelegation: true, CustomNetworking: true,
		TrunkENI: true, UsableENIs: 1, ENIsAttached: 2,
		Formula: "(3 ENIs - 1 custom networking - 1 trunk) x (10 IPv4 - 1) x 16 + 2 = 146",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("IPCapacity report mismatch (-want +got):\n%s", diff)
	}
}

func TestSettingsFrom(t *testing.T) {
	tests := []struct {
		name string
		node *snapshot.AWSNode
		want Settings
	}{
		{name: "absent DaemonSet gives defaults", node: nil, want: Settings{}},
		{name: "empty env gives defaults", node: &snapshot.AWSNode{}, want: Settings{}},
		{
			name: "all set",
			node: &snapshot.AWSNode{Env: map[string]string{snapshot.EnvCustomNetwork: "true", snapshot.EnvPrefixDelegation: "True", snapshot.EnvMaxENI: "2",
				snapshot.EnvPodENI: "true"}},
			want: Settings{CustomNetworking: true, PrefixDelegation: true, MaxENI: 2, PodENI: true},
		},
		{
			name: "unparsable values are ignored",
			node: &snapshot.AWSNode{Env: map[string]string{snapshot.EnvCustomNetwork: "yes", snapshot.EnvMaxENI: "-1"}},
			want: Settings{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, SettingsFrom(tc.node)); diff != "" {
				t.Errorf("SettingsFrom mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// m5Large returns the m5.large limits: 3 ENIs on one card, 10 IPv4 per ENI, Nitro.
func m5Large() snapshot.InstanceType { return fixture.M5Large() }
