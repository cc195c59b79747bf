package deploy

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// TestChartRulesAreDeploys keeps the Helm chart's alerts (charts/karpnet/files/rules.yaml)
// the groups of prometheusrule.yaml; test/e2e compares the rest of the chart with deploy/.
func TestChartRulesAreDeploys(t *testing.T) {
	var rule struct {
		Spec map[string]any `json:"spec"`
	}
	var chart map[string]any
	for file, v := range map[string]any{"prometheusrule.yaml": &rule, "../charts/karpnet/files/rules.yaml": &chart} {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(raw, v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	if len(rule.Spec) == 0 {
		t.Fatal("prometheusrule.yaml has no spec")
	}
	if diff := cmp.Diff(rule.Spec, chart); diff != "" {
		t.Errorf("charts/karpnet/files/rules.yaml differs from deploy/prometheusrule.yaml's spec (-deploy +chart):\n%s", diff)
	}
}

// TestChartDashboardIsDeploys keeps the chart's dashboard ConfigMap's JSON
// (charts/karpnet/files/dashboard.json) grafana/karpnet.json.
func TestChartDashboardIsDeploys(t *testing.T) {
	want, err := os.ReadFile("grafana/karpnet.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../charts/karpnet/files/dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Error("charts/karpnet/files/dashboard.json differs from deploy/grafana/karpnet.json: cp deploy/grafana/karpnet.json charts/karpnet/files/dashboard.json")
	}
}
