package snapshot

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestIsReport checks which documents are taken for a karpnet report: kind Report at the top
// level, or findings and summary there, in JSON or YAML, plain or gzipped; never a snapshot.
func TestIsReport(t *testing.T) {
	full, err := os.ReadFile("testdata/full.json")
	if err != nil {
		t.Fatal(err)
	}
	notJSON, err := os.ReadFile("testdata/not-json.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gz := func(s string) string {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(s))
		zw.Close()
		return b.String()
	}
	tests := []struct {
		name, doc string
		want      bool
	}{
		{"kind Report", `{"kind":"Report"}`, true},
		{"kind Report after other keys", `{"apiVersion":"karpnet/v1alpha1","nodes":[{"a":[1,{"b":2}]}],"kind":"Report"}`, true},
		{"findings and summary", `{"findings":[{"id":"x"}],"nodes":[],"summary":{"listed":0}}`, true},
		{"gzipped", gz(`{"kind":"Report"}`), true},
		{"YAML kind Report", "apiVersion: karpnet/v1alpha1\nkind: Report\n", true},
		{"YAML quoted kind", "kind: \"Report\"\n", true},
		{"YAML findings and summary", "findings:\n- id: x\nsummary:\n  listed: 1\n", true},
		{"YAML gzipped", gz("findings: []\nsummary: {}\n"), true},
		{"snapshot", string(full), false},
		{"snapshot gzipped", gz(string(full)), false},
		{"kind Snapshot", `{"kind":"Snapshot","findings":[],"summary":{}}`, false},
		{"findings only", `{"findings":[]}`, false},
		{"kind Report nested", `{"nodes":[{"kind":"Report"}],"summary":{}}`, false},
		{"YAML nested keys", "spec:\n  kind: Report\n  findings: []\n  summary: {}\n", false},
		{"YAML second document", "kind: Other\n---\nkind: Report\n", false},
		{"not JSON", string(notJSON), false},
		{"empty", "", false},
		{"array", `[{"kind":"Report"}]`, false},
		{"truncated", `{"nodes":[`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsReport(strings.NewReader(tt.doc), DefaultMaxBytes); got != tt.want {
				t.Errorf("IsReport: got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestIsReportBounded checks that no more than the bound is read.
func TestIsReportBounded(t *testing.T) {
	doc := `{"nodes":"` + strings.Repeat("x", 1000) + `","kind":"Report"}`
	if IsReport(strings.NewReader(doc), 100) {
		t.Error("IsReport: got true past the bound, want false")
	}
	if !IsReport(strings.NewReader(doc), 2000) {
		t.Error("IsReport: got false within the bound, want true")
	}
}

// FuzzIsReport: any input, JSON, YAML, gzip or garbage, gets an answer without a panic,
// and a JSON object with findings and summary is a report whatever else it holds.
func FuzzIsReport(f *testing.F) {
	f.Add([]byte(`{"kind":"Report"}`))
	f.Add([]byte("kind: Report\n"))
	f.Add([]byte(`{"findings":[],"summary":{}}`))
	f.Add([]byte(`{"kind":"Snapshot","nodes":[]}`))
	f.Add([]byte("\x1f\x8b garbage"))
	f.Add([]byte(`{"a":[[[[{"b":"}"}]]]],"findings":1,"summary":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = IsReport(bytes.NewReader(data), 1<<20)
		doc := append([]byte(`{"findings":[],"summary":{},"x":`), strconvQuote(data)...)
		if !IsReport(bytes.NewReader(append(doc, '}')), 1<<20) {
			t.Fatalf("a JSON object with findings and summary not taken for a report: %q", doc)
		}
	})
}

// strconvQuote quotes data as a JSON string.
func strconvQuote(data []byte) []byte {
	b, _ := json.Marshal(string(data))
	return b
}
