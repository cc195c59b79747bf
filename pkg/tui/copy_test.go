package tui

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"
)

// pressCmd sends key k to m and returns the new model and the command it returned.
func pressCmd(tb testing.TB, m Model, k string) (Model, tea.Cmd) {
	tb.Helper()
	next, cmd := m.Update(keyMsg(k))
	got, ok := next.(Model)
	if !ok {
		tb.Fatalf("Update returned %T, want tui.Model", next)
	}
	return got, cmd
}

// decodeClip returns the text an OSC 52 clipboard sequence carries.
func decodeClip(tb testing.TB, seq string) string {
	tb.Helper()
	const start, end = "\x1b]52;c;", "\a"
	if !strings.HasPrefix(seq, start) || !strings.HasSuffix(seq, end) {
		tb.Fatalf("sequence %q is not ESC ] 52 ; c ; BASE64 BEL", seq)
	}
	text, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(seq, start), end))
	if err != nil {
		tb.Fatalf("sequence %q: decoding its base64: %v", seq, err)
	}
	return string(text)
}

func TestClipSequence(t *testing.T) {
	long := strings.Repeat("é", maxCopy) // two bytes each: twice the cap
	for _, tc := range []struct {
		name, text, want string
	}{
		{"name", "ip-10-0-1-69.us-west-2.compute.internal", "ip-10-0-1-69.us-west-2.compute.internal"},
		{"control characters are data", "a\x1b]0;x\a\nb", "a\x1b]0;x\a\nb"},
		{"cut to the cap at a character boundary", long, long[:maxCopy]},
		{"cut inside a character backs off", "x" + long, "x" + long[:maxCopy-2]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seq := clipSequence(tc.text)
			if got := decodeClip(t, seq); got != tc.want {
				t.Errorf("copied %d bytes %.40q, want %d bytes %.40q", len(got), got, len(tc.want), tc.want)
			}
			if strings.ContainsAny(strings.TrimSuffix(strings.TrimPrefix(seq, "\x1b"), "\a"), "\x1b\a") {
				t.Errorf("sequence %.60q holds a raw ESC or BEL inside it", seq)
			}
		})
	}
}

func TestCopyWritesSequenceAndNotes(t *testing.T) {
	r := demoReport(t)
	for _, tc := range []struct {
		name     string
		keys     []string
		want     func(m Model) string
		wantNote string
	}{
		{"nodes view: the node under the cursor", nil, func(m Model) string { n, _ := m.nodes.selectedName(); return n }, "copied "},
		{"node sheet: its node", []string{"enter"}, func(m Model) string { return m.node.report.Identity.Node }, "copied "},
		{"finding sheet: the remedy's commands", []string{"f", "down", "enter", "enter"}, func(m Model) string {
			return m.shownFinding().RemedyCommands()
		}, "copied 1 command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := press(t, ready(t, r, 120, 40), tc.keys...)
			var term bytes.Buffer
			m.clip = &term
			want := tc.want(m)
			if want == "" {
				t.Fatalf("the view offers nothing to copy")
			}
			m, cmd := pressCmd(t, m, "y")
			if cmd == nil {
				t.Fatalf("y returned no command")
			}
			if term.Len() != 0 {
				t.Fatalf("y wrote %q before its command ran", term.String())
			}
			msg := cmd()
			if got := decodeClip(t, term.String()); got != want {
				t.Errorf("copied %q, want %q", got, want)
			}
			m = update(t, m, msg)
			status := m.statusView()
			if !strings.Contains(status, tc.wantNote) || (tc.wantNote == "copied " && !strings.Contains(status, "copied "+want)) {
				t.Errorf("status line %q does not say what was copied (%q)", status, want)
			}
			if m = press(t, m, "down"); strings.Contains(m.statusView(), "copied") {
				t.Errorf("status line %q still notes the copy after the next key", m.statusView())
			}
		})
	}
}

func TestCopyNodeClaimRowCopiesItsName(t *testing.T) {
	m := press(t, ready(t, demoReport(t), 120, 40), "end")
	name, _ := m.nodes.selectedName()
	r := m.data.rows[m.data.byName[name]]
	if r.claim < 0 {
		t.Fatalf("the last row %q is not a NodeClaim", name)
	}
	var term bytes.Buffer
	m.clip = &term
	_, cmd := pressCmd(t, m, "y")
	msg := cmd()
	if got, want := decodeClip(t, term.String()), m.data.report.NodeClaims[r.claim].Name; got != want {
		t.Errorf("copied %q, want the NodeClaim's name %q", got, want)
	}
	if got, ok := msg.(copiedMsg); !ok || got.what != m.data.report.NodeClaims[r.claim].Name {
		t.Errorf("message %#v, want copiedMsg naming %q", msg, m.data.report.NodeClaims[r.claim].Name)
	}
}

func TestCopyWithoutTerminalWritesNothing(t *testing.T) {
	m := ready(t, demoReport(t), 120, 40)
	if m.clip != nil {
		t.Fatalf("a model from New has a terminal to write to: %T", m.clip)
	}
	name, _ := m.nodes.selectedName()
	m, cmd := pressCmd(t, m, "y")
	if cmd == nil {
		t.Fatalf("y returned no command")
	}
	msg, ok := cmd().(copiedMsg)
	if !ok || msg.err != nil || msg.what != name {
		t.Fatalf("message %#v, want copiedMsg naming %q", msg, name)
	}
}

func TestCopyNothingUnderCursor(t *testing.T) {
	m := press(t, ready(t, demoReport(t), 120, 40), "/", "z", "z", "z", "z", "enter")
	if _, ok := m.nodes.selectedName(); ok {
		t.Fatalf("the filter zzzz still shows a node")
	}
	m, cmd := pressCmd(t, m, "y")
	if cmd != nil {
		t.Errorf("y with no node returned a command")
	}
	if got := m.statusView(); !strings.Contains(got, "nothing to copy") {
		t.Errorf("status line %q, want it to say there is nothing to copy", got)
	}
}

// BenchmarkClipSequence measures the sequence for a 16 MiB text: capped, as `y` writes it, and
// uncapped, for comparison.
func BenchmarkClipSequence(b *testing.B) {
	text := strings.Repeat("x", 16<<20)
	b.Run("capped", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if len(clipSequence(text)) > 2*maxCopy {
				b.Fatal("the sequence is not capped")
			}
		}
	})
	b.Run("uncapped", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = osc52.New(text).String()
		}
	})
}
