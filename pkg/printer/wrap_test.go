package printer

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestWrapLongWordInLinearTime wraps one unbroken 1 MiB word, as a hostile Event message can
// carry: re-measuring the rest of the word at every cut made this take over ten seconds.
func TestWrapLongWordInLinearTime(t *testing.T) {
	word := strings.Repeat("x", 1<<20)
	start := time.Now()
	lines := wrap(word, 96)
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("wrapping a 1 MiB word took %v, want well under 2s", took)
	}
	if got := strings.Join(lines, ""); got != word {
		t.Fatalf("the wrapped lines do not join back into the word (%d bytes, want %d)", len(got), len(word))
	}
	for i, l := range lines {
		if width(l) > 96 {
			t.Fatalf("line %d is %d columns, want at most 96", i, width(l))
		}
	}
}

// wrapByRemeasuring is wrap as it was before it measured each word once: the reference for
// what wrap returns.
func wrapByRemeasuring(text string, limit int) []string {
	limit = max(limit, 1)
	if !strings.Contains(text, "\n") && width(text) <= limit {
		if strings.TrimSpace(text) == "" {
			return nil
		}
		return []string{text}
	}
	var lines []string
	for _, para := range strings.Split(text, "\n") {
		var cur string
		for _, word := range strings.Fields(para) {
			for width(word) > limit {
				if cur != "" {
					lines = append(lines, cur)
					cur = ""
				}
				w, i := 0, 0
				for j, r := range word {
					rw := width(string(r))
					if j > 0 && w+rw > limit {
						break
					}
					w += rw
					i = j + len(string(r))
				}
				lines = append(lines, word[:i])
				word = word[i:]
			}
			switch {
			case cur == "":
				cur = word
			case width(cur)+1+width(word) <= limit:
				cur += " " + word
			default:
				lines = append(lines, cur)
				cur = word
			}
		}
		if cur != "" {
			lines = append(lines, cur)
		}
	}
	return lines
}

// TestWrapMatchesReference compares wrap with the re-measuring reference on random text of
// words, spaces, newlines and wide runes, at every width from 1 to 30.
func TestWrapMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "bc", "defgh", "✖", "日本", " ", " ", "  ", "\n", "ijklmnopqrstuvwxyz", "é"}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		for limit := 1; limit <= 30; limit++ {
			got, want := wrap(text, limit), wrapByRemeasuring(text, limit)
			if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
				t.Fatalf("wrap(%q, %d) = %q, want %q", text, limit, got, want)
			}
		}
	}
}

// BenchmarkWrapLongWord wraps one unbroken word of each size to the default width.
func BenchmarkWrapLongWord(b *testing.B) {
	for _, size := range []int{64 << 10, 512 << 10, 1 << 20} {
		word := strings.Repeat("x", size)
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			for b.Loop() {
				wrap(word, Width-4)
			}
		})
	}
}
