package cmd

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// twoClusterKubeconfig writes a kubeconfig of two contexts, dev (current) and prod, and
// returns its path.
func twoClusterKubeconfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters:
- name: dev
  cluster: {server: "https://dev.example:6443"}
- name: prod
  cluster: {server: "https://prod.example:6443"}
users:
- name: dev
  user: {token: dev-token}
- name: prod
  user: {token: prod-token}
contexts:
- name: dev
  context: {cluster: dev, user: dev, namespace: team-a}
- name: prod
  context: {cluster: prod, user: prod}
current-context: dev
`), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// parseKubeFlags parses args as kubectl's flags of a karpnet command.
func parseKubeFlags(t *testing.T, args ...string) *kubeFlags {
	t.Helper()
	f := newKubeFlags()
	fs := pflag.NewFlagSet("karpnet", pflag.ContinueOnError)
	f.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return f
}

// TestKubeFlagsMeanWhatKubectlsMean reads the REST config that kubectl's flags give over a
// kubeconfig, as kubectl would for the same flags.
func TestKubeFlagsMeanWhatKubectlsMean(t *testing.T) {
	kubeconfig := twoClusterKubeconfig(t)
	ca := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(ca, []byte("not read until a connection is made"), 0o600); err != nil {
		t.Fatal(err)
	}

	f := parseKubeFlags(t, "--kubeconfig", kubeconfig)
	cfg, err := f.ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://dev.example:6443" || cfg.BearerToken != "dev-token" || cfg.Timeout != defaultRequestTimeout {
		t.Errorf("current context: host %q token %q timeout %v, want dev's and karpnet's default timeout", cfg.Host, cfg.BearerToken, cfg.Timeout)
	}

	f = parseKubeFlags(t, "--kubeconfig", kubeconfig, "--context", "prod", "--request-timeout", "7s",
		"--as", "jane", "--as-uid", "42", "--as-group", "ops", "--as-group", "sre",
		"--as-user-extra", "reason=incident", "--as-user-extra", "reason=ci", "--as-user-extra", "not-a-pair",
		"--tls-server-name", "api.internal", "--certificate-authority", ca, "--proxy-url", "http://proxy.example:3128",
		"--disable-compression")
	cfg, err = f.ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://prod.example:6443" || cfg.BearerToken != "prod-token" {
		t.Errorf("--context prod: host %q token %q, want prod's", cfg.Host, cfg.BearerToken)
	}
	if cfg.Timeout != 7*time.Second {
		t.Errorf("--request-timeout 7s: timeout %v", cfg.Timeout)
	}
	imp := cfg.Impersonate
	if imp.UserName != "jane" || imp.UID != "42" || !reflect.DeepEqual(imp.Groups, []string{"ops", "sre"}) ||
		!reflect.DeepEqual(imp.Extra, map[string][]string{"reason": {"incident", "ci"}}) {
		t.Errorf("impersonation: %+v, want jane, uid 42, groups ops and sre, extra reason=incident,ci", imp)
	}
	if cfg.TLSClientConfig.ServerName != "api.internal" || cfg.TLSClientConfig.CAFile != ca {
		t.Errorf("TLS: server name %q CA %q", cfg.TLSClientConfig.ServerName, cfg.TLSClientConfig.CAFile)
	}
	if cfg.Proxy == nil || !cfg.DisableCompression {
		t.Errorf("--proxy-url, --disable-compression: proxy set %v, compression disabled %v", cfg.Proxy != nil, cfg.DisableCompression)
	}

	f = parseKubeFlags(t, "--kubeconfig", kubeconfig, "--cluster", "prod", "--user", "prod", "-n", "karpenter")
	cfg, err = f.ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://prod.example:6443" || cfg.BearerToken != "prod-token" {
		t.Errorf("--cluster prod --user prod: host %q token %q, want prod's", cfg.Host, cfg.BearerToken)
	}
	if ns, _, err := f.ToRawKubeConfigLoader().Namespace(); err != nil || ns != "karpenter" {
		t.Errorf("-n karpenter: namespace %q, %v", ns, err)
	}

	f = parseKubeFlags(t, "--kubeconfig", kubeconfig, "-s", "https://other.example", "--token", "flag-token", "--insecure-skip-tls-verify")
	cfg, err = f.ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://other.example" || cfg.BearerToken != "flag-token" || !cfg.Insecure {
		t.Errorf("-s, --token, --insecure-skip-tls-verify: host %q token %q insecure %v", cfg.Host, cfg.BearerToken, cfg.Insecure)
	}

	t.Setenv("KUBECONFIG", kubeconfig)
	cfg, err = parseKubeFlags(t, "--context", "prod").ToRESTConfig()
	if err != nil || cfg.Host != "https://prod.example:6443" {
		t.Errorf("KUBECONFIG: %v, %v, want prod's server", cfg, err)
	}
}

// TestKubeFlagsWithoutAKubeconfigAreKubectls checks a run with no kubeconfig at all: as
// kubectl, the local API server's insecure port (whose refusal the collector reports as an API
// server that cannot be reached, with the flags to check).
func TestKubeFlagsWithoutAKubeconfigAreKubectls(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	cfg, err := parseKubeFlags(t).ToRESTConfig()
	if err != nil || cfg.Host != "http://localhost:8080" {
		t.Errorf("no kubeconfig: %v, %v, want kubectl's http://localhost:8080", cfg, err)
	}
}

// TestKubeFlagsForAContextKeepTheTransport checks the flags each context of a run over several
// gets: the kubeconfig, timeout, impersonation and transport flags as given, the context named.
func TestKubeFlagsForAContextKeepTheTransport(t *testing.T) {
	kubeconfig := twoClusterKubeconfig(t)
	f := parseKubeFlags(t, "--kubeconfig", kubeconfig, "--request-timeout", "3s", "--as", "jane",
		"--as-group", "ops", "--insecure-skip-tls-verify", "--proxy-url", "http://proxy.example:3128")
	for _, name := range []string{"dev", "prod"} {
		cfg, err := f.forContext(name).ToRESTConfig()
		if err != nil {
			t.Fatal(err)
		}
		if want := "https://" + name + ".example:6443"; cfg.Host != want || cfg.BearerToken != name+"-token" {
			t.Errorf("context %s: host %q token %q", name, cfg.Host, cfg.BearerToken)
		}
		if cfg.Timeout != 3*time.Second || cfg.Impersonate.UserName != "jane" || len(cfg.Impersonate.Groups) != 1 ||
			!cfg.Insecure || cfg.Proxy == nil {
			t.Errorf("context %s: timeout %v, impersonation %+v, insecure %v, proxy set %v: want the flags given",
				name, cfg.Timeout, cfg.Impersonate, cfg.Insecure, cfg.Proxy != nil)
		}
	}
}

// TestKubeFlagsTimeOutByDefault: without --request-timeout every request is bounded by
// defaultRequestTimeout; --request-timeout overrides it, 0 lifting the bound as in kubectl.
func TestKubeFlagsTimeOutByDefault(t *testing.T) {
	kubeconfig := twoClusterKubeconfig(t)
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{nil, defaultRequestTimeout},
		{[]string{"--request-timeout", "5s"}, 5 * time.Second},
		{[]string{"--request-timeout", "0"}, 0},
	} {
		cfg, err := parseKubeFlags(t, append([]string{"--kubeconfig", kubeconfig}, tc.args...)...).ToRESTConfig()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Timeout != tc.want {
			t.Errorf("%v: timeout %v, want %v", tc.args, cfg.Timeout, tc.want)
		}
	}
}
