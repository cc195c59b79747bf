package tui

import (
	"bytes"
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
