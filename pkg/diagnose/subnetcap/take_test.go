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
