package cmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
)

// demoFile writes the demo snapshot to a file of t and returns its path: --snapshot of it is the
// demo's data read as a cluster's, with the hints of a cluster.
func demoFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "demo.json")
	if err := os.WriteFile(path, demo.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHintsNameTheDemo runs each error that suggests a command twice over the same data: as a
// cluster's (--snapshot of the demo), where the hint names kubectl, aws or kubectl karpnet
// as before, and under demo, where it names the demo's own command, since there is no cluster
// to run kubectl get against.
func TestHintsNameTheDemo(t *testing.T) {
	const (
		claimNode = "ip-10-0-15-126.us-west-2.compute.internal" // NodeClaim general-kdbmg's Node
		demoList  = "list the demo's %s with kubectl karpnet demo check -o json"
	)
	list := func(things string) string { return strings.Replace(demoList, "%s", things, 1) }
	tests := []struct {
		name       string
		args       []string
		live, demo string
	}{
		{
			name: "describe node without a name", args: []string{"describe", "node"},
			live: "name at least one node, or pass -l SELECTOR: list nodes with kubectl get nodes",
			demo: "name at least one node, or pass -l SELECTOR: " + list("nodes"),
		},
		{
			name: "describe node of a selector that matches none", args: []string{"describe", "node", "-l", "karpenter.sh/nodepool=nope"},
			live: `no node matches "karpenter.sh/nodepool=nope": list nodes with kubectl get nodes --show-labels`,
			demo: `no node matches "karpenter.sh/nodepool=nope": ` + list("nodes"),
		},
		{
			name: "describe node unknown", args: []string{"describe", "node", "ip-10-0-64-21.us-west-2.compute.internal"},
			live: `node "ip-10-0-64-21.us-west-2.compute.internal" not found: list nodes with kubectl get nodes`,
			demo: `node "ip-10-0-64-21.us-west-2.compute.internal" not found: ` + list("nodes"),
		},
		{
			name: "check unknown node", args: []string{"check", "nope"},
			live: `node "nope" not found: list nodes with kubectl get nodes`,
			demo: `node "nope" not found: ` + list("nodes"),
		},
		{
			name: "check unknown NodePool", args: []string{"check", "--nodepool", "nope"},
			live: `NodePool "nope" not found: list NodePools with kubectl get nodepools`,
			demo: `NodePool "nope" not found: ` + list("NodePools"),
		},
		{
			name: "check unknown class", args: []string{"check", "--nodeclass", "nope"},
			live: `EC2NodeClass or NodeClass "nope" not found: list them with kubectl get ec2nodeclasses.karpenter.k8s.aws,nodeclasses.eks.amazonaws.com`,
			demo: `EC2NodeClass or NodeClass "nope" not found: ` + list("EC2NodeClasses and NodeClasses"),
		},
		{
			name: "describe nodeclaim without a name", args: []string{"describe", "nodeclaim"},
			live: "name a NodeClaim: list them with kubectl get nodeclaims",
			demo: "name a NodeClaim: " + list("NodeClaims"),
		},
		{
			name: "describe nodeclaim of two names", args: []string{"describe", "nodeclaim", "a", "b"},
			live: "name one NodeClaim, not 2: describe them one at a time, or see them all with kubectl karpnet check",
			demo: "name one NodeClaim, not 2: describe them one at a time, or see them all with kubectl karpnet demo check",
		},
		{
			name: "describe nodeclaim unknown", args: []string{"describe", "nodeclaim", "nope"},
			live: `nodeclaim "nope" not found: list NodeClaims with kubectl get nodeclaims`,
			demo: `nodeclaim "nope" not found: ` + list("NodeClaims"),
		},
		{
			name: "describe nodeclaim that has a Node", args: []string{"describe", "nodeclaim", "general-kdbmg"},
			live: `nodeclaim "general-kdbmg" has Node ` + claimNode + ", whose sheet shows its networking: run kubectl karpnet describe node " + claimNode,
			demo: `nodeclaim "general-kdbmg" has Node ` + claimNode + ", whose sheet shows its networking: run kubectl karpnet demo describe node " + claimNode,
		},
		{
			name: "describe subnet without an ID", args: []string{"describe", "subnet"},
			live: "name at least one subnet: list them with aws ec2 describe-subnets, or see the ones karpnet reads with kubectl karpnet check -o json",
			demo: "name at least one subnet: " + list("subnets"),
		},
		{
			name: "describe subnet unknown", args: []string{"describe", "subnet", "subnet-nope"},
			live: `subnet "subnet-nope" not found: list them with aws ec2 describe-subnets, or see the ones karpnet reads with kubectl karpnet check -o json`,
			demo: `subnet "subnet-nope" not found: ` + list("subnets"),
		},
		{
			name: "describe nodeclass without a name", args: []string{"describe", "nodeclass"},
			live: "name at least one NodeClass: list them with kubectl get ec2nodeclasses (kubectl get nodeclasses on EKS Auto Mode)",
			demo: "name at least one NodeClass: " + list("EC2NodeClasses and NodeClasses"),
		},
		{
			name: "describe nodeclass unknown", args: []string{"describe", "nodeclass", "nope"},
			live: `nodeclass "nope" not found: list them with kubectl get ec2nodeclasses (kubectl get nodeclasses on EKS Auto Mode)`,
			demo: `nodeclass "nope" not found: ` + list("EC2NodeClasses and NodeClasses"),
		},
		{
			name: "describe nodepool without a name", args: []string{"describe", "nodepool"},
			live: "name at least one NodePool: list them with kubectl get nodepools",
			demo: "name at least one NodePool: " + list("NodePools"),
		},
		{
			name: "describe nodepool unknown", args: []string{"describe", "nodepool", "nope"},
			live: `nodepool "nope" not found: list them with kubectl get nodepools`,
			demo: `nodepool "nope" not found: ` + list("NodePools"),
		},
		{
			name: "describe placementgroup without a name", args: []string{"describe", "placementgroup"},
			live: "name at least one placement group: list them with aws ec2 describe-placement-groups",
			demo: "name at least one placement group: " + list("placement groups"),
		},
		{
			name: "describe placementgroup unknown", args: []string{"describe", "placementgroup", "nope"},
			live: `placement group "nope" not found: list them with aws ec2 describe-placement-groups`,
			demo: `placement group "nope" not found: ` + list("placement groups"),
		},
		{
			name: "terminal UI without a terminal", args: []string{"tui"},
			live: "the terminal UI needs a terminal: for text output run kubectl karpnet check",
			demo: "the terminal UI needs a terminal: for text output run kubectl karpnet demo check",
		},
		{
			name: "terminal UI by default without a terminal", args: []string{},
			live: "the terminal UI needs a terminal: for text output run kubectl karpnet check",
			demo: "the terminal UI needs a terminal: for text output run kubectl karpnet demo check",
		},
	}
	file := demoFile(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			live := run(t, append(append([]string{}, tt.args...), "--snapshot", file)...)
			wantCode(t, live, ExitUsage)
			if want := "error: " + tt.live + "\n"; live.stderr != want {
				t.Errorf("not under demo:\n got %q\nwant %q", live.stderr, want)
			}
			under := run(t, append([]string{"demo"}, tt.args...)...)
			wantCode(t, under, ExitUsage)
			if want := "error: " + tt.demo + "\n"; under.stderr != want {
				t.Errorf("under demo:\n got %q\nwant %q", under.stderr, want)
			}
			wantOnlyDemoCommands(t, under.stderr)
		})
	}
}

// wantOnlyDemoCommands fails the test when a hint printed under demo names a command that
// needs a cluster or AWS: kubectl get, aws, or kubectl karpnet other than its demo.
func wantOnlyDemoCommands(t *testing.T, stderr string) {
	t.Helper()
	for _, live := range []string{"kubectl get", "aws ec2", "kubectl describe"} {
		if strings.Contains(stderr, live) {
			t.Errorf("under demo the hint names %q, which needs a cluster: %s", live, stderr)
		}
	}
	if n, demo := strings.Count(stderr, "kubectl karpnet"), strings.Count(stderr, "kubectl karpnet demo"); n != demo {
		t.Errorf("under demo the hint names kubectl karpnet without demo: %s", stderr)
	}
}

// failingInput is a terminal whose input fails, which ends the terminal UI with an error.
type failingInput struct{}

func (failingInput) Read([]byte) (int, error) { return 0, errors.New("input/output error") }

// TestTUIErrorNamesTheDemo checks the command the terminal UI's own errors suggest for plain
// output: kubectl karpnet check, and under demo kubectl karpnet demo check.
func TestTUIErrorNamesTheDemo(t *testing.T) {
	file := demoFile(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{args: []string{"tui", "--snapshot", file}, want: "use `kubectl karpnet check` for plain output"},
		{args: []string{"demo", "tui"}, want: "use `kubectl karpnet demo check` for plain output"},
		{args: []string{"demo"}, want: "use `kubectl karpnet demo check` for plain output"},
	} {
		t.Run(strings.Join(tt.args[:min(len(tt.args), 2)], " "), func(t *testing.T) {
			o, _, _ := newTestOptions()
			o.In = failingInput{}
			o.isTerminal = func(any) bool { return true }
			r := runWith(t, o, tt.args...)
			if r.code == ExitOK {
				t.Fatalf("exit code 0, want the terminal UI's error:\n%s", r.stderr)
			}
			line := wantOneErrorLine(t, r, "input/output error", tt.want)
			if strings.HasPrefix(tt.args[0], "demo") {
				wantOnlyDemoCommands(t, line)
			}
		})
	}
}
