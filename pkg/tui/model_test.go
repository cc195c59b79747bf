package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// The demo cluster's worst nodes, in the order the nodes view lists them; secondNode is the
// EKS Auto Mode node whose zone has no pod subnet. missingNode is the node whose instance EC2
// does not return.
const (
	worstNode   = "ip-10-0-50-20.us-west-2.compute.internal"
	secondNode  = "i-0aabd605ffdb17f34"
	thirdNode   = "ip-10-0-15-186.us-west-2.compute.internal"
	missingNode = "ip-10-0-19-98.us-west-2.compute.internal"
	// lastNode is the last row: the demo's NodeClaim without a Node, after every node.
	lastNode = "nodeclaim/batch-szxd6"
)

func TestLoadingThenReady(t *testing.T) {
	r := demoReport(t)
	m := New(fixedLoader(r), Options{Styles: plain(), Title: "demo"})
	if got := m.View(); !strings.Contains(got, "loading the report") {
		t.Fatalf("View before the report = %q, want it to say it is loading", got)
	}
	if m.Init() == nil {
		t.Fatal("Init returned no command, want the load and the spinner")
	}
	msg := loadCmd(t.Context(), fixedLoader(r))()
	if _, ok := msg.(reportMsg); !ok {
		t.Fatalf("the load command returned %T, want reportMsg", msg)
	}
	m = update(t, m, msg)
	if m.state != stateReady || m.busy {
		t.Fatalf("after the report: state %d busy %v, want ready and idle", m.state, m.busy)
	}
	if got, want := m.nodes.shown(), len(r.Nodes); got != want {
		t.Errorf("nodes shown = %d, want %d", got, want)
	}
	if got := m.View(); !strings.Contains(got, "taken: 2026-11-20T09:30:00Z") || !strings.Contains(got, "✖ 4 critical") {
		t.Errorf("header lacks the snapshot time or the counts:\n%s", got)
	}
}

func TestFirstLoadFails(t *testing.T) {
	failing := func(context.Context) (Loaded, error) { return Loaded{}, errors.New("no credentials") }
	m := New(failing, Options{Styles: plain()})
	msg := loadCmd(t.Context(), failing)()
	if _, ok := msg.(errMsg); !ok {
		t.Fatalf("the load command returned %T, want errMsg", msg)
	}
	m = update(t, m, msg)
	got := m.View()
	for _, want := range []string{"could not load the report: no credentials", "press r to retry"} {
		if !strings.Contains(got, want) {
			t.Errorf("failed screen lacks %q:\n%s", want, got)
		}
	}
	next, cmd := m.Update(keyMsg("r"))
	if cmd == nil || !next.(Model).busy {
		t.Error("r on the failed screen did not start a new load")
	}
}

func TestCursorMoves(t *testing.T) {
	r := demoReport(t)
	tests := []struct {
		name string
		keys []string
		want string
	}{
		{"start on the worst", nil, worstNode},
		{"down", []string{"down"}, secondNode},
		{"j twice", []string{"j", "j"}, thirdNode},
		{"up stops at the top", []string{"up", "k"}, worstNode},
		{"end", []string{"end"}, lastNode},
		{"end then home", []string{"end", "home"}, worstNode},
		{"page down then up", []string{"pgdown", "pgup"}, worstNode},
		{"page down past the end stops on the last", []string{"pgdown", "pgdown", "pgdown"}, lastNode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := press(t, ready(t, r, 80, 24), tt.keys...)
			if got, _ := m.nodes.selectedName(); got != tt.want {
				t.Errorf("selected = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMouseWheelScrolls(t *testing.T) {
	m := ready(t, demoReport(t), 80, 24)
	m = update(t, m, tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if got := m.nodes.list.cursor; got != wheelLines {
		t.Errorf("cursor after a wheel step = %d, want %d", got, wheelLines)
	}
}

func TestFilterNarrowsAndEscClears(t *testing.T) {
	r := demoReport(t)
	tests := []struct {
		name  string
		query string
		want  int
	}{
		{"pool", "batch", 8},
		{"check ID", "instance-not-found", 1},
		{"IP", "10.0.64.138", 1},
		{"zone", "us-west-2a", 12},
		{"subnet", "subnet-02720e173c311fcb4", 2},
		{"upper case matches", "BATCH", 8},
		{"state", "terminating", 1},
		{"compute kind", "fargate", 1},
		{"nothing", "no-such-node", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := press(t, ready(t, r, 80, 24), "/")
			if !m.input.Focused() {
				t.Fatal("/ did not focus the filter")
			}
			for _, c := range tt.query {
				m = press(t, m, string(c))
			}
			if got := m.nodes.shown(); got != tt.want {
				t.Errorf("shown after %q = %d, want %d", tt.query, got, tt.want)
			}
			m = press(t, m, "esc")
			if got := m.nodes.shown(); got != len(r.Nodes) || m.input.Focused() || m.sel.query != "" {
				t.Errorf("after esc: shown %d, focused %v, query %q; want all %d, blurred, empty",
					got, m.input.Focused(), m.sel.query, len(r.Nodes))
			}
		})
	}
}

func TestFilterKeptAfterEnterThenEscClears(t *testing.T) {
	m := press(t, ready(t, demoReport(t), 80, 24), "/", "b", "a", "t", "c", "h", "enter")
	if m.input.Focused() || m.nodes.shown() != 8 {
		t.Fatalf("after enter: focused %v, shown %d; want blurred with 8 nodes", m.input.Focused(), m.nodes.shown())
	}
	if got := m.View(); !strings.Contains(got, "/batch") {
		t.Errorf("status line does not show the kept filter:\n%s", got)
	}
	m = press(t, m, "esc")
	if got := m.nodes.shown(); got != 36 {
		t.Errorf("shown after esc = %d, want 36", got)
	}
}

func TestSeverityToggles(t *testing.T) {
	r := demoReport(t)
	tests := []struct {
		keys []string
		want int
	}{
		{[]string{"1"}, 4},
		{[]string{"2"}, 3},
		{[]string{"3"}, 2},
		{[]string{"1", "2"}, 7},
		{[]string{"1", "1"}, 36},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.keys, "+"), func(t *testing.T) {
			m := press(t, ready(t, r, 80, 24), tt.keys...)
			if got := m.nodes.shown(); got != tt.want {
				t.Errorf("shown = %d, want %d", got, tt.want)
			}
		})
	}
}
