package cmd

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// nodeNames is n node names the way EKS names them, ip-10-x-y-z.<region>.compute.internal.
func nodeNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("ip-10-%d-%d-%d.eu-west-1.compute.internal", i>>16&255, i>>8&255, i&255)
	}
	return out
}

// TestSuggestionsCost bounds what a suggestion costs whatever is typed: a 100,000-byte name,
// a name one longer than a candidate, and a short prefix of every candidate, each against
// 20,000 node names.
func TestSuggestionsCost(t *testing.T) {
	names := nodeNames(20000)
	for _, tt := range []struct {
		name  string
		typed string
		want  int
	}{
		{"a 100,000-byte name", strings.Repeat("ip-10-0-1-1.", 8334)[:100000], 0},
		{"a name within the distance of every candidate's length", "ip-10-9-9-99.eu-west-1.compute.internal", 3},
		{"a prefix of every candidate", "ip-10", 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got := suggestions(tt.typed, names)
			took := time.Since(start)
			if len(got) != tt.want {
				t.Errorf("%d suggestions %q, want %d", len(got), got, tt.want)
			}
			// A few milliseconds per thousand candidates, with room for a loaded machine.
			if limit := 2 * time.Second; took > limit {
				t.Errorf("took %s against %d candidates, want under %s", took, len(names), limit)
			}
			t.Logf("%s against %d candidates", took, len(names))
		})
	}
}

func BenchmarkSuggestionsLongName(b *testing.B) {
	names := nodeNames(20000)
	typed := strings.Repeat("x", 100000)
	for b.Loop() {
		suggestions(typed, names)
	}
}

func BenchmarkSuggestionsNodeName(b *testing.B) {
	names := nodeNames(20000)
	for b.Loop() {
		suggestions("ip-10-0-1-1.eu-west-1.compute.internl", names)
	}
}

// TestBoundedDistance compares the banded distance with the full one on random short strings
// over a small alphabet, where distances near the limit are common.
func TestBoundedDistance(t *testing.T) {
	full := func(a, b string) int {
		prev := make([]int, len(b)+1)
		for j := range prev {
			prev[j] = j
		}
		for i := 1; i <= len(a); i++ {
			cur := make([]int, len(b)+1)
			cur[0] = i
			for j := 1; j <= len(b); j++ {
				cost := 1
				if a[i-1] == b[j-1] {
					cost = 0
				}
				cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			}
			prev = cur
		}
		return prev[len(b)]
	}
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		b := make([]byte, r.IntN(9))
		for i := range b {
			b[i] = "abc"[r.IntN(3)]
		}
		return string(b)
	}
	for range 20000 {
		a, b, limit := word(), word(), r.IntN(4)
		want := min(full(a, b), limit+1)
		if got := boundedDistance(a, b, limit); got != want {
			t.Fatalf("boundedDistance(%q, %q, %d) = %d, want %d", a, b, limit, got, want)
		}
	}
}
