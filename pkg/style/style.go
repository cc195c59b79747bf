package style

import "github.com/charmbracelet/lipgloss"

// Level names, as findings carry them ("info", "warning", "critical"), plus "ok" for a clean
// node, "initialising" and "terminating" for a clean node starting up or being deleted, and
// "skipped" for a node that was not checked against EC2.
const (
	LevelCritical     = "critical"
	LevelWarning      = "warning"
	LevelInfo         = "info"
	LevelOK           = "ok"
	LevelInitialising = "initialising"
	LevelTerminating  = "terminating"
	LevelSkipped      = "skipped"
)

// Fixed 16-colour ANSI colours: they never depend on a background-colour query.
const (
	red     = lipgloss.Color("1")
	green   = lipgloss.Color("2")
	yellow  = lipgloss.Color("3")
	blue    = lipgloss.Color("4")
	magenta = lipgloss.Color("5")
)

// Level is how one severity (or "ok") looks: a name, a single-width glyph and a colour.
type Level struct {
	// Name is the level's name, e.g. "critical".
	Name string
	// Glyph marks the level without colour, e.g. "✖".
	Glyph string
	// Style colours the glyph and the name.
	Style lipgloss.Style
}

// Badge returns the glyph and the name, coloured, e.g. "✖ critical".
func (l Level) Badge() string { return l.Style.Render(l.Glyph + " " + l.Name) }

// Mark returns the coloured glyph alone.
func (l Level) Mark() string { return l.Style.Render(l.Glyph) }

// Styles is karpnet's palette, built once from a renderer and passed to printers and views.
type Styles struct {
	Critical     Level
	Warning      Level
	Info         Level
	OK           Level
	Initialising Level
	Terminating  Level
	Skipped      Level

	// Title marks the head of a whole block, such as a node's sheet.
	Title lipgloss.Style
	// Header marks a section header.
	Header lipgloss.Style
	// Label marks a field name in a key/value line or a column heading.
	Label lipgloss.Style
	// Strong marks IDs and names the eye should find first.
	Strong lipgloss.Style
	// Dim marks secondary text.
	Dim lipgloss.Style

	// Width is the most columns a line of text output takes, the terminal's or COLUMNS; zero
	// means the printers' default, 100. Printers wrap prose to it and never wrap a command.
	Width int
}

// New builds the palette on r. Pass a renderer from Renderer for deterministic output.
func New(r *lipgloss.Renderer) *Styles {
	return &Styles{
		Critical:     Level{Name: LevelCritical, Glyph: "✖", Style: r.NewStyle().Foreground(red).Bold(true)},
		Warning:      Level{Name: LevelWarning, Glyph: "▲", Style: r.NewStyle().Foreground(yellow).Bold(true)},
		Info:         Level{Name: LevelInfo, Glyph: "●", Style: r.NewStyle().Foreground(blue)},
		OK:           Level{Name: LevelOK, Glyph: "✔", Style: r.NewStyle().Foreground(green)},
		Skipped:      Level{Name: LevelSkipped, Glyph: "○", Style: r.NewStyle().Faint(true)},
		Initialising: Level{Name: LevelInitialising, Glyph: "↑", Style: r.NewStyle().Foreground(green).Faint(true)},
		Terminating:  Level{Name: LevelTerminating, Glyph: "↓", Style: r.NewStyle().Faint(true)},
		Title:        r.NewStyle().Bold(true).Underline(true),
		Header:       r.NewStyle().Bold(true).Foreground(magenta),
		Label:        r.NewStyle().Faint(true),
		Strong:       r.NewStyle().Bold(true),
		Dim:          r.NewStyle().Faint(true),
	}
}

// Level returns the look of a level by name: "critical", "warning", "info", "ok",
// "initialising", "terminating" or "skipped". Any other name gets a plain "?" glyph, so a new severity still renders.
func (s *Styles) Level(name string) Level {
	switch name {
	case LevelCritical:
		return s.Critical
	case LevelWarning:
		return s.Warning
	case LevelInfo:
		return s.Info
	case LevelOK:
		return s.OK
	case LevelInitialising:
		return s.Initialising
	case LevelTerminating:
		return s.Terminating
	case LevelSkipped:
		return s.Skipped
	}
	return Level{Name: name, Glyph: "?", Style: s.Strong.UnsetBold()}
}
