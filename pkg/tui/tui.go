package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// Loader collects a snapshot and analyses it. Run calls it at start and on each refresh,
// always inside a tea.Cmd, with the program's context.
type Loader func(ctx context.Context) (Loaded, error)

// Loaded is what one load returns: the report the views show and the index of the snapshot it
// was analysed from, which the subnet, NodeClass, NodePool and placement group sheets are
// built from. A nil Index leaves those subjects as text.
type Loaded struct {
	Report diagnose.Report
	Index  *diagnose.Index
}

// Options configure the TUI.
type Options struct {
	// In is where keys come from; nil means standard input.
	In io.Reader
	// Out is the terminal to draw on; nil means standard output.
	Out io.Writer
	// Styles colours the views; the caller decides colour (--color, NO_COLOR). Nil means no colour.
	Styles *style.Styles
	// Title names what is shown in the header, e.g. the kubeconfig context or "demo".
	Title string
	// AltScreen draws on the terminal's alternate screen, as real use wants.
	AltScreen bool
	// Watch re-collects on this interval; zero never does. The caller keeps it inside the EC2
	// budget (internal/budget).
	Watch time.Duration
	// WatchNote is the status line shown until the first key, saying the interval (and why it
	// was raised, when it was).
	WatchNote string
	// Now is the clock the header's "ago" is measured by; nil shows the read time alone. Run
	// and watch mode use the wall clock when it is nil.
	Now func() time.Time
	// PlainCommand is the command that prints the report as text, which an error of the TUI
	// suggests instead; empty means kubectl karpnet check.
	PlainCommand string
	// Progress, when set, says what the load in progress has done so far (nodes listed,
	// instances read, calls made); the loading screen shows it under the spinner, read at
	// each spinner tick. Its text is shown escaped, on one line.
	Progress func() string
}

// Run shows the TUI until the user quits or ctx ends. A cancelled ctx is not an error.
func Run(ctx context.Context, load Loader, opts Options) error {
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithMouseCellMotion()}
	if opts.In != nil {
		popts = append(popts, tea.WithInput(opts.In))
	}
	out := terminalOutput(opts.Out)
	popts = append(popts, tea.WithOutput(out))
	if opts.AltScreen {
		popts = append(popts, tea.WithAltScreen())
	}
	if opts.Styles == nil {
		// The views' styles come from a renderer of their own on the output, whose colour and
		// background are decided here: lipgloss's default renderer is left as it is, and nothing
		// queries the terminal for its background (which could swallow the first keys typed).
		opts.Styles = style.New(style.Renderer(out, false))
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m := New(load, opts)
	m.ctx, m.clip = ctx, out
	if _, err := tea.NewProgram(m, popts...).Run(); err != nil {
		if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
			return nil
		}
		plain := opts.PlainCommand
		if plain == "" {
			plain = "kubectl karpnet check"
		}
		return fmt.Errorf("running the terminal UI: %w: use `%s` for plain output", err, plain)
	}
	return nil
}

// New returns the root model, loading until the first report arrives. Run uses it; tests drive
// it with Update and View or with teatest.
func New(load Loader, opts Options) Model {
	st := opts.Styles
	if st == nil {
		st = style.New(style.Renderer(io.Discard, false))
	}
	m := newModel(load, opts.Title, st)
	m.now = opts.Now
	m.progress = opts.Progress
	if opts.Watch > 0 {
		m.every, m.note = opts.Watch, opts.WatchNote
		if m.now == nil {
			m.now = time.Now
		}
	}
	if m.now != nil {
		m.clock = m.now()
	}
	return m
}
