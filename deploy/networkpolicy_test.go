package deploy

import (
	"os"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/yaml"
)

// decodeFile decodes a YAML file into v.
func decodeFile(t *testing.T, file string, v any) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// TestNetworkPolicyAdmitsOnlyTheMonitoringNamespace: networkpolicy.yaml selects the karpnet pod,
// is listed in kustomization.yaml, and admits traffic only from the monitoring namespace and
// only to the port the Deployment names, on which serve listens on every interface.
func TestNetworkPolicyAdmitsOnlyTheMonitoringNamespace(t *testing.T) {
	var np networkingv1.NetworkPolicy
	decodeFile(t, "networkpolicy.yaml", &np)
	var dep appsv1.Deployment
	decodeFile(t, "deployment.yaml", &dep)
	var kust struct{ Resources []string }
	decodeFile(t, "kustomization.yaml", &kust)

	if !slices.Contains(kust.Resources, "networkpolicy.yaml") {
		t.Errorf("kustomization.yaml's resources %v lack networkpolicy.yaml", kust.Resources)
	}
	for k, v := range np.Spec.PodSelector.MatchLabels {
		if dep.Spec.Template.Labels[k] != v {
			t.Errorf("the NetworkPolicy selects %s=%s, the Deployment's pods are labelled %v", k, v, dep.Spec.Template.Labels)
		}
	}
	if len(np.Spec.PodSelector.MatchLabels) == 0 {
		t.Error("the NetworkPolicy selects every pod of the namespace, want karpnet's")
	}
	if !slices.Equal(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}) {
		t.Errorf("policyTypes %v, want [Ingress]", np.Spec.PolicyTypes)
	}
	if len(np.Spec.Ingress) != 1 || len(np.Spec.Ingress[0].From) != 1 || len(np.Spec.Ingress[0].Ports) != 1 {
		t.Fatalf("ingress %+v: want one rule, from one peer, to one port", np.Spec.Ingress)
	}
	from := np.Spec.Ingress[0].From[0]
	if from.PodSelector != nil || from.IPBlock != nil || from.NamespaceSelector == nil ||
		len(from.NamespaceSelector.MatchLabels) != 1 || from.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] != "monitoring" {
		t.Errorf("ingress from %+v, want the namespace monitoring alone", from)
	}
	port := np.Spec.Ingress[0].Ports[0].Port
	c := dep.Spec.Template.Spec.Containers[0]
	if port == nil || len(c.Ports) != 1 || port.String() != c.Ports[0].Name {
		t.Errorf("the NetworkPolicy admits port %v, the container's port is %+v", port, c.Ports)
	}
	if !slices.Contains(c.Args, "--listen=:9464") || c.Ports[0].ContainerPort != 9464 {
		t.Errorf("the container's args %v and port %d: want --listen=:9464 (serve listens on 127.0.0.1 by default) on 9464",
			c.Args, c.Ports[0].ContainerPort)
	}
}

// TestChartNetworkPolicyIsOnByDefault: the chart's NetworkPolicy is on by default and names the
// monitoring namespace, as deploy/ does, and the chart's Deployment listens on every interface.
func TestChartNetworkPolicyIsOnByDefault(t *testing.T) {
	var values struct {
		NetworkPolicy struct {
			Enabled             bool   `json:"enabled"`
			MonitoringNamespace string `json:"monitoringNamespace"`
		} `json:"networkPolicy"`
	}
	decodeFile(t, "../charts/karpnet/values.yaml", &values)
	if !values.NetworkPolicy.Enabled || values.NetworkPolicy.MonitoringNamespace != "monitoring" {
		t.Errorf("values.yaml networkPolicy %+v, want enabled with monitoringNamespace monitoring", values.NetworkPolicy)
	}
	tmpl, err := os.ReadFile("../charts/karpnet/templates/deployment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tmpl), "--listen=:{{ .Values.port }}") {
		t.Error("the chart's Deployment does not pass --listen=:PORT: serve would listen on 127.0.0.1 only")
	}
}
