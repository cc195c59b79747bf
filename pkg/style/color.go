package style

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/term"
	"github.com/muesli/termenv"
)

// ColorMode is the value of the --color flag.
type ColorMode string

// The colour modes.
const (
	// ColorAuto colours output written to a terminal, unless NO_COLOR is set or TERM is dumb.
	ColorAuto ColorMode = "auto"
	// ColorAlways colours output wherever it goes, even when NO_COLOR is set.
	ColorAlways ColorMode = "always"
	// ColorNever never colours output.
	ColorNever ColorMode = "never"
)

// ColorModes returns every colour mode, for help text and shell completion.
func ColorModes() []ColorMode { return []ColorMode{ColorAuto, ColorAlways, ColorNever} }

// ParseColorMode parses auto, always or never, in any case.
func ParseColorMode(s string) (ColorMode, error) {
	for _, m := range ColorModes() {
		if strings.EqualFold(s, string(m)) {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown colour mode %q: use auto, always or never", s)
}

// fder is a writer backed by a file descriptor, such as *os.File.
type fder interface {
	Fd() uintptr
}

// Enabled decides whether output to out is coloured. env reads the environment (os.Getenv, or a
// fake in tests). ColorNever is never coloured and ColorAlways always is: an explicit request
// wins over NO_COLOR. ColorAuto colours only a terminal, and not when NO_COLOR is set to a
// non-empty value or TERM is "dumb". An unknown mode counts as ColorAuto.
func Enabled(mode ColorMode, out io.Writer, env func(string) string) bool {
	switch mode {
	case ColorNever:
		return false
	case ColorAlways:
		return true
	}
	if env != nil && (env("NO_COLOR") != "" || env("TERM") == "dumb") {
		return false
	}
	return IsTerminal(out)
}

// IsTerminal reports whether w is a terminal (an *os.File, or anything with Fd, on a TTY).
func IsTerminal(w any) bool {
	f, ok := w.(fder)
	return ok && term.IsTerminal(f.Fd())
}

// Renderer returns a lipgloss renderer for w with colour forced on (16-colour ANSI) or off.
// It never queries the terminal, so output depends only on color and the text.
func Renderer(w io.Writer, color bool) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(w)
	if color {
		r.SetColorProfile(termenv.ANSI)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	r.SetHasDarkBackground(true)
	return r
}
