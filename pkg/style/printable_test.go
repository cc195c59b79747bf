package style

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestPrintable(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "plain text stays", in: "subnet-0abc in us-west-2a", want: "subnet-0abc in us-west-2a"},
		{name: "unicode stays", in: "✖ critical — 日本 é", want: "✖ critical — 日本 é"},
		{name: "newline stays", in: "one\ntwo", want: "one\ntwo"},
		{name: "tab becomes a space", in: "a\tb", want: "a b"},
		{name: "OSC title", in: "x\x1b]0;pwned\x07y", want: `x\x1b]0;pwned\x07y`},
		{name: "CSI clear line and cursor up", in: "\x1b[2K\x1b[1A", want: `\x1b[2K\x1b[1A`},
		{name: "carriage return", in: "ok\rforged", want: `ok\x0dforged`},
		{name: "NUL and DEL", in: "\x00\x7f", want: `\x00\x7f`},
		{name: "C1 CSI", in: "\u009b31m", want: `\u009b31m`},
		{name: "bidi override", in: "abc\u202edef", want: `abc\u202edef`},
		{name: "line separator", in: "a\u2028b", want: `a\u2028b`},
		{name: "invalid UTF-8 byte", in: "a\xffb\x9b", want: `a\xffb\x9b`},
		{name: "backslash stays", in: `C:\x1b`, want: `C:\x1b`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Printable(tt.in)
			if got != tt.want {
				t.Errorf("Printable(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := Printable(got); again != got {
				t.Errorf("Printable of its result %q = %q, want it unchanged", got, again)
			}
		})
	}
}

func TestPrintableCutsLongStrings(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		wantCut  bool
		wantNote string
	}{
		{name: "at the limit stays whole", in: strings.Repeat("a", MaxShown)},
		{name: "one byte over", in: strings.Repeat("a", MaxShown+1), wantCut: true, wantNote: " more bytes cut)"},
		{name: "1 MiB", in: strings.Repeat("a", 1<<20), wantCut: true, wantNote: "… (1,044,528 more bytes cut)"},
		{name: "wide runes cut at a rune", in: strings.Repeat("日", MaxShown), wantCut: true, wantNote: "more bytes cut)"},
		{name: "escapes that pass the limit", in: strings.Repeat("\x1b", MaxShown/2), wantCut: true, wantNote: "more bytes cut)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Printable(tt.in)
			if len(got) > MaxShown {
				t.Errorf("Printable returned %d bytes, want at most %d", len(got), MaxShown)
			}
			if !utf8.ValidString(got) {
				t.Errorf("Printable cut inside a character: %q", got[len(got)-60:])
			}
			cut := strings.Contains(got, "more bytes cut)")
			if cut != tt.wantCut {
				t.Fatalf("cut = %v, want %v (%d bytes in, %d out)", cut, tt.wantCut, len(tt.in), len(got))
			}
			if tt.wantCut && !strings.HasSuffix(got, tt.wantNote) {
				t.Errorf("Printable ends %q, want it to end %q", got[len(got)-40:], tt.wantNote)
			}
			if again := Printable(got); again != got {
				t.Errorf("Printable of its own cut result changed it")
			}
		})
	}
}

func TestPrintableCountsWhatItCut(t *testing.T) {
	in := strings.Repeat("b", 10_000)
	got := Printable(in)
	shown := len(got) - len(strings.TrimLeft(got, "b"))
	want := "… (" + thousands(len(in)-shown) + " more bytes cut)"
	if !strings.HasSuffix(got, want) {
		t.Errorf("Printable shows %d bytes and ends %q, want it to end %q", shown, got[shown:], want)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 12345: "12,345", 1044528: "1,044,528"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

type inner struct {
	Name string
	Tags []string
}

type outer struct {
	Title   string
	Count   int
	Ptr     *inner
	Items   []inner
	Fixed   [2]string
	ByName  map[string]string
	Any     any
	private string
}

func TestPrintableCopy(t *testing.T) {
	in := outer{
		Title:   "t\x1b[2J",
		Count:   3,
		Ptr:     &inner{Name: "p\x07", Tags: []string{"ok", "\r"}},
		Items:   []inner{{Name: "clean"}, {Name: "\x1b]0;x\x07"}},
		Fixed:   [2]string{"a", "\x00"},
		ByName:  map[string]string{"k\x1b": "v\x1b", "fine": "fine"},
		Any:     "i\x1b",
		private: "\x1b",
	}
	got := PrintableCopy(in)
	want := outer{
		Title:   `t\x1b[2J`,
		Count:   3,
		Ptr:     &inner{Name: `p\x07`, Tags: []string{"ok", `\x0d`}},
		Items:   []inner{{Name: "clean"}, {Name: `\x1b]0;x\x07`}},
		Fixed:   [2]string{"a", `\x00`},
		ByName:  map[string]string{`k\x1b`: `v\x1b`, "fine": "fine"},
		Any:     `i\x1b`,
		private: "\x1b",
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(outer{})); diff != "" {
		t.Errorf("PrintableCopy (-want +got):\n%s", diff)
	}
	if in.Title != "t\x1b[2J" || in.Ptr.Name != "p\x07" || in.Items[1].Name != "\x1b]0;x\x07" || in.ByName["k\x1b"] != "v\x1b" {
		t.Error("PrintableCopy modified its argument")
	}
}

func TestPrintableCopySharesCleanData(t *testing.T) {
	in := outer{Title: "clean", Items: []inner{{Name: "a"}}, Ptr: &inner{Name: "b"}}
	got := PrintableCopy(in)
	if got.Ptr != in.Ptr || &got.Items[0] != &in.Items[0] {
		t.Error("PrintableCopy copied data that needed no change")
	}
}
