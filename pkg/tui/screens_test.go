package tui

import (
	"bytes"
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// flakyLoader returns r on its first call and fails on every later one.
func flakyLoader(r diagnose.Report) Loader {
	var calls atomic.Int32
	return func(context.Context) (Loaded, error) {
		if calls.Add(1) == 1 {
			return Loaded{Report: r}, nil
		}
		return Loaded{}, errors.New("listing nodes: the server has asked for the client to provide credentials")
	}
}

// TestScreens drives the program as a terminal would and compares the final screen with
// testdata/TestScreens/NAME.golden; run `go test ./pkg/tui -update` to rewrite them.
func TestScreens(t *testing.T) {
	r := demoReport(t)
	key := func(k string) tea.Msg { return keyMsg(k) }
	tests := []struct {
		name string
		w, h int
		load Loader
		// claims shows the demo with NodeClaims without a Node (claimsReport).
		claims bool
		msgs   []tea.Msg
		typed  string
		// waitOn is text the screen shows once the input took effect; empty for none.
		waitOn string
	}{
		{name: "start_80x24", w: 80, h: 24},
		{name: "start_200x60", w: 200, h: 60},
		{name: "start_160x40", w: 160, h: 40},
		{name: "findings_160x40", w: 160, h: 40, typed: "f", waitOn: "findings 19/19"},
		{name: "subnets_160x40", w: 160, h: 40, typed: "s", waitOn: "subnets 13/13"},
		{
			name: "node_enis_80x24", w: 80, h: 24, load: loadedLoader(demoLoaded(t)),
			msgs: []tea.Msg{key("enter"), key("}"), key("}"), key("}")}, waitOn: "[ENIs]",
		},
		{name: "filter_80x24", w: 80, h: 24, typed: "/general", waitOn: "nodes 19/36"},
		{name: "drilldown_80x24", w: 80, h: 24, msgs: []tea.Msg{key("down"), key("down"), key("down"), key("enter")}, waitOn: "[Overview]"},
		{name: "drilldown_200x60", w: 200, h: 60, msgs: []tea.Msg{key("down"), key("down"), key("down"), key("enter")}, waitOn: "[Overview]"},
		{name: "drilldown_auto_200x60", w: 200, h: 60, msgs: []tea.Msg{key("down"), key("enter")}, waitOn: "[Overview]"},
		{name: "findings_80x24", w: 80, h: 24, typed: "f", waitOn: "findings 19/19"},
		{name: "findings_200x60", w: 200, h: 60, typed: "f", msgs: []tea.Msg{key("enter")}, waitOn: "findings › subnet-ip-exhaustion"},
		{name: "finding_sheet_80x24", w: 80, h: 24, typed: "f", msgs: []tea.Msg{key("enter"), key("enter")}, waitOn: "Y copy prose"},
		{name: "finding_sheet_200x60", w: 200, h: 60, typed: "f", msgs: []tea.Msg{key("enter"), key("enter")}, waitOn: "Why it matters"},
		{name: "finding_node_80x24", w: 80, h: 24, typed: "f", msgs: []tea.Msg{key("down"), key("enter"), key("enter"), key("enter")}, waitOn: "[Overview]"},
		{name: "finding_node_200x60", w: 200, h: 60, typed: "f", msgs: []tea.Msg{key("down"), key("enter"), key("enter"), key("enter")}, waitOn: "[Overview]"},
		{
			name: "finding_node_back_80x24", w: 80, h: 24, typed: "f",
			msgs: []tea.Msg{key("down"), key("enter"), key("enter"), key("enter"), key("esc")}, waitOn: "Resource: node/",
		},
		{
			name: "finding_node_back_200x60", w: 200, h: 60, typed: "f",
			msgs: []tea.Msg{key("down"), key("enter"), key("enter"), key("enter"), key("esc")}, waitOn: "Resource: node/",
		},
		{
			name: "finding_nodepool_80x24", w: 80, h: 24, load: loadedLoader(demoLoaded(t)), typed: "f",
			msgs: []tea.Msg{key("down"), key("enter"), key("enter"), key("tab"), key("enter")}, waitOn: "Class's subnet zones",
		},
		{
			name: "node_links_80x24", w: 80, h: 24, load: loadedLoader(demoLoaded(t)),
			msgs: []tea.Msg{key("down"), key("down"), key("down"), key("enter"), key("]")}, waitOn: "▸ nodepool/general",
		},
		{
			name: "node_links_200x60", w: 200, h: 60, load: loadedLoader(demoLoaded(t)),
			msgs: []tea.Msg{key("down"), key("down"), key("down"), key("enter"), key("]")}, waitOn: "▸ nodepool/general",
		},
		{
			name: "node_nodepool_80x24", w: 80, h: 24, load: loadedLoader(demoLoaded(t)),
			msgs: []tea.Msg{key("down"), key("down"), key("down"), key("enter"), key("]"), key("enter")}, waitOn: "Class's subnet zones",
		},
		{
			name: "node_nodepool_back_200x60", w: 200, h: 60, load: loadedLoader(demoLoaded(t)),
			msgs: []tea.Msg{key("down"), key("down"), key("down"), key("enter"), key("]"), key("enter"), key("esc")}, waitOn: "▸ nodepool/general",
		},
		{name: "subnets_80x24", w: 80, h: 24, typed: "s", waitOn: "subnets 13/13"},
		{name: "explain_80x24", w: 80, h: 24, typed: "fe", waitOn: "explain › subnet-ip-exhaustion"},
		{name: "findings_help_80x24", w: 80, h: 24, typed: "f?", waitOn: "critical only"},
		{name: "help_80x24", w: 80, h: 24, typed: "?", waitOn: "page down"},
		{name: "claims_200x60", w: 200, h: 60, claims: true, msgs: []tea.Msg{key("G")}, waitOn: "▸ ✖ not registered"},
		{name: "claims_80x24", w: 80, h: 24, claims: true, msgs: []tea.Msg{key("G")}, waitOn: "▸ ✖   nodeclaim/general-h4k8s"},
		{name: "claim_sheet_120x40", w: 120, h: 40, claims: true, msgs: []tea.Msg{key("G"), key("enter")}, waitOn: "Provider ID:"},
		{name: "refresh_error_80x24", w: 80, h: 24, load: flakyLoader(r), typed: "r", waitOn: "refresh failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			load := tt.load
			switch {
			case load == nil && tt.claims:
				load = fixedLoader(claimsReport(t))
			case load == nil:
				load = fixedLoader(r)
			}
			tm := teatest.NewTestModel(t, New(load, Options{Styles: plain(), Title: "demo"}),
				teatest.WithInitialTermSize(tt.w, tt.h))
			waitFor(t, tm, "nodes 36/36")
			tm.Type(tt.typed)
			for _, msg := range tt.msgs {
				tm.Send(msg)
			}
			if tt.waitOn != "" {
				waitFor(t, tm, tt.waitOn)
			}
			if err := tm.Quit(); err != nil {
				t.Fatalf("quitting: %v", err)
			}
			final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second))
			golden.RequireEqual(t, []byte(final.View()))
		})
	}
}

// waitFor waits until the program has drawn text.
func waitFor(t *testing.T, tm *teatest.TestModel, text string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(text)) },
		teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
}
