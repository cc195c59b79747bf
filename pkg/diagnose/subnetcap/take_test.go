package subnetcap

import (
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestPrimaryWarmCountsTheFurtherENIs: with WARM_ENI_TARGET above 1 a new node takes its
// primary ENI's secondary IPs and each further warm ENI in full, and the text counts them.
func TestPrimaryWarmCountsTheFurtherENIs(t *testing.T) {
	typ := &snapshot.InstanceType{Name: "m5.large", MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro"}
	for _, tc := range []struct {
		target string
		take   int64
		text   string
	}{
		{"1", 9, "the primary ENI's 9 secondary IPs)"},
		{"2", 19, "the primary ENI's 9 secondary IPs and 1 more ENI of 10)"},
		{"3", 29, "the primary ENI's 9 secondary IPs and 2 more ENIs of 10)"},
	} {
		a := &snapshot.AWSNode{Env: map[string]string{snapshot.EnvWarmENITarget: tc.target}}
		take, text := WarmOf(a).PrimaryWarm(false, typ)
		if take != tc.take || !strings.HasSuffix(text, tc.text) {
			t.Errorf("WARM_ENI_TARGET=%s: got %d, %q; want %d and a text ending %q", tc.target, take, text, tc.take, tc.text)
		}
	}
}

// TestLaunchTake: a node takes its launch, and its primary ENI's warm addresses only when
// aws-node gives its pods addresses of its own subnet.
func TestLaunchTake(t *testing.T) {
	typ := &snapshot.InstanceType{Name: "m5.large", MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro"}
	cni := CNI{Warm: WarmOf(&snapshot.AWSNode{})}
	for _, tc := range []struct {
		name string
		cni  CNI
		node Node
		take int64
		text string
	}{
		{"warm primary ENI", cni, Node{Type: typ, VPCCNI: true}, 10,
			"1 primary IP + 9 warm addresses (WARM_ENI_TARGET=1: the primary ENI's 9 secondary IPs) of this m5.large"},
		{"IPv6", cni, Node{Type: typ, VPCCNI: true, IPv6: true}, 1, "1 primary IP; IPv6 pods take no IPv4 address"},
		{"no aws-node", cni, Node{Type: typ}, 1, "1 primary IP"},
		{"custom networking", CNI{Warm: cni.Warm, CustomNetworking: true}, Node{Type: typ, VPCCNI: true}, 1,
			"1 primary IP; its pods take ENIConfig subnet addresses"},
		{"own subnet excluded", cni, Node{Type: typ, VPCCNI: true, PrimaryExcluded: true}, 1,
			"1 primary IP; its subnet is tagged kubernetes.io/role/cni=0, so pods take discovered subnets' addresses"},
	} {
		if take, text := tc.cni.LaunchTake(tc.node); take != tc.take || text != tc.text {
			t.Errorf("%s: got %d, %q; want %d, %q", tc.name, take, text, tc.take, tc.text)
		}
	}
}
