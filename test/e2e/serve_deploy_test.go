package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// The Prometheus Operator release whose CRDs (example/prometheus-operator-crd, in its module
// zip from the Go module proxy) the ServiceMonitor and PrometheusRule are checked against.
const (
	prometheusOperatorModule  = "github.com/prometheus-operator/prometheus-operator"
	prometheusOperatorVersion = "v0.85.0"
)

// deployDir is the repository's deploy/.
func deployDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "deploy")
}

// kubectl runs the real kubectl as the admin with stdin, failing the test on a non-zero exit.
func kubectl(t *testing.T, stdin []byte, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", env.kube.AdminKubeconfig}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// renderDeploy returns deploy/ as kubectl kustomize renders it.
func renderDeploy(t *testing.T) []byte {
	t.Helper()
	return []byte(kubectl(t, nil, "kustomize", deployDir()))
}

// installMonitoringCRDs installs the Prometheus Operator's ServiceMonitor and PrometheusRule
// CRDs from its module zip and waits until they are served.
func installMonitoringCRDs(t *testing.T) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "go", "mod", "download", "-json", prometheusOperatorModule+"@"+prometheusOperatorVersion)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download %s@%s (from the Go module proxy): %v\n%s", prometheusOperatorModule, prometheusOperatorVersion, err, out)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download -json answered %q: %v", out, err)
	}
	for _, kind := range []string{"servicemonitors", "prometheusrules"} {
		crd := filepath.Join(mod.Dir, "example", "prometheus-operator-crd", "monitoring.coreos.com_"+kind+".yaml")
		kubectl(t, nil, "apply", "--server-side", "--force-conflicts", "-f", crd)
		kubectl(t, nil, "wait", "--for=condition=Established", "--timeout=60s", "crd/"+kind+".monitoring.coreos.com")
	}
}

// renderedObjects splits rendered YAML into its objects' kind/name.
func renderedObjects(t *testing.T, rendered []byte) []string {
	t.Helper()
	var out []string
	for _, doc := range strings.Split(string(rendered), "\n---\n") {
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatalf("decoding a rendered object: %v\n%s", err, doc)
		}
		out = append(out, strings.ToLower(obj.Kind)+"/"+obj.Metadata.Name)
	}
	slices.Sort(out)
	return out
}

// onlyKinds returns the documents of rendered whose kind is one of kinds.
func onlyKinds(t *testing.T, rendered []byte, kinds ...string) []byte {
	t.Helper()
	var keep []string
	for _, doc := range strings.Split(string(rendered), "\n---\n") {
		var obj struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(kinds, obj.Kind) {
			keep = append(keep, doc)
		}
	}
	return []byte(strings.Join(keep, "\n---\n"))
}

// deployedIdentity applies deploy/'s Namespace, ServiceAccount, ClusterRole and
// ClusterRoleBinding for real and returns a kubeconfig of the ServiceAccount's token: what the
// Deployment's pod would run as.
func deployedIdentity(t *testing.T) string {
	t.Helper()
	kubectl(t, onlyKinds(t, renderDeploy(t), "Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding"),
		"apply", "--server-side", "-f", "-")
	cs, err := kubernetes.NewForConfig(env.kube.Admin)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := cs.CoreV1().ServiceAccounts("karpnet").CreateToken(t.Context(), "karpnet",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptrInt64(3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("requesting a token for serviceaccount karpnet/karpnet: %v", err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["e2e"] = &clientcmdapi.Cluster{Server: env.kube.URL, InsecureSkipTLSVerify: true}
	cfg.AuthInfos["karpnet"] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	cfg.Contexts["karpnet"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "karpnet"}
	cfg.CurrentContext = "karpnet"
	path := filepath.Join(t.TempDir(), "karpnet-sa.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func ptrInt64(v int64) *int64 { return &v }

// rulesFile writes the PrometheusRule's spec (its groups) as a Prometheus rules file.
func rulesFile(t *testing.T, dir string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(deployDir(), "prometheusrule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var rule struct {
		Spec struct {
			Groups []any `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(raw, &rule); err != nil || len(rule.Spec.Groups) == 0 {
		t.Fatalf("deploy/prometheusrule.yaml: %v, %d groups", err, len(rule.Spec.Groups))
	}
	out, err := yaml.Marshal(map[string]any{"groups": rule.Spec.Groups})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "karpnet-rules.yaml")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestServeDeployManifests renders deploy/ with kubectl kustomize, applies every object to the
// API server as a server-side dry run (the ServiceMonitor and PrometheusRule against the
// Prometheus Operator's own CRDs), checks the rules with promtool, and reads a cluster as the
// deployed ServiceAccount: its ClusterRole lets karpnet read every source, leaving no gap.
func TestServeDeployManifests(t *testing.T) {
	c := newHealthyCluster(t)
	rendered := renderDeploy(t)
	want := []string{"clusterrole/karpnet-reader", "clusterrolebinding/karpnet-reader", "deployment/karpnet", "namespace/karpnet",
		"networkpolicy/karpnet", "prometheusrule/karpnet", "service/karpnet", "serviceaccount/karpnet", "servicemonitor/karpnet"}
	if got := renderedObjects(t, rendered); !slices.Equal(got, want) {
		t.Fatalf("kubectl kustomize deploy/ rendered %q, want %q", got, want)
	}
	installMonitoringCRDs(t)
	// A dry run creates nothing, so the namespaced objects need their namespace for real.
	kubectl(t, onlyKinds(t, rendered, "Namespace"), "apply", "--server-side", "-f", "-")
	out := kubectl(t, rendered, "apply", "--server-side", "--dry-run=server", "-f", "-")
	if n := strings.Count(out, "(server dry run)"); n != len(want) {
		t.Errorf("kubectl apply --dry-run=server: %d objects accepted, want %d:\n%s", n, len(want), out)
	}

	rules := rulesFile(t, t.TempDir())
	if out, err := harness.Promtool(t.Context(), nil, "check", "rules", rules); err != nil {
		t.Errorf("promtool check rules on deploy/prometheusrule.yaml's groups: %v", err)
	} else if !strings.Contains(out, "SUCCESS: 4 rules found") {
		t.Errorf("promtool check rules: got %q, want 4 rules found", out)
	}

	kubeconfig := deployedIdentity(t)
	r := karpnet(t, runOpts{kubeconfig: kubeconfig}, "check", "-o", "json")
	wantCode(t, r, 0)
	var rep struct {
		Gaps     []struct{ Source, Reason string } `json:"gaps"`
		Findings []struct{ ID string }             `json:"findings"`
		Nodes    []any                             `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Gaps) != 0 || len(rep.Nodes) != len(c.nodes) {
		t.Errorf("check as serviceaccount karpnet/karpnet: %d nodes, gaps %+v; want %d nodes and no gap (the ClusterRole grants every read)",
			len(rep.Nodes), rep.Gaps, len(c.nodes))
	}
	// The role is no more than that: it cannot read secrets, nor get a pod by name, nor write nodes.
	cs := kubeClientFor(t, kubeconfig)
	if _, err := cs.CoreV1().Secrets("").List(t.Context(), metav1.ListOptions{}); err == nil {
		t.Error("serviceaccount karpnet/karpnet can list secrets; want forbidden (karpnet never reads them)")
	}
	if _, err := cs.CoreV1().Pods("kube-system").Get(t.Context(), "x", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("serviceaccount karpnet/karpnet gets a pod by name: %v; want forbidden (karpnet only lists pods)", err)
	}
	if _, err := cs.CoreV1().Nodes().Create(t.Context(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{}); err == nil {
		t.Error("serviceaccount karpnet/karpnet can create nodes; want forbidden (read-only)")
	}
}

func kubeClientFor(t *testing.T, kubeconfig string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
