package tui

import (
	"bytes"
	"errors"
	"io"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostiletext"
	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// fuzzKeys are the keys a fuzzed byte picks from: every binding of the key map, keys bound to
// nothing, and the letters a filter is typed with.
var fuzzKeys = []string{
	"up", "down", "pgup", "pgdown", "home", "end", "G", "enter", "esc", "tab", "shift+tab",
	"left", "right", "h", "l", "j", "k", " ", "/", "1", "2", "3", "g", "n", "f", "s", "r", "?", "H",
	"y", "S", "backspace", "q", "ctrl+c", "a", "e", "i", "p", "z", "0", "-", ".", "]", "[", "}", "{",
}

// fuzzReport returns the report and index a FuzzTUI input shows: builtin[0] (the demo's) for
// no snapshot bytes, builtin[1+b%4] for one byte b, and otherwise the report and index of the
// snapshot the bytes hold, if they hold one.
func fuzzReport(builtin [5]Loaded, data []byte) (Loaded, bool) {
	switch len(data) {
	case 0:
		return builtin[0], true
	case 1:
		return builtin[1+int(data[0])%4], true
	}
	s, err := snapshot.Read(bytes.NewReader(data))
	if err != nil {
		return Loaded{}, false
	}
	return Loaded{Report: diagnose.Analyze(s, diagnose.Options{}), Index: diagnose.NewIndex(s)}, true
}

// FuzzTUI drives the root model with fuzzed keys, window sizes, mouse wheel steps, reloads and
// failed refreshes over the demo report, the demo report with control characters in every
// string, an empty report, the demo with NodeClaims without a Node (plain and with control
// characters), or the report of fuzzed snapshot bytes; the plain ones and the fuzzed snapshot's
// come with their index, so subject sheets open. No message may panic, and after each one the
// screen renders with no raw control character, no more lines than the window and no line
// wider than it. A key byte picks, modulo len(fuzzKeys)+5, a key of fuzzKeys or, past them, a
// window size (from the next two bytes), a wheel step up or down, the report again or a failed
// refresh; the first byte's top bit turns colour on.
func FuzzTUI(f *testing.F) {
	s, err := demo.Snapshot()
	if err != nil {
		f.Fatalf("reading the demo snapshot: %v", err)
	}
	r := diagnose.Analyze(s, diagnose.Options{})
	cs := claimsSnapshot(f)
	claims := claimsReport(f)
	builtin := [5]Loaded{
		{Report: r, Index: diagnose.NewIndex(s)}, {Report: hostiletext.Poison(r)}, {},
		{Report: claims, Index: diagnose.NewIndex(cs)}, {Report: hostiletext.Poison(claims)},
	}
	f.Fuzz(func(t *testing.T, snap, keys []byte) {
		l, ok := fuzzReport(builtin, snap)
		if !ok {
			return
		}
		colour := len(keys) > 0 && keys[0]&0x80 != 0
		m := New(loadedLoader(l), Options{Styles: style.New(style.Renderer(io.Discard, colour)), Title: "fuzz"})
		m = update(t, m, reportMsg{report: l.Report, index: l.Index})
		for i := 0; i < len(keys) && i < 200; i++ {
			var msg tea.Msg
			switch a := int(keys[i]) % (len(fuzzKeys) + 5); {
			case a < len(fuzzKeys):
				msg = keyMsg(fuzzKeys[a])
			case a == len(fuzzKeys):
				w, h := 80, 24
				if i+2 < len(keys) {
					w, h = int(keys[i+1]), int(keys[i+2])%100
					i += 2
				}
				msg = tea.WindowSizeMsg{Width: w, Height: h}
			case a == len(fuzzKeys)+1:
				msg = tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress}
			case a == len(fuzzKeys)+2:
				msg = tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress}
			case a == len(fuzzKeys)+3:
				// A reload, half the time one with the first finding gone, so findings resolve
				// and come back as new.
				r := l.Report
				if keys[i]&0x40 != 0 && len(r.Findings) > 0 {
					r.Findings = r.Findings[1:]
				}
				msg = reportMsg{report: r, index: l.Index}
			default:
				msg = errMsg{errors.New("listing nodes: " + hostiletext.Text)}
			}
			m = update(t, m, msg)
			checkScreen(t, "fuzzed", m, colour)
		}
	})
}
