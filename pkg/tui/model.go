package tui

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// state is where the root model is in loading the first report.
type state int

// The root states.
const (
	stateLoading state = iota
	stateFailed
	stateReady
)

// view is the screen shown once a report is ready.
type view int

// The views.
const (
	viewNodes view = iota
	viewNode
	viewFindings
	viewSubnets
	viewExplain
	// viewSheet is the sheet of a NodeClaim, a finding, or a subnet, NodePool, class or
	// placement group.
	viewSheet
	// viewPrev is not a view but where a sheet opened from another sheet goes back to: the
	// sheet it was opened from, kept on the sheet path.
	viewPrev
)

// Default size, used until the terminal reports its own.
const (
	defaultWidth  = 80
	defaultHeight = 24
	// tallScreen is the height from which the subnet strip takes two lines.
	tallScreen = 40
)

// Model is the root tea.Model: loading until the first report, then the views over it.
type Model struct {
	ctx   context.Context
	load  Loader
	title string
	th    theme
	keys  keyMap
	help  help.Model
	spin  spinner.Model
	input textinput.Model

	state state
	view  view
	// busy is set while a load runs; err is the last failed load.
	busy bool
	err  error
	// clip is the terminal `y` writes its OSC 52 sequence to, nil when there is none; note is a
	// one-line status, such as what was copied, shown until the next key.
	clip io.Writer
	note string
	// now reads the clock (nil when unknown); clock is its last reading, loadedAt when the last
	// load ended, and every the watch interval (zero without watch).
	now      func() time.Time
	clock    time.Time
	loadedAt time.Time
	every    time.Duration

	data     *data
	sel      selection
	nodes    nodesModel
	node     nodeModel
	findings findingsModel
	subnets  subnetsModel
	explain  explainModel
	sheet    sheetModel
	// trail is the path of list views followed from a sheet, latest last: Esc on a view reached
	// that way returns along it.
	trail []step
	// sheets is the path of sheets left by following a reference from a sheet, latest last;
	// the sheet opened from one goes back to it (viewPrev).
	sheets []viewScreen

	width, height int
	// progress reports what the load in progress has done (Options.Progress); progressText is
	// its last reading, taken at each spinner tick.
	progress     func() string
	progressText string
}

// newModel builds the root model in the loading state.
func newModel(load Loader, title string, st *style.Styles) Model {
	th := newTheme(st)
	h := help.New()
	h.Styles = th.helpStyles()
	in := textinput.New()
	in.Prompt = "/"
	in.Placeholder = "name, pool, type, zone, subnet, IP or check"
	in.Cursor.SetMode(cursor.CursorStatic)
	th.styleInput(&in)
	m := Model{
		ctx: context.Background(), load: load, title: style.Printable(title), th: th, keys: defaultKeys(), help: h,
		spin:  spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(st.Header)),
		input: in, busy: true, findings: newFindingsModel(),
	}
	return m.resize(defaultWidth, defaultHeight)
}

// Init names the context in the terminal title and starts the first load and the spinner.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.SetWindowTitle(windowTitle(m.title)), loadCmd(m.ctx, m.load), m.spin.Tick}
	if m.every > 0 {
		cmds = append(cmds, clockTick())
	}
	return tea.Batch(cmds...)
}

// headerLines is how many lines the subnet strip may take at the current height.
func (m Model) stripLines() int {
	if m.height >= tallScreen {
		return 2
	}
	return 1
}

// bodyHeight is what is left for the active view once the header and footer are drawn.
func (m Model) bodyHeight() int { return m.bodyHeightFor(m.chrome()) }

// minBody is the fewest lines the active view keeps on a short screen.
const minBody = 2

// chrome returns the header and the help footer as the screen shows them. On a screen too
// short for both, the full help loses its last lines first, then the header does, so the
// header's first line, minBody lines of the view, the status line and the footer always fit.
func (m Model) chrome() (header, help string) {
	help = firstLines(m.helpView(), max(m.height-minBody-2, 1))
	room := m.height - minBody - 1 - (strings.Count(help, "\n") + 1)
	header = firstLines(headerView(m.th, m.title, m.data, m.clock, m.width, m.stripLines()), max(room, 1))
	return header, help
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	at := 0
	for range n {
		next := strings.IndexByte(s[at:], '\n')
		if next < 0 {
			return s
		}
		at += next + 1
	}
	return s[:at-1]
}

// bodyHeightFor is bodyHeight for an already rendered header and help footer.
func (m Model) bodyHeightFor(header, help string) int {
	used := strings.Count(header, "\n") + 1 + 1 + strings.Count(help, "\n") + 1
	return max(m.height-used, minBody)
}

// resize lays every view out for a w by h screen.
func (m Model) resize(w, h int) Model {
	m.width, m.height = max(w, 20), max(h, 8)
	m.help.Width = m.width
	m.input.Width = max(m.width/2, 10)
	body := m.bodyHeight()
	for _, s := range m.screens() {
		m.put(s.setSize(m.th, m.width, body))
	}
	return m
}

// helpView renders the short or full help for the active view, each line cut to the width.
func (m Model) helpView() string {
	keys := m.keys.filterKeys()
	if !m.input.Focused() {
		keys = m.active().keys(m.keys)
	}
	// Drop bindings before the last two (help and quit) until the footer fits, measured
	// without the cut to the width that would end it in an ellipsis instead.
	uncut := m.help
	uncut.Width = 0
	for len(keys.short) > 2 && width(uncut.ShortHelpView(keys.short)) > m.width {
		n := len(keys.short)
		keys.short = append(keys.short[:n-3:n-3], keys.short[n-2:]...)
	}
	// On a terminal too narrow even for those, drop quit, then help, rather than cut a word.
	for len(keys.short) > 0 && width(uncut.ShortHelpView(keys.short)) > m.width {
		keys.short = keys.short[:len(keys.short)-1]
	}
	lines := strings.Split(m.help.View(keys), "\n")
	for i, l := range lines {
		lines[i] = fit(l, m.width, false)
	}
	return strings.Join(lines, "\n")
}
