package printer

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestParseFormat(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		accepted []Format
		want     Format
		wantErr  string
	}{
		{name: "table", in: "table", want: Table},
		{name: "wide", in: "wide", want: Wide},
		{name: "json", in: "json", want: JSON},
		{name: "yaml upper case", in: "YAML", want: YAML},
		{name: "empty is the default", in: "", want: Table},
		{name: "empty is the first accepted", in: "", accepted: []Format{JSON, YAML}, want: JSON},
		{name: "accepted", in: "yaml", accepted: []Format{Table, JSON, YAML}, want: YAML},
		{name: "unknown", in: "xml", wantErr: "table, wide, json, yaml"},
		{name: "not accepted", in: "wide", accepted: []Format{Table, JSON, YAML}, wantErr: "table, json, yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFormat(tt.in, tt.accepted...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseFormat(%q) = %q, %v; want an error listing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseFormat(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseFormat(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestUnknownFormat(t *testing.T) {
	for _, f := range []Format{"", "xml"} {
		var buf bytes.Buffer
		if err := PrintReport(&buf, findingsReport(), f, nil); err == nil {
			t.Errorf("PrintReport with format %q: got no error, want one", f)
		}
		if err := PrintNodes(&buf, nodesReport(gpuNodeReport()), f, nil); err == nil {
			t.Errorf("PrintNodes with format %q: got no error, want one", f)
		}
		if buf.Len() != 0 {
			t.Errorf("format %q wrote %q, want nothing", f, buf.String())
		}
	}
}

func TestNilStylesArePlain(t *testing.T) {
	var got, want bytes.Buffer
	if err := PrintReport(&got, findingsReport(), Wide, nil); err != nil {
		t.Fatalf("printing with nil styles: %v", err)
	}
	if err := PrintReport(&want, findingsReport(), Wide, plainStyles()); err != nil {
		t.Fatalf("printing with plain styles: %v", err)
	}
	if got.String() != want.String() {
		t.Errorf("nil styles gave:\n%s\nwant:\n%s", got.String(), want.String())
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteErrors(t *testing.T) {
	for _, f := range Formats() {
		if err := PrintReport(failingWriter{}, findingsReport(), f, nil); err == nil {
			t.Errorf("PrintReport(%s) to a failing writer: got no error", f)
		}
		if err := PrintNodes(failingWriter{}, nodesReport(gpuNodeReport()), f, nil); err == nil {
			t.Errorf("PrintNodes(%s) to a failing writer: got no error", f)
		}
	}
}
