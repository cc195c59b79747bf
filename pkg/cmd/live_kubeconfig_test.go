package cmd

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLiveCollectorFromKubeconfig runs the real collector built from kubectl's flags, against
// a kubeconfig that is missing and one whose API server is gone. Both end with exit code 3
// and one line, without reaching AWS.
func TestLiveCollectorFromKubeconfig(t *testing.T) {
	dir := t.TempDir()
	// An empty AWS configuration, so the test never depends on the machine's.
	awsConfig := filepath.Join(dir, "aws-config")
	if err := os.WriteFile(awsConfig, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_CONFIG_FILE", awsConfig)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", awsConfig)

	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters:
- name: gone
  cluster:
    server: `+gone.URL+`
contexts:
- name: gone
  context:
    cluster: gone
    user: nobody
current-context: gone
users:
- name: nobody
  user:
    token: not-a-real-token
`), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no-kubeconfig")
	// A context name twice: client-go's error lists every context.
	dup := filepath.Join(dir, "dup-kubeconfig")
	if err := os.WriteFile(dup, []byte(`apiVersion: v1
kind: Config
clusters:
- {name: gone, cluster: {server: `+gone.URL+`}}
users:
- {name: nobody, user: {token: secret-token}}
contexts:
- {name: prod, context: {cluster: gone, user: nobody}}
- {name: prod, context: {cluster: gone, user: nobody}}
- {name: other, context: {cluster: gone, user: nobody}}
current-context: prod
`), 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		args []string
		want []string
	}{
		{name: "missing kubeconfig", args: []string{"check", "--kubeconfig", missing}, want: []string{"loading kubeconfig", missing, "--kubeconfig"}},
		{name: "duplicate context name", args: []string{"check", "--kubeconfig", dup},
			want: []string{"loading kubeconfig", `the context name "prod" is used twice: each context needs a name of its own`, "check --kubeconfig"}},
		{
			name: "API server gone",
			args: []string{"check", "--kubeconfig", kubeconfig, "--region", "us-west-2", "--profile", "no-such-profile"},
			want: []string{"cannot reach the API server at " + gone.URL, "--context/--kubeconfig"},
		},
		{
			name: "API server gone, describe",
			args: []string{"describe", "node", "ip-10-0-1-10.us-west-2.compute.internal", "--kubeconfig", kubeconfig, "--profile", "no-such-profile"},
			want: []string{"cannot reach the API server at " + gone.URL},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, _, _ := newTestOptions()
			o.newCollector = liveCollector
			r := runWith(t, o, tt.args...)
			wantCode(t, r, ExitCollect)
			line := wantOneErrorLine(t, r, tt.want...)
			if strings.Contains(line, "[{") || strings.Contains(line, "other") {
				t.Errorf("error: got %q, want it without the kubeconfig's list", line)
			}
			if r.stdout != "" {
				t.Errorf("stdout: got %q, want nothing", r.stdout)
			}
		})
	}
}

// TestSingleContextReadsEC2AsTheCredentialPlugin checks that a kubeconfig written by `aws eks
// update-kubeconfig --profile P --region R` makes a single-context run read EC2 with profile P
// in Region R, as a run over several contexts does, unless --profile and --region say otherwise.
func TestSingleContextReadsEC2AsTheCredentialPlugin(t *testing.T) {
	dir := t.TempDir()
	awsConfig := filepath.Join(dir, "aws-config")
	if err := os.WriteFile(awsConfig, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_CONFIG_FILE", awsConfig)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", awsConfig)
	t.Setenv("AWS_PROFILE", "")
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster:
    server: https://127.0.0.1:1
contexts:
- name: prod
  context:
    cluster: prod
    user: prod
current-context: prod
users:
- name: prod
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
      args: [--region, eu-west-1, eks, get-token, --cluster-name, prod, --output, json, --profile, plugin-profile]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args    []string
		profile string
	}{
		{nil, "plugin-profile"},
		{[]string{"--profile", "flag-profile"}, "flag-profile"},
	} {
		o, _, _ := newTestOptions()
		o.configFlags.KubeConfig = kubeconfig
		if len(tc.args) == 2 {
			o.profile = tc.args[1]
		}
		c, err := liveCollector(t.Context(), o)
		if err != nil {
			t.Fatal(err)
		}
		if c.EC2Gap == nil || !strings.Contains(c.EC2Gap.Reason, tc.profile) {
			t.Errorf("%v: EC2 gap %+v, want the AWS configuration loaded with profile %s", tc.args, c.EC2Gap, tc.profile)
		}
		if c.ClusterName != "" || c.KubeconfigClusterName != "prod" {
			t.Errorf("%v: cluster name %q / kubeconfig %q, want the plugin's prod", tc.args, c.ClusterName, c.KubeconfigClusterName)
		}
	}
}
