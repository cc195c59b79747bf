package style

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
)

func TestLevelsWithoutColour(t *testing.T) {
	st := New(Renderer(&bytes.Buffer{}, false))
	tests := []struct {
		name      string
		wantBadge string
	}{
		{name: LevelCritical, wantBadge: "✖ critical"},
		{name: LevelWarning, wantBadge: "▲ warning"},
		{name: LevelInfo, wantBadge: "● info"},
		{name: LevelOK, wantBadge: "✔ ok"},
		{name: LevelSkipped, wantBadge: "○ skipped"},
		{name: "unheard-of", wantBadge: "? unheard-of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := st.Level(tt.name)
			if got := l.Badge(); got != tt.wantBadge {
				t.Errorf("Badge() = %q, want %q", got, tt.wantBadge)
			}
			if got := lipgloss.Width(l.Glyph); got != 1 {
				t.Errorf("glyph %q is %d columns wide, want 1", l.Glyph, got)
			}
		})
	}
}

func TestGlyphsDiffer(t *testing.T) {
	st := New(Renderer(&bytes.Buffer{}, false))
	seen := map[string]string{}
	for _, l := range []Level{st.Critical, st.Warning, st.Info, st.OK, st.Skipped} {
		if other, ok := seen[l.Glyph]; ok {
			t.Errorf("%s and %s share the glyph %q", other, l.Name, l.Glyph)
		}
		seen[l.Glyph] = l.Name
	}
}

func TestColourForcedOn(t *testing.T) {
	st := New(Renderer(&bytes.Buffer{}, true))
	tests := []struct {
		name string
		got  string
		want string // the ANSI foreground code the text must carry
	}{
		{name: "critical", got: st.Critical.Badge(), want: "31"},
		{name: "warning", got: st.Warning.Badge(), want: "33"},
		{name: "info", got: st.Info.Badge(), want: "34"},
		{name: "ok", got: st.OK.Badge(), want: "32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(tt.got, "\x1b[") || !strings.Contains(tt.got, tt.want) {
				t.Errorf("badge %q lacks ANSI colour %s", tt.got, tt.want)
			}
			if got := lipgloss.Width(tt.got); got != lipgloss.Width(st.Level(tt.name).Glyph+" "+tt.name) {
				t.Errorf("coloured badge is %d columns wide, want the width of its text", got)
			}
		})
	}
	if got := st.Header.Render("Identity"); !strings.Contains(got, "\x1b[") {
		t.Errorf("Header.Render = %q, want ANSI codes", got)
	}
}

func TestColourForcedOff(t *testing.T) {
	st := New(Renderer(&bytes.Buffer{}, false))
	for _, s := range []string{
		st.Critical.Badge(), st.Header.Render("Identity"), st.Label.Render("Zone"),
		st.Strong.Render("i-0abc"), st.Dim.Render("none"), st.Title.Render("node/a"),
	} {
		if strings.Contains(s, "\x1b") {
			t.Errorf("%q carries an escape sequence with colour off", s)
		}
	}
}
