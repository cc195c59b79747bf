package collect

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
)

// unaskedGroups is a DescribeSecurityGroups answer with n groups that no request names.
func unaskedGroups(n int) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><DescribeSecurityGroupsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">` +
		`<requestId>r</requestId><securityGroupInfo>`)
	for i := range n {
		fmt.Fprintf(&b, `<item><groupId>sg-u%016x</groupId><groupName>unasked-%d</groupName><vpcId>vpc-1</vpcId>`+
			`<ipPermissions><item><ipProtocol>-1</ipProtocol><ipRanges><item><cidrIp>0.0.0.0/0</cidrIp></item></ipRanges></item></ipPermissions>`+
			`</item>`, i, i)
	}
	b.WriteString(`</securityGroupInfo></DescribeSecurityGroupsResponse>`)
	return b.String()
}

// TestCollectEC2DropsGroupsNobodyAskedFor answers every DescribeSecurityGroups with one page of
// 20,000 groups that no request named: none of them reaches the snapshot. It logs the time and
// bytes allocated by the collection.
func TestCollectEC2DropsGroupsNobodyAskedFor(t *testing.T) {
	w := newEC2World(t, 2)
	w.sim.SetBody(ec2sim.DescribeSecurityGroups, http.StatusOK, "text/xml", unaskedGroups(20_000))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	t.Logf("20,000 unasked groups: %v, %d MB allocated, %d groups kept", took.Round(time.Millisecond),
		(after.TotalAlloc-before.TotalAlloc)>>20, len(w.snap.SecurityGroups))
	if n := len(w.snap.SecurityGroups); n != 0 {
		t.Errorf("security groups kept: got %d, want 0 (none was asked for)", n)
	}
}

// TestCollectEC2EndlessTokensStopWithinWhatWasAsked bends every paginated Describe call of IDs
// to answer NextTokens that never end. When the first page holds every ID asked for, the call
// ends there without a gap; when it does not, the call stops after ec2SparePages pages that
// bring nothing new, not after ec2MaxPages.
func TestCollectEC2EndlessTokensStopWithinWhatWasAsked(t *testing.T) {
	for _, action := range []string{ec2sim.DescribeSubnets, ec2sim.DescribeSecurityGroups, ec2sim.DescribeInstanceTypes} {
		for _, tc := range []struct {
			pageSize, calls, gaps int
		}{{0, 1, 0}, {1, 1 + ec2SparePages, 1}} {
			t.Run(fmt.Sprintf("%s page size %d", action, tc.pageSize), func(t *testing.T) {
				w := newEC2World(t, 2)
				w.sim.SetTokens(action, ec2sim.EndlessTokens)
				if tc.pageSize > 0 {
					w.sim.SetPageSize(tc.pageSize)
				}
				(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
				if got := w.sim.Count(action); got != tc.calls {
					t.Errorf("%s calls: got %d, want %d", action, got, tc.calls)
				}
				if got := len(w.snap.Gaps); got != tc.gaps {
					t.Errorf("gaps %+v: want %d", w.snap.Gaps, tc.gaps)
				}
			})
		}
	}
}
