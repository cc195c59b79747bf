package collect

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestCollectEC2CapsIDsPerSource gives an EC2NodeClass a status of 20,000 subnets and 20,000
// security groups: each is read up to ec2MaxIDsPerSource IDs, one call, and the rest is a gap
// naming the class and the cap, where it cost 101 DescribeSubnets calls before.
func TestCollectEC2CapsIDsPerSource(t *testing.T) {
	w := newEC2World(t, 2)
	nc := snapshot.EC2NodeClass{Name: "huge"}
	for i := range 20_000 {
		nc.StatusSubnets = append(nc.StatusSubnets, snapshot.SubnetStatus{ID: fmt.Sprintf("subnet-s%016x", i)})
		nc.StatusSecurityGroups = append(nc.StatusSecurityGroups, snapshot.SecurityGroupStatus{ID: fmt.Sprintf("sg-s%016x", i)})
	}
	w.snap.NodeClasses = append(w.snap.NodeClasses, nc)
	start := time.Now()
	(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
	t.Logf("20,000 status subnets and groups: %d DescribeSubnets, %d DescribeSecurityGroups calls, %v",
		w.sim.Count(ec2sim.DescribeSubnets), w.sim.Count(ec2sim.DescribeSecurityGroups), time.Since(start).Round(time.Millisecond))
	for _, action := range []string{ec2sim.DescribeSubnets, ec2sim.DescribeSecurityGroups} {
		if got := w.sim.Count(action); got > 2 {
			t.Errorf("%s calls: got %d, want at most 2", action, got)
		}
	}
	for _, source := range []string{snapshot.SourceDescribeSubnets, snapshot.SourceDescribeSecurityGroups} {
		var found bool
		for _, g := range w.snap.Gaps {
			if g.Source == source && strings.Contains(g.Reason, "EC2NodeClass huge") &&
				strings.Contains(g.Reason, "20,000") {
				found = true
			}
		}
		if !found {
			t.Errorf("gaps %+v: want one for %s naming EC2NodeClass huge and the cap", w.snap.Gaps, source)
		}
	}
	if len(w.snap.Subnets) == 0 || len(w.snap.SecurityGroups) == 0 {
		t.Errorf("got %d subnets, %d groups: the nodes' own must still be read", len(w.snap.Subnets), len(w.snap.SecurityGroups))
	}
}
