package tui

import (
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// TestChecksNotRunShow: checks that did not run for want of a source show in the header's
// counts and, with the sources each needs, under the findings view's groups, as check's text
// output says them; a report where every check ran shows neither.
func TestChecksNotRunShow(t *testing.T) {
	for _, tt := range []struct {
		name   string
		notRun []diagnose.NotRun
		want   []string
	}{
		{name: "two not run", notRun: []diagnose.NotRun{
			{ID: "subnet-ip-exhaustion", Needs: []string{"ec2:DescribeSubnets"}},
			{ID: "security-group-drift", Needs: []string{"ec2:DescribeSecurityGroups"}}},
			want: []string{"2 checks not run",
				"not run: 2 checks, for want of a source each needs: subnet-ip-exhaustion (needs ec2:DescribeSubnets), security-group-drift (needs ec2:DescribeSecurityGroups)"}},
		{name: "every check ran"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := demoLoaded(t)
			l.Report.NotRun = tt.notRun
			m := readyLoaded(t, l, 240, 40)
			header := m.View()
			m = press(t, m, "f")
			findings := m.View()
			for _, want := range tt.want {
				if !strings.Contains(header+findings, want) {
					t.Errorf("neither the nodes view nor the findings view says %q:\n%s\n%s", want, header, findings)
				}
			}
			if len(tt.want) > 0 && !strings.Contains(header, tt.want[0]) {
				t.Errorf("the header lacks %q:\n%s", tt.want[0], header)
			}
			if len(tt.want) == 0 && strings.Contains(header+findings, "not run") {
				t.Errorf("a report where every check ran says not run:\n%s\n%s", header, findings)
			}
		})
	}
}
