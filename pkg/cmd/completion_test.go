package cmd

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// completion is what one `__complete` run offered: the values (descriptions dropped), the
// descriptions by value, and the directive.
type completion struct {
	values       []string
	descriptions map[string]string
	directive    cobra.ShellCompDirective
}

// complete runs `__complete args...` over o and parses cobra's protocol: one completion a line,
// "value<TAB>description", then ":<directive>".
func complete(t *testing.T, o *commonOptions, args ...string) completion {
	t.Helper()
	r := runWith(t, o, append([]string{cobra.ShellCompRequestCmd}, args...)...)
	wantCode(t, r, ExitOK)
	return parseCompletion(t, r.stdout, r.stderr)
}

// parseCompletion parses the output of `__complete`; stderr must hold only cobra's closing
// debug line.
func parseCompletion(t *testing.T, stdout, stderr string) completion {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, ":") {
		t.Fatalf("stdout: got last line %q, want :<directive>\n%s", last, stdout)
	}
	d, err := strconv.Atoi(last[1:])
	if err != nil {
		t.Fatalf("directive %q: %v", last, err)
	}
	if stderr != "" && !strings.HasPrefix(stderr, "Completion ended with directive:") {
		t.Errorf("stderr: got %q, want only cobra's directive line", stderr)
	}
	c := completion{directive: cobra.ShellCompDirective(d), descriptions: map[string]string{}}
	for _, l := range lines[:len(lines)-1] {
		value, desc, _ := strings.Cut(l, "\t")
		c.values = append(c.values, value)
		if desc != "" {
			c.descriptions[value] = desc
		}
	}
	return c
}

const (
	noFile   = cobra.ShellCompDirectiveNoFileComp
	idList   = cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	compFail = cobra.ShellCompDirectiveError
)

// demoCiliumPools returns the NodePools of the demo-cilium cluster, sorted.
func demoCiliumPools(t *testing.T) []string {
	t.Helper()
	s, err := demo.SnapshotOf(demo.CiliumContext)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range s.NodePools {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if len(names) == 0 {
		t.Fatal("demo-cilium has no NodePools")
	}
	return names
}

func TestCompleteOffline(t *testing.T) {
	var allIDs []string
	for _, id := range diagnose.CheckIDs() {
		if id != "subnet-ip-exhaustion" {
			allIDs = append(allIDs, "subnet-ip-exhaustion,"+id)
		}
	}
	tests := []struct {
		name      string
		args      []string
		want      []string
		directive cobra.ShellCompDirective
	}{
		{name: "demo describe node by prefix", args: []string{"demo", "describe", "node", "ip-10-0-5"}, want: []string{
			"ip-10-0-5-219.us-west-2.compute.internal", "ip-10-0-50-100.us-west-2.compute.internal",
			"ip-10-0-50-20.us-west-2.compute.internal", "ip-10-0-50-4.us-west-2.compute.internal",
			"ip-10-0-50-93.us-west-2.compute.internal", "ip-10-0-59-16.us-west-2.compute.internal",
		}, directive: noFile},
		{name: "demo describe node leaves out names given", args: []string{"demo", "describe", "node",
			"ip-10-0-50-4.us-west-2.compute.internal", "ip-10-0-5-219.us-west-2.compute.internal", "ip-10-0-50-"}, want: []string{
			"ip-10-0-50-100.us-west-2.compute.internal", "ip-10-0-50-20.us-west-2.compute.internal",
			"ip-10-0-50-93.us-west-2.compute.internal",
		}, directive: noFile},
		{name: "demo describe node with -l offers no name", args: []string{"demo", "describe", "node", "-l", "a=b", "ip-"}, directive: noFile},
		{name: "demo check nodes of a NodePool", args: []string{"demo", "check", "--nodepool", "general", "ip-10-0-5"}, want: []string{
			"ip-10-0-5-219.us-west-2.compute.internal", "ip-10-0-59-16.us-west-2.compute.internal",
		}, directive: noFile},
		{name: "demo check nodes of a label selector", args: []string{"demo", "check", "-l", "karpenter.sh/nodepool=training", ""}, want: []string{
			"ip-10-0-64-138.us-west-2.compute.internal", "ip-10-0-64-178.us-west-2.compute.internal",
		}, directive: noFile},
		{name: "demo check --nodepool by prefix", args: []string{"demo", "check", "--nodepool", "g"}, want: []string{"general"}, directive: noFile},
		{name: "demo check --nodepool", args: []string{"demo", "check", "--nodepool", ""}, want: []string{"batch", "general", "staging", "training", "web"}, directive: noFile},
		{name: "demo check --nodepool= form", args: []string{"demo", "check", "--nodepool=t"}, want: []string{"training"}, directive: noFile},
		{name: "demo check --nodeclass", args: []string{"demo", "check", "--nodeclass", "e"}, want: []string{"efa"}, directive: noFile},
		{name: "--only after a comma", args: []string{"check", "--only", "subnet-ip-exhaustion,subnet"}, want: []string{
			"subnet-ip-exhaustion,subnet-not-selected", "subnet-ip-exhaustion,subnet-prefix-fragmented", "subnet-ip-exhaustion,subnet-no-egress-route",
		}, directive: idList},
		{name: "--only after a comma, empty", args: []string{"demo", "check", "--only", "subnet-ip-exhaustion,"}, want: allIDs, directive: idList},
		{name: "--skip leaves out listed IDs", args: []string{"check", "--skip", "subnet-not-selected,subnet-ip-exhaustion,subnet-no-egress-route,subnet-prefix-fragmented,subnet"}, directive: idList},
		{name: "--only leaves out IDs of an earlier --only", args: []string{"check", "--only", "subnet-not-selected", "--only", "subnet"},
			want: []string{"subnet-ip-exhaustion", "subnet-prefix-fragmented", "subnet-no-egress-route"}, directive: idList},
		{name: "check -o", args: []string{"check", "-o", ""}, want: []string{"table", "wide", "json", "yaml", "junit", "sarif"}, directive: noFile},
		{name: "demo check --output", args: []string{"demo", "check", "--output", "y"}, want: []string{"yaml"}, directive: noFile},
		{name: "demo describe nodeclaim by prefix", args: []string{"demo", "describe", "nodeclaim", "web-"}, want: []string{"web-mf8z7", "web-vbq7q"}, directive: noFile},
		{name: "demo describe nodeclaim offers one name", args: []string{"demo", "describe", "nodeclaim", "web-mf8z7", "web-"}, directive: noFile},
		{name: "describe nodeclaim -o", args: []string{"describe", "nodeclaim", "-o", ""}, want: []string{"json", "yaml"}, directive: noFile},
		{name: "describe node -o", args: []string{"describe", "node", "-o", ""}, want: []string{"json", "yaml"}, directive: noFile},
		{name: "demo describe node -o", args: []string{"demo", "describe", "node", "-o", ""}, want: []string{"json", "yaml"}, directive: noFile},
		{name: "max-pods -o", args: []string{"max-pods", "-o", ""}, want: []string{"table", "json"}, directive: noFile},
		{name: "version -o", args: []string{"version", "-o", ""}, want: []string{"json", "yaml"}, directive: noFile},
		{name: "--fail-on", args: []string{"check", "--fail-on", ""}, want: []string{"critical", "warning", "info", "never"}, directive: noFile},
		{name: "--fail-on by prefix", args: []string{"demo", "check", "--fail-on", "w"}, want: []string{"warning"}, directive: noFile},
		{name: "--color", args: []string{"demo", "check", "--color", ""}, want: []string{"auto", "always", "never"}, directive: noFile},
		{name: "--color on the root", args: []string{"--color", "n"}, want: []string{"never"}, directive: noFile},
		{name: "--snapshot files", args: []string{"check", "--snapshot", ""}, want: []string{"json", "gz"}, directive: cobra.ShellCompDirectiveFilterFileExt},
		{name: "max-pods types", args: []string{"max-pods", ""}, directive: noFile},
		{name: "completion shells", args: []string{"completion", ""}, want: []string{"bash", "zsh", "fish", "powershell"}, directive: noFile},
		{name: "subcommands", args: []string{"demo", "d"}, want: []string{"describe"}, directive: noFile},
		{name: "demo --context offers the demo's contexts", args: []string{"demo", "--context", ""}, want: []string{"demo", "demo-cilium"}, directive: noFile},
		{name: "demo check --context by prefix", args: []string{"demo", "check", "--context", "demo-"}, want: []string{"demo-cilium"}, directive: noFile},
		{name: "demo --context demo-cilium describe node completes that cluster's nodes", args: []string{"demo", "--context", "demo-cilium", "describe", "node", "ip-10-1-2"},
			want: []string{"ip-10-1-23-30.us-west-2.compute.internal", "ip-10-1-27-152.us-west-2.compute.internal"}, directive: noFile},
		{name: "demo --context demo-cilium check --nodepool", args: []string{"demo", "--context=demo-cilium", "check", "--nodepool", ""}, want: demoCiliumPools(t), directive: noFile},
		{name: "demo with a context it does not have offers nothing", args: []string{"demo", "--context", "prod", "describe", "node", ""}, directive: cobra.ShellCompDirectiveError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, _, _ := newTestOptions()
			got := complete(t, o, tt.args...)
			if diff := cmp.Diff(tt.want, got.values); diff != "" {
				t.Errorf("completions (-want +got):\n%s", diff)
			}
			if got.directive != tt.directive {
				t.Errorf("directive: got %d, want %d", got.directive, tt.directive)
			}
		})
	}
}

func TestCompleteCheckIDDescriptions(t *testing.T) {
	o, _, _ := newTestOptions()
	got := complete(t, o, "check", "--only", "")
	if diff := cmp.Diff(diagnose.CheckIDs(), got.values); diff != "" {
		t.Errorf("completions (-want +got):\n%s", diff)
	}
	for _, c := range diagnose.Checks() {
		if got.descriptions[c.ID] != c.Title {
			t.Errorf("description of %s: got %q, want %q", c.ID, got.descriptions[c.ID], c.Title)
		}
	}
}

func TestCompleteSnapshotFile(t *testing.T) {
	s := snapshot.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	for _, name := range []string{"saved-b", "saved-a", "other"} {
		s.Nodes = append(s.Nodes, corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{snapshot.LabelNodePool: "from-" + name}}})
	}
	s.NodePools = []snapshot.NodePool{{Name: "from-file"}}
	s.NodeClaims = []snapshot.NodeClaim{{Name: "claim-in-file"}}
	s.NodeClasses = []snapshot.EC2NodeClass{{Name: "class-in-file"}}
	file := filepath.Join(t.TempDir(), "cluster.json.gz")
	if err := writeSnapshotFile(file, s); err != nil {
		t.Fatalf("writing the snapshot: %v", err)
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{name: "check nodes", args: []string{"check", "--snapshot", file, "saved"}, want: []string{"saved-a", "saved-b"}},
		{name: "describe nodes", args: []string{"--snapshot", file, "describe", "node", ""}, want: []string{"other", "saved-a", "saved-b"}},
		{name: "nodes of a NodePool", args: []string{"check", "--snapshot", file, "--nodepool", "from-other", ""}, want: []string{"other"}},
		{name: "NodePools", args: []string{"check", "--snapshot", file, "--nodepool", ""}, want: []string{"from-file"}},
		{name: "EC2NodeClasses", args: []string{"check", "--snapshot", file, "--nodeclass", ""}, want: []string{"class-in-file"}},
		{name: "NodeClaims", args: []string{"--snapshot", file, "describe", "nodeclaim", ""}, want: []string{"claim-in-file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, _, _ := newTestOptions() // its collector fails: names must come from the file
			got := complete(t, o, tt.args...)
			if diff := cmp.Diff(tt.want, got.values); diff != "" {
				t.Errorf("completions (-want +got):\n%s", diff)
			}
			if got.directive != noFile {
				t.Errorf("directive: got %d, want %d", got.directive, noFile)
			}
		})
	}
}

func TestCompleteKubeconfig(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "config")
	const config = `apiVersion: v1
kind: Config
clusters:
- {name: prod-cluster, cluster: {server: "https://127.0.0.1:1"}}
- {name: staging-cluster, cluster: {server: "https://127.0.0.1:2"}}
users:
- {name: admin, user: {token: x}}
contexts:
- {name: staging, context: {cluster: staging-cluster, user: admin}}
- {name: prod, context: {cluster: prod-cluster, user: admin}}
- {name: prod-readonly, context: {cluster: prod-cluster, user: admin}}
current-context: prod
`
	if err := os.WriteFile(kubeconfig, []byte(config), 0o600); err != nil {
		t.Fatalf("writing the kubeconfig: %v", err)
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{name: "contexts", args: []string{"--kubeconfig", kubeconfig, "--context", ""}, want: []string{"prod", "prod-readonly", "staging"}},
		{name: "contexts by prefix", args: []string{"check", "--kubeconfig", kubeconfig, "--context", "p"}, want: []string{"prod", "prod-readonly"}},
		{name: "clusters", args: []string{"check", "--kubeconfig", kubeconfig, "--cluster", "s"}, want: []string{"staging-cluster"}},
		{name: "users", args: []string{"describe", "node", "--kubeconfig", kubeconfig, "--user", ""}, want: []string{"admin"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, _, _ := newTestOptions()
			got := complete(t, o, tt.args...)
			if diff := cmp.Diff(tt.want, got.values); diff != "" {
				t.Errorf("completions (-want +got):\n%s", diff)
			}
			if got.directive != noFile {
				t.Errorf("directive: got %d, want %d", got.directive, noFile)
			}
		})
	}
}

// noEC2 returns the URL of an EC2 endpoint that fails the test when called.
func noEC2(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("completion called EC2: %s %s", r.Method, r.URL)
		http.Error(w, "no EC2 in completion", http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestCompleteLive(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{name: "check nodes", args: []string{"check", ""}, want: []string{liveNodeA, liveNodeB}},
		{name: "check nodes by prefix", args: []string{"check", "ip-10-0-4"}, want: []string{liveNodeB}},
		{name: "check nodes of a label selector", args: []string{"check", "-l", "karpenter.sh/capacity-type=spot", ""}, want: []string{liveNodeB}},
		{name: "describe nodes", args: []string{"describe", "node", liveNodeB, "ip-"}, want: []string{liveNodeA}},
		{name: "describe nodeclaims", args: []string{"describe", "nodeclaim", "general-"}, want: []string{"general-q9m4t", "general-x7k2p"}},
		{name: "NodePools", args: []string{"check", "--nodepool", ""}, want: []string{"general"}},
		{name: "EC2NodeClasses", args: []string{"check", "--nodeclass", "d"}, want: []string{"default"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newLiveCluster(t)
			o, _, _ := newTestOptions()
			o.newCollector = clientsCollector(c.kube, c.dyn, noEC2(t))
			got := complete(t, o, tt.args...)
			if diff := cmp.Diff(tt.want, got.values); diff != "" {
				t.Errorf("completions (-want +got):\n%s", diff)
			}
			if got.directive != noFile {
				t.Errorf("directive: got %d, want %d", got.directive, noFile)
			}
		})
	}
}

func TestCompleteFailsQuietly(t *testing.T) {
	forbidden := func(k8stesting.Action) (bool, k8sruntime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "", errors.New("no list"))
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, o *commonOptions)
		args  []string
	}{
		{name: "no cluster", args: []string{"check", ""}},
		{name: "no cluster, NodePools", args: []string{"check", "--nodepool", ""}},
		{name: "missing snapshot file", args: []string{"check", "--snapshot", "/nonexistent/cluster.json", ""}},
		{name: "node list forbidden", args: []string{"describe", "node", ""}, setup: func(t *testing.T, o *commonOptions) {
			c := newLiveCluster(t)
			c.kube.PrependReactor("list", "nodes", forbidden)
			o.newCollector = clientsCollector(c.kube, c.dyn, noEC2(t))
		}},
		{name: "bad selector", args: []string{"demo", "check", "-l", "a in (b", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, _, _ := newTestOptions()
			if tt.setup != nil {
				tt.setup(t, o)
			}
			got := complete(t, o, tt.args...)
			if len(got.values) != 0 || got.directive != compFail {
				t.Errorf("got %q with directive %d, want nothing with directive %d", got.values, got.directive, compFail)
			}
		})
	}
}

func TestCompletionCommand(t *testing.T) {
	tests := []struct {
		shell string
		want  []string
	}{
		{shell: "bash", want: []string{"complete -o default -F __start_kubectl-karpnet kubectl-karpnet"}},
		{shell: "zsh", want: []string{"#compdef kubectl-karpnet", "compdef _kubectl-karpnet kubectl-karpnet"}},
		{shell: "fish", want: []string{"complete -c kubectl-karpnet"}},
		{shell: "powershell", want: []string{"Register-ArgumentCompleter -CommandName 'kubectl-karpnet'"}},
	}
	for _, tt := range tests {
		t.Run(tt.shell, func(t *testing.T) {
			r := run(t, "completion", tt.shell)
			wantCode(t, r, ExitOK)
			for _, w := range append(tt.want, cobra.ShellCompRequestCmd) {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("completion %s: got no %q in the script", tt.shell, w)
				}
			}
			for _, w := range tt.want {
				if bad := strings.ReplaceAll(w, "kubectl-karpnet", "karpnet"); strings.Contains(r.stdout, bad) {
					t.Errorf("completion %s: got %q, want the script to complete kubectl-karpnet, not karpnet", tt.shell, bad)
				}
			}
		})
	}
	t.Run("help", func(t *testing.T) {
		r := run(t, "completion", "--help")
		wantCode(t, r, ExitOK)
		for _, w := range []string{"kubectl karpnet completion bash|zsh|fish|powershell", "source <(kubectl karpnet completion bash)",
			"kubectl_complete-karpnet", "kubectl 1.26"} {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("help: got no %q in:\n%s", w, r.stdout)
			}
		}
	})
	t.Run("listed in the root help", func(t *testing.T) {
		r := run(t, "--help")
		wantCode(t, r, ExitOK)
		if !strings.Contains(r.stdout, "completion") {
			t.Errorf("root help: got no completion command in:\n%s", r.stdout)
		}
	})
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		t.Run(fmt.Sprintf("usage error %q", args), func(t *testing.T) {
			r := run(t, args...)
			wantCode(t, r, ExitUsage)
			wantOneErrorLine(t, r, "kubectl karpnet completion --help")
		})
	}
}
