package hostiletext

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRawControls(t *testing.T) {
	tests := []struct {
		name   string
		out    string
		colour bool
		want   int
	}{
		{name: "plain text", out: "ok\nnext ✖ 日本", want: 0},
		{name: "escaped form", out: Escaped, want: 0},
		{name: "SGR with colour on", out: "\x1b[1;31mred\x1b[0m", colour: true, want: 0},
		{name: "SGR with colour off", out: "\x1b[1;31mred\x1b[0m", want: 2},
		{name: "OSC with colour on", out: "\x1b]0;t\x07", colour: true, want: 2},
		{name: "the hostile text", out: Text, want: 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RawControls(tt.out, tt.colour); len(got) != tt.want {
				t.Errorf("RawControls(%q, %v) found %d, want %d: %q", tt.out, tt.colour, len(got), tt.want, got)
			}
		})
	}
}

type doc struct {
	Name  string
	List  []string
	Inner *doc
	n     string
}

func TestPoison(t *testing.T) {
	in := doc{Name: "a", List: []string{"b"}, Inner: &doc{Name: "c"}, n: "d"}
	got := Poison(in)
	want := doc{Name: "a" + Text, List: []string{"b" + Text}, Inner: &doc{Name: "c" + Text}, n: "d"}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(doc{})); diff != "" {
		t.Errorf("Poison (-want +got):\n%s", diff)
	}
	if in.Name != "a" || in.List[0] != "b" || in.Inner.Name != "c" {
		t.Error("Poison modified its argument")
	}
}
