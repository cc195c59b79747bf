package cmd

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// jsonReport is the part of the `-o json` report that tests read.
type jsonReport struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Summary    struct {
		Nodes        int            `json:"nodes"`
		Clean        int            `json:"clean"`
		WithWarnings int            `json:"withWarnings"`
		WithCritical int            `json:"withCritical"`
		Skipped      int            `json:"skipped"`
		Findings     map[string]int `json:"findings"`
	} `json:"summary"`
	Nodes []struct {
		Identity struct {
			Node     string `json:"node"`
			NodePool string `json:"nodePool"`
		} `json:"identity"`
		Status string `json:"status"`
	} `json:"nodes"`
	Findings []jsonFinding `json:"findings"`
	Gaps     []jsonGap     `json:"gaps"`
}

// jsonGap is one gap of the `-o json` report.
type jsonGap struct {
	Source string `json:"source"`
	Region string `json:"region"`
	Reason string `json:"reason"`
	Remedy string `json:"remedy"`
}

// jsonFinding is one finding of the `-o json` report.
type jsonFinding struct {
	ID       string `json:"id"`
	Severity string `json:"severity"`
	Node     string `json:"node"`
	Resource string `json:"resource"`
	Message  string `json:"message"`
	Remedy   string `json:"remedy"`
}

// decodeReport decodes the stdout of `-o json`.
func decodeReport(t *testing.T, stdout string) *jsonReport {
	t.Helper()
	var r jsonReport
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("decoding the JSON report: %v\n%s", err, stdout)
	}
	return &r
}

// nodeNames returns the names of the report's nodes, sorted.
func (r *jsonReport) nodeNames() []string {
	var names []string
	for _, n := range r.Nodes {
		names = append(names, n.Identity.Node)
	}
	slices.Sort(names)
	return names
}

// findingIDs returns the distinct finding IDs of a JSON report, sorted.
func findingIDs(t *testing.T, stdout string) []string {
	t.Helper()
	var ids []string
	for _, f := range decodeReport(t, stdout).Findings {
		ids = append(ids, f.ID)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func TestJSONReportContract(t *testing.T) {
	r := run(t, "demo", "check", "-o", "json")
	wantCode(t, r, ExitFindings)
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("decoding -o json: %v", err)
	}
	for key, want := range map[string]string{"kind": "Report", "apiVersion": "karpnet/v1alpha1"} {
		if got := doc[key]; got != want {
			t.Errorf("%s: got %v, want %q", key, got, want)
		}
	}
	taken, _ := doc["taken"].(string)
	if _, err := time.Parse(time.RFC3339, taken); err != nil {
		t.Errorf("taken: got %q, want an RFC 3339 time: %v", taken, err)
	}

	summary, ok := doc["summary"].(map[string]any)
	if !ok {
		t.Fatalf("summary: got %T, want an object", doc["summary"])
	}
	counts := map[string]int{}
	for _, key := range []string{"nodes", "clean", "withInfo", "withWarnings", "withCritical", "skipped"} {
		n, ok := summary[key].(float64)
		if !ok {
			t.Errorf("summary.%s: got %v, want a number", key, summary[key])
		}
		counts[key] = int(n)
	}
	if got, want := counts["nodes"], counts["clean"]+counts["withInfo"]+counts["withWarnings"]+counts["withCritical"]; got != want {
		t.Errorf("summary.nodes: got %d, want clean+withInfo+withWarnings+withCritical = %d", got, want)
	}
	bySeverity, ok := summary["findings"].(map[string]any)
	if !ok {
		t.Fatalf("summary.findings: got %T, want an object", summary["findings"])
	}

	nodes, ok := doc["nodes"].([]any)
	if want := counts["nodes"] + counts["skipped"]; !ok || len(nodes) != want {
		t.Errorf("nodes: got %d entries (%T), want summary.nodes + summary.skipped = %d", len(nodes), doc["nodes"], want)
	}
	findings, ok := doc["findings"].([]any)
	if !ok || len(findings) == 0 {
		t.Fatalf("findings: got %T of %d, want a non-empty array", doc["findings"], len(findings))
	}
	seen := map[string]int{}
	for i, raw := range findings {
		f, ok := raw.(map[string]any)
		if !ok {
			t.Fatalf("findings[%d]: got %T, want an object", i, raw)
		}
		for _, key := range []string{"id", "severity", "message", "remedy"} {
			if s, _ := f[key].(string); s == "" {
				t.Errorf("findings[%d].%s: got %v, want a non-empty string", i, key, f[key])
			}
		}
		sev, _ := f["severity"].(string)
		if !slices.Contains([]string{"info", "warning", "critical"}, sev) {
			t.Errorf("findings[%d].severity: got %q, want info, warning or critical", i, sev)
		}
		seen[sev]++
	}
	for _, sev := range []string{"info", "warning", "critical"} {
		if got, _ := bySeverity[sev].(float64); int(got) != seen[sev] {
			t.Errorf("summary.findings.%s: got %v, want %d (the %s findings listed)", sev, bySeverity[sev], seen[sev], sev)
		}
	}
	if gaps, ok := doc["gaps"].([]any); !ok {
		t.Errorf("gaps: got %T, want an array (empty when every source was read)", doc["gaps"])
	} else if len(gaps) != 0 {
		t.Errorf("gaps: got %v, want none for the demo", gaps)
	}
}

// TestJSONAndYAMLCarryTheSameReport checks that -o yaml holds the same document as -o json.
func TestJSONAndYAMLCarryTheSameReport(t *testing.T) {
	js := run(t, "demo", "check", "-o", "json")
	ym := run(t, "demo", "check", "-o", "yaml")
	if js.code != ym.code {
		t.Errorf("exit codes: json %d, yaml %d, want the same", js.code, ym.code)
	}
	var fromJSON, fromYAML map[string]any
	if err := json.Unmarshal([]byte(js.stdout), &fromJSON); err != nil {
		t.Fatalf("decoding -o json: %v", err)
	}
	if err := yaml.Unmarshal([]byte(ym.stdout), &fromYAML); err != nil {
		t.Fatalf("decoding -o yaml: %v", err)
	}
	if diff := cmp.Diff(fromJSON, fromYAML); diff != "" {
		t.Errorf("-o json vs -o yaml (-json +yaml):\n%s", diff)
	}
}
