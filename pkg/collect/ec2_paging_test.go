package collect

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestEC2PagesEnd(t *testing.T) {
	for _, tc := range []struct {
		name      string
		token     func(call int) *string
		wantCalls int
		wantErr   *ec2PagingError
	}{
		{"tokens that end", func(n int) *string { return []*string{aws.String("a"), aws.String("b"), nil}[n] }, 3, nil},
		{"an empty token ends", func(int) *string { return aws.String("") }, 1, nil},
		{"the same token again", func(int) *string { return aws.String("a") }, 2,
			&ec2PagingError{action: "DescribeSubnets", pages: 2, repeated: true}},
		{"tokens that cycle", func(n int) *string { return aws.String([]string{"a", "b"}[n%2]) }, 3,
			&ec2PagingError{action: "DescribeSubnets", pages: 3, repeated: true}},
		{"tokens that never end", func(n int) *string { return aws.String(fmt.Sprintf("token-%d", n)) }, ec2MaxPages,
			&ec2PagingError{action: "DescribeSubnets", pages: ec2MaxPages}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			err := ec2Pages("DescribeSubnets", func(token *string) (*string, error) {
				if len(got) > ec2MaxPages+10 {
					t.Fatal("the call goes on past the page limit")
				}
				got = append(got, aws.ToString(token))
				return tc.token(len(got) - 1), nil
			})
			if len(got) != tc.wantCalls {
				t.Errorf("pages asked for: got %d, want %d", len(got), tc.wantCalls)
			}
			var perr *ec2PagingError
			if errors.As(err, &perr) != (tc.wantErr != nil) || (perr != nil && *perr != *tc.wantErr) {
				t.Errorf("error: got %v, want %v", err, tc.wantErr)
			}
		})
	}
}

// TestCollectEC2PagesThatDoNotEnd runs collection against an EC2 whose NextTokens cycle or never
// end on each paginated action, one object a page: every call stops at a token seen again, at
// ec2MaxPages for DescribeInstances or after ec2SparePages pages in a row that bring nothing new
// for the others, and the action becomes a gap.
func TestCollectEC2PagesThatDoNotEnd(t *testing.T) {
	for _, action := range []string{ec2sim.DescribeInstances, ec2sim.DescribeSubnets, ec2sim.DescribeSecurityGroups,
		ec2sim.DescribeInstanceTypes} {
		endless := 1 + ec2SparePages
		reason := fmt.Sprintf("%s did not end: %d pages in a row brought nothing asked for, after %d pages", action,
			ec2SparePages, endless)
		if action == ec2sim.DescribeInstances {
			endless = ec2MaxPages
			reason = action + " did not end: still more after 20 pages, the most karpnet reads for one call"
		}
		for _, tc := range []struct {
			tokens ec2sim.Tokens
			calls  int
			reason string
		}{
			{ec2sim.CycleTokens, 3, action + " did not end: page 3 came back with a NextToken already followed"},
			{ec2sim.EndlessTokens, endless, reason},
		} {
			t.Run(fmt.Sprintf("%s %d", action, tc.tokens), func(t *testing.T) {
				w := newEC2World(t, 2)
				w.sim.SetPageSize(1)
				w.sim.SetTokens(action, tc.tokens)
				(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
				if got := w.sim.Count(action); got != tc.calls {
					t.Errorf("%s calls: got %d, want %d", action, got, tc.calls)
				}
				var gap *snapshot.Gap
				for i := range w.snap.Gaps {
					if w.snap.Gaps[i].Source == "ec2:"+action {
						gap = &w.snap.Gaps[i]
					}
				}
				if gap == nil || gap.Reason != tc.reason {
					t.Fatalf("gaps %+v: want one for ec2:%s with reason %q", w.snap.Gaps, action, tc.reason)
				}
				if len(w.snap.Gaps) != 1 {
					t.Errorf("gaps %+v: want only the one of %s", w.snap.Gaps, action)
				}
			})
		}
	}
}
