package tui

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestRunQuitsOnQ(t *testing.T) {
	var out bytes.Buffer
	// q quits whether or not the report has arrived.
	err := Run(t.Context(), fixedLoader(demoReport(t)), Options{In: strings.NewReader("q"), Out: &out, Styles: plain(), Title: "demo"})
	if err != nil {
		t.Fatalf("Run = %v, want nil after q", err)
	}
	if !strings.Contains(out.String(), "karpnet") {
		t.Errorf("Run drew nothing recognisable:\n%q", out.String())
	}
}

// failingInput is a terminal whose input fails.
type failingInput struct{}

func (failingInput) Read([]byte) (int, error) { return 0, errors.New("input/output error") }

// TestRunErrorNamesThePlainCommand checks that an error of the TUI suggests Options.PlainCommand
// for plain output, kubectl karpnet check when it is empty.
func TestRunErrorNamesThePlainCommand(t *testing.T) {
	for _, tt := range []struct{ plain, want string }{
		{plain: "", want: "use `kubectl karpnet check` for plain output"},
		{plain: "kubectl karpnet demo check", want: "use `kubectl karpnet demo check` for plain output"},
	} {
		var out bytes.Buffer
		err := Run(t.Context(), fixedLoader(demoReport(t)), Options{In: failingInput{}, Out: &out, Styles: plain(), PlainCommand: tt.plain})
		if err == nil || !strings.Contains(err.Error(), "input/output error") || !strings.HasSuffix(err.Error(), tt.want) {
			t.Errorf("PlainCommand %q: Run = %v, want the input error ending %q", tt.plain, err, tt.want)
		}
	}
}
