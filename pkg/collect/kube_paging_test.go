package collect

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostile"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestKubePaginateEnds(t *testing.T) {
	endless := func(n int) string { return fmt.Sprintf("token-%d", n) }
	for _, tc := range []struct {
		name      string
		token     func(call int) string
		wantCalls int
		wantErr   *kubePagingError
	}{
		{"tokens that end", func(n int) string { return []string{"a", "b", ""}[n] }, 3, nil},
		{"one page", func(int) string { return "" }, 1, nil},
		{"the same token again", func(int) string { return "a" }, 2, &kubePagingError{pages: 2, repeated: true}},
		{"tokens that cycle", func(n int) string { return []string{"a", "b"}[n%2] }, 3, &kubePagingError{pages: 3, repeated: true}},
		{"tokens that never end", endless, kubeMaxPages, &kubePagingError{pages: kubeMaxPages}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var continues []string
			err := kubePaginate(metav1.ListOptions{Limit: 500, ResourceVersion: "0"}, func(opts metav1.ListOptions) (string, error) {
				if len(continues) > kubeMaxPages+10 {
					t.Fatal("the list goes on past the page limit")
				}
				continues = append(continues, opts.Continue)
				return tc.token(len(continues) - 1), nil
			})
			if len(continues) != tc.wantCalls {
				t.Errorf("pages asked for: got %d, want %d", len(continues), tc.wantCalls)
			}
			var got *kubePagingError
			if errors.As(err, &got) != (tc.wantErr != nil) || (got != nil && *got != *tc.wantErr) {
				t.Errorf("error: got %v, want %v", err, tc.wantErr)
			}
		})
	}
}

// TestCollectKubePagesThatDoNotEnd reads lists whose continue tokens cycle or never end from a
// real client of an API server: collection ends with a gap naming the list, keeps what was
// read, and sends a bounded number of requests.
func TestCollectKubePagesThatDoNotEnd(t *testing.T) {
	all := []string{"ip-10-0-1-10.us-west-2.compute.internal", "ip-10-0-2-20.us-west-2.compute.internal", "ip-10-0-3-30.us-west-2.compute.internal"}
	for _, tc := range []struct {
		name       string
		path       string
		tokens     hostile.Tokens
		source     string
		wantReason string
		maxLists   int
	}{
		// The node list is asked for once more first, for one node: how many there are.
		{"nodes cycle", "/api/v1/nodes", hostile.CycleTokens, snapshot.SourceNodes,
			"the list did not end: page 3 came back with a continue token already followed", 3 + 1},
		{"nodes never end", "/api/v1/nodes", hostile.EndlessTokens, snapshot.SourceNodes,
			"the list did not end: still more after 1000 pages, the most karpnet reads", kubeMaxPages + 1},
		{"nodeclaims cycle", "/apis/karpenter.sh/v1/nodeclaims", hostile.CycleTokens, snapshot.SourceNodeClaims,
			"the list did not end: page 3 came back with a continue token already followed", 3},
		{"events never end", "/api/v1/events", hostile.EndlessTokens, snapshot.SourceEvents,
			"the list did not end: still more after 1000 pages, the most karpnet reads", kubeMaxPages},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := kubeHostile(t)
			k.Page(tc.path, tc.tokens)
			c := kubeHostileCollector(t, k, 0, 1)
			start := time.Now()
			s, err := kubeCollect(t, c, Scope{})
			if err != nil {
				t.Fatalf("collectKube: got error %v, want a gap", err)
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("collection took %s, want it bounded by the page limit", d)
			}
			i := slices.IndexFunc(s.Gaps, func(g snapshot.Gap) bool { return g.Source == tc.source })
			if i < 0 {
				t.Fatalf("gaps %+v: want one for %s", s.Gaps, tc.source)
			}
			if got := s.Gaps[i].Reason; got != tc.wantReason {
				t.Errorf("gap reason: got %q, want %q", got, tc.wantReason)
			}
			lists := 0
			for _, r := range k.Requests() {
				if r.Path == tc.path {
					lists++
				}
			}
			if lists != tc.maxLists {
				t.Errorf("requests of %s: got %d, want %d", tc.path, lists, tc.maxLists)
			}
			if tc.source == snapshot.SourceNodes {
				// The watch cache answers the first page whole: every node is read before the
				// tokens go wrong.
				if diff := cmp.Diff(all, kubeNodeNames(s)); diff != "" {
					t.Errorf("nodes kept (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func kubeNodeNames(s *snapshot.Snapshot) []string {
	var out []string
	for _, n := range s.Nodes {
		out = append(out, n.Name)
	}
	return out
}
