package oneline

import "testing"

func TestText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"plain words", 100, "plain words"},
		{"  lines\r\n\tand   tabs \n", 100, "lines and tabs"},
		{"clear \x1b[2Jscreen and bell\a", 100, `clear \x1b[2Jscreen and bell\x07`},
		{"bidi \u202eevil", 100, `bidi \u202eevil`},
		{"bad \xff utf-8", 100, `bad \xff utf-8`},
		{"C1 \u009b control", 100, `C1 \x9b control`},
		{"héllo wörld, long enough", 10, "héllo wö..."},
		{"", 10, ""},
	} {
		if got := Text(tc.in, tc.n); got != tc.want {
			t.Errorf("Text(%q, %d): got %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
