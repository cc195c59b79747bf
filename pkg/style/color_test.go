package style

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseColorMode(t *testing.T) {
	tests := []struct {
		in      string
		want    ColorMode
		wantErr bool
	}{
		{in: "auto", want: ColorAuto},
		{in: "always", want: ColorAlways},
		{in: "never", want: ColorNever},
		{in: "NEVER", want: ColorNever},
		{in: "", wantErr: true},
		{in: "yes", wantErr: true},
		{in: "on", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseColorMode(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ParseColorMode(%q) = %q, want an error", tt.in, got)
				}
				for _, choice := range []string{"auto", "always", "never"} {
					if !strings.Contains(err.Error(), choice) {
						t.Errorf("error %q does not list the choice %q", err, choice)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseColorMode(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseColorMode(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// fakeEnv returns an env func over a fixed map.
func fakeEnv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestEnabled(t *testing.T) {
	file, err := os.Create(filepath.Join(t.TempDir(), "out.txt"))
	if err != nil {
		t.Fatalf("creating a regular file: %v", err)
	}
	t.Cleanup(func() { _ = file.Close() })

	tests := []struct {
		name string
		mode ColorMode
		env  map[string]string
		out  io.Writer
		want bool
	}{
		{name: "never", mode: ColorNever, out: &bytes.Buffer{}, want: false},
		{name: "always on a buffer", mode: ColorAlways, out: &bytes.Buffer{}, want: true},
		{name: "always beats NO_COLOR", mode: ColorAlways, env: map[string]string{"NO_COLOR": "1"}, out: &bytes.Buffer{}, want: true},
		{name: "auto on a buffer", mode: ColorAuto, out: &bytes.Buffer{}, want: false},
		{name: "auto on a regular file", mode: ColorAuto, out: file, want: false},
		{name: "auto with NO_COLOR", mode: ColorAuto, env: map[string]string{"NO_COLOR": "1"}, out: file, want: false},
		{name: "never with NO_COLOR empty", mode: ColorNever, env: map[string]string{"NO_COLOR": ""}, out: file, want: false},
		{name: "auto with TERM dumb", mode: ColorAuto, env: map[string]string{"TERM": "dumb"}, out: file, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Enabled(tt.mode, tt.out, fakeEnv(tt.env)); got != tt.want {
				t.Errorf("Enabled(%q, %T, %v) = %v, want %v", tt.mode, tt.out, tt.env, got, tt.want)
			}
		})
	}
}

func TestEnabledOnTerminal(t *testing.T) {
	// The master side of a new pseudo-terminal is a terminal, with or without a controlling one.
	tty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("opening a pseudo-terminal (/dev/ptmx) to test terminal detection: %v", err)
	}
	t.Cleanup(func() { _ = tty.Close() })
	if got := Enabled(ColorAuto, tty, fakeEnv(nil)); !got {
		t.Errorf("Enabled(auto, /dev/ptmx) = false, want true")
	}
	if got := Enabled(ColorAuto, tty, fakeEnv(map[string]string{"NO_COLOR": "x"})); got {
		t.Errorf("Enabled(auto, /dev/ptmx) with NO_COLOR = true, want false")
	}
}
