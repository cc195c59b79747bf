package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// helmVersion is the helm the chart is tested with, built from the Go module proxy once and
// cached in ~/.cache/karpnet-tools/helm-VERSION (KARPNET_TOOLS_DIR), as hack/tools.sh does for
// the other tools. A cold build takes about 6 minutes (mostly downloads), a cached one nothing.
const (
	helmModule  = "helm.sh/helm/v4/cmd/helm"
	helmVersion = "v4.3.2"
)

// chartDir is the repository's charts/karpnet.
func chartDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "charts", "karpnet")
}

var (
	helmOnce sync.Once
	helmBin  string
	helmErr  error
)

// helmBinary returns the cached helm, building it first when it is not there. A build that
// fails fails the test with the reason: the chart is never left untested.
func helmBinary(t *testing.T) string {
	t.Helper()
	helmOnce.Do(func() {
		tools := os.Getenv("KARPNET_TOOLS_DIR")
		if tools == "" {
			cache, err := os.UserCacheDir()
			if err != nil {
				helmErr = err
				return
			}
			tools = filepath.Join(cache, "karpnet-tools")
		}
		dir := filepath.Join(tools, "helm-"+helmVersion)
		helmBin = filepath.Join(dir, "helm")
		if _, err := os.Stat(helmBin); err == nil {
			return
		}
		if err := os.MkdirAll(tools, 0o755); err != nil {
			helmErr = err
			return
		}
		tmp, err := os.MkdirTemp(tools, ".build.")
		if err != nil {
			helmErr = err
			return
		}
		defer os.RemoveAll(tmp)
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "install", helmModule+"@"+helmVersion)
		cmd.Dir, cmd.Env = tmp, append(os.Environ(), "GOBIN="+tmp, "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			helmErr = fmt.Errorf("building %s@%s from the Go module proxy (GOPROXY=%s): %v\n%s", helmModule, helmVersion,
				os.Getenv("GOPROXY"), err, tail(string(out), 20))
			return
		}
		if err := os.RemoveAll(dir); err != nil {
			helmErr = err
			return
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			helmErr = err
			return
		}
		if err := os.Rename(filepath.Join(tmp, "helm"), helmBin); err != nil {
			helmErr = err
			return
		}
		fmt.Fprintf(os.Stderr, "e2e: built helm %s in %s into %s\n", helmVersion, time.Since(start).Round(time.Second), dir)
	})
	if helmErr != nil {
		t.Fatalf("helm is needed to test charts/karpnet: %v", helmErr)
	}
	return helmBin
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

// helm runs the cached helm as the admin of the e2e API server, failing the test on an error.
func helm(t *testing.T, args ...string) string {
	t.Helper()
	// Not t.Context(): the uninstall runs in a cleanup, after it ends.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, helmBinary(t), append([]string{"--kubeconfig", env.kube.AdminKubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+filepath.Join(t.TempDir(), "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(t.TempDir(), "config"), "HELM_DATA_HOME="+filepath.Join(t.TempDir(), "data"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("helm %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// objectsByName decodes rendered YAML documents into objects by kind/name.
func objectsByName(t *testing.T, rendered string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(rendered, -1) {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatalf("decoding a rendered object: %v\n%s", err, doc)
		}
		if obj == nil {
			continue
		}
		meta, _ := obj["metadata"].(map[string]any)
		out[strings.ToLower(fmt.Sprint(obj["kind"]))+"/"+fmt.Sprint(meta["name"])] = obj
	}
	return out
}

// labelMaps are the paths of label maps: the chart may add labels to them, never drop one.
var labelMaps = [][]string{
	{"metadata", "labels"}, {"spec", "selector", "matchLabels"}, {"spec", "template", "metadata", "labels"},
	{"spec", "podSelector", "matchLabels"},
}

// cutLabels removes obj's label maps (and a Service's selector) and returns them by path.
func cutLabels(obj map[string]any) map[string]map[string]any {
	paths := labelMaps
	if obj["kind"] == "Service" {
		paths = append(slices.Clone(paths), []string{"spec", "selector"})
	}
	out := map[string]map[string]any{}
	for _, p := range paths {
		parent := obj
		for _, k := range p[:len(p)-1] {
			parent, _ = parent[k].(map[string]any)
		}
		if parent == nil {
			continue
		}
		if m, ok := parent[p[len(p)-1]].(map[string]any); ok {
			out[strings.Join(p, ".")] = m
			delete(parent, p[len(p)-1])
		}
	}
	return out
}

// TestServeHelmChart lints charts/karpnet, renders it with the values that match deploy/ and
// compares every object with kubectl kustomize deploy/'s (the same objects and fields; the
// chart may only add labels), then installs it into the e2e API server and checks that its
// ServiceAccount may read what karpnet reads and nothing more.
func TestServeHelmChart(t *testing.T) {
	start := time.Now()
	helmBinary(t)
	t.Logf("helm %s ready in %s", helmVersion, time.Since(start).Round(time.Millisecond))

	if out := helm(t, "lint", "--strict", chartDir()); !strings.Contains(out, "0 chart(s) failed") {
		t.Errorf("helm lint --strict: %s", out)
	}
	sameAsDeploy := []string{"--namespace", "karpnet", "--set", "namespace.create=true",
		"--set", "aws.roleArn=arn:aws:iam::111122223333:role/karpnet-reader"}
	chart := objectsByName(t, helm(t, append([]string{"template", "karpnet", chartDir()}, sameAsDeploy...)...))
	kustomized := objectsByName(t, string(renderDeploy(t)))
	names := func(m map[string]map[string]any) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	if diff := cmp.Diff(names(kustomized), names(chart)); diff != "" {
		t.Fatalf("helm template's objects differ from kubectl kustomize deploy/'s (-kustomize +chart):\n%s", diff)
	}
	for name, want := range kustomized {
		got := chart[name]
		wantLabels, gotLabels := cutLabels(want), cutLabels(got)
		for path, labels := range wantLabels {
			for k, v := range labels {
				if gotLabels[path][k] != v {
					t.Errorf("%s %s: the chart has %s=%v, deploy/ %s=%v", name, path, k, gotLabels[path][k], k, v)
				}
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: the chart differs from deploy/ beyond labels (-kustomize +chart):\n%s", name, diff)
		}
	}

	// Install it for real, in a namespace of its own, with the Prometheus Operator's CRDs.
	installMonitoringCRDs(t)
	const ns, release = "karpnet-helm", "karpnet-helm"
	helm(t, "install", release, chartDir(), "--namespace", ns, "--create-namespace",
		"--set", "aws.roleArn=arn:aws:iam::123456789012:role/karpnet-reader", "--set", "serve.nodeMetrics=true",
		"--set", "grafanaDashboard.enabled=true", "--set", "report.tokenSecret=karpnet-report")
	t.Cleanup(func() { helm(t, "uninstall", release, "--namespace", ns) })
	got := kubectl(t, nil, "-n", ns, "get", "serviceaccount,deployment,service,servicemonitor,prometheusrule,networkpolicy",
		"-o", "jsonpath={range .items[*]}{.kind}/{.metadata.name} {end}")
	for _, want := range []string{"ServiceAccount/" + release, "Deployment/" + release, "Service/" + release,
		"ServiceMonitor/" + release, "PrometheusRule/" + release, "NetworkPolicy/" + release} {
		if !strings.Contains(got, want) {
			t.Errorf("after helm install: %q lacks %s", got, want)
		}
	}
	if ann := kubectl(t, nil, "-n", ns, "get", "serviceaccount", release,
		"-o", `jsonpath={.metadata.annotations.eks\.amazonaws\.com/role-arn}`); ann != "arn:aws:iam::123456789012:role/karpnet-reader" {
		t.Errorf("the ServiceAccount's IRSA annotation: %q", ann)
	}
	dash := kubectl(t, nil, "-n", ns, "get", "configmap", release+"-dashboard", "-o", `jsonpath={.data.karpnet\.json}`)
	if want, err := os.ReadFile(filepath.Join(deployDir(), "grafana", "karpnet.json")); err != nil || strings.TrimSpace(dash) != strings.TrimSpace(string(want)) {
		t.Errorf("grafanaDashboard.enabled=true: the ConfigMap's karpnet.json is not deploy/grafana/karpnet.json (%v)", err)
	}
	if args := kubectl(t, nil, "-n", ns, "get", "deployment", release, "-o", "jsonpath={.spec.template.spec.containers[0].args}"); !strings.Contains(args, "--node-metrics") {
		t.Errorf("serve.nodeMetrics=true: the container's args %s lack --node-metrics", args)
	} else if !strings.Contains(args, "--report-token-file=/var/run/karpnet/report/token") {
		t.Errorf("report.tokenSecret: the container's args %s lack --report-token-file", args)
	}
	if vol := kubectl(t, nil, "-n", ns, "get", "deployment", release, "-o",
		`jsonpath={.spec.template.spec.volumes[?(@.name=="report-token")].secret.secretName}`); vol != "karpnet-report" {
		t.Errorf("report.tokenSecret=karpnet-report: the report-token volume's Secret is %q", vol)
	}
	sa := "system:serviceaccount:" + ns + ":" + release
	for _, c := range []struct {
		verb, resource, want string
	}{{"list", "nodes", "yes"}, {"list", "events", "yes"}, {"get", "daemonsets.apps/aws-node", "yes"},
		{"list", "pods", "yes"}, {"get", "pods/x", "no"}, {"list", "secrets", "no"}, {"create", "nodes", "no"}} {
		out, _ := exec.CommandContext(t.Context(), "kubectl", "--kubeconfig", env.kube.AdminKubeconfig, "auth", "can-i",
			c.verb, c.resource, "--as", sa, "-n", "kube-system").Output()
		if got := strings.TrimSpace(string(out)); got != c.want {
			t.Errorf("kubectl auth can-i %s %s --as %s: %q, want %q", c.verb, c.resource, sa, got, c.want)
		}
	}
}
