package tui

import (
	"reflect"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostiletext"
)

// initTitle runs m's Init and returns the terminal title it sets.
func initTitle(t *testing.T, m Model) string {
	t.Helper()
	batch, ok := m.Init()().(tea.BatchMsg)
	if !ok {
		t.Fatalf("Init does not return a batch")
	}
	for _, cmd := range batch {
		// tea's title message is an unexported string type.
		if msg := cmd(); reflect.TypeOf(msg).String() == "tea.setWindowTitleMsg" {
			return reflect.ValueOf(msg).String()
		}
	}
	t.Fatalf("Init sets no terminal title")
	return ""
}

func TestWindowTitleNamesContext(t *testing.T) {
	for _, tc := range []struct{ name, context, want string }{
		{"context", "prod-eks", "karpnet — prod-eks"},
		{"no context", "", "karpnet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(fixedLoader(demoReport(t)), Options{Styles: plain(), Title: tc.context})
			if got := initTitle(t, m); got != tc.want {
				t.Errorf("title %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWindowTitleEscapesHostileContext(t *testing.T) {
	m := New(fixedLoader(demoReport(t)), Options{Styles: plain(), Title: "prod" + hostiletext.Text})
	got := initTitle(t, m)
	if bad := hostiletext.RawControls(got, false); len(bad) > 0 {
		t.Errorf("title %q holds %d raw control characters, e.g. %q", got, len(bad), bad[0])
	}
	if !strings.HasPrefix(got, "karpnet — prod") {
		t.Errorf("title %q does not name the context", got)
	}
}
