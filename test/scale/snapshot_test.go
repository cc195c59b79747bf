package scale

import (
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// TestSnapshotHasThePlantedFindings analyses the in-memory snapshot of 500 nodes and of 12,000
// (wide addressing): it must say what a collection of the seeded cluster says, exactly the
// planted findings, no gap, and every address must be one ENI's, in its subnet.
func TestSnapshotHasThePlantedFindings(t *testing.T) {
	for _, n := range []int{500, wideNodes + 2000} {
		s := Snapshot(n, time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC))
		if len(s.Nodes) != n || len(s.NodeClaims) != n || len(s.Instances) != n {
			t.Fatalf("%d nodes: snapshot has %d nodes, %d NodeClaims, %d instances", n, len(s.Nodes), len(s.NodeClaims), len(s.Instances))
		}
		cidr := map[string]netip.Prefix{}
		for _, sn := range s.Subnets {
			cidr[sn.ID] = netip.MustParsePrefix(sn.CIDR)
		}
		owner := map[string]string{}
		for _, in := range s.Instances {
			for _, e := range in.ENIs {
				for _, ip := range e.PrivateIPs {
					if o, dup := owner[ip]; dup {
						t.Fatalf("%d nodes: address %s is on %s and %s", n, ip, o, e.ID)
					}
					owner[ip] = e.ID
					if !cidr[e.SubnetID].Contains(netip.MustParseAddr(ip)) {
						t.Fatalf("%d nodes: address %s of %s is outside its subnet %s %v", n, ip, e.ID, e.SubnetID, cidr[e.SubnetID])
					}
				}
			}
		}
		r := diagnose.Analyze(s, diagnose.Options{})
		got := map[string]int{}
		for _, f := range r.Findings {
			got[f.ID]++
		}
		if diff := cmp.Diff(plantedFindings(), got); diff != "" || len(r.Gaps) != 0 {
			t.Errorf("%d nodes: findings (-planted +got):\n%s\ngaps %v", n, diff, r.Gaps)
		}
		if len(r.Nodes) != n {
			t.Errorf("%d nodes: report has %d nodes", n, len(r.Nodes))
		}
	}
}
