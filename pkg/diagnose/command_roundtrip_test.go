package diagnose

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// hostileInput is one way cluster-controlled text reaches a command: an edit of the healthy
// fixture that puts h where a check reads it, and the checks whose commands must then carry it.
type hostileInput struct {
	name   string
	edit   func(s *snapshot.Snapshot, h string)
	checks []string
}

var hostileInputs = []hostileInput{
	{
		name: "cilium-config's agent-not-ready-taint-key, NodePool without startup taints",
		edit: func(s *snapshot.Snapshot, h string) {
			withCilium(map[string]string{"agent-not-ready-taint-key": h})(s)
		},
		checks: []string{"nodepool-startup-taint-missing"},
	},
	{
		name: "cilium-config's agent-not-ready-taint-key, NodePool with startup taints",
		edit: func(s *snapshot.Snapshot, h string) {
			withCilium(map[string]string{"agent-not-ready-taint-key": h})(s)
			s.NodePools[0].StartupTaints = []corev1.Taint{{Key: "example.com/other", Effect: corev1.TaintEffectNoSchedule}}
		},
		checks: []string{"nodepool-startup-taint-missing"},
	},
	{
		name: "aws-node's CLUSTER_NAME, the policy agent off",
		edit: func(s *snapshot.Snapshot, h string) {
			s.AWSNode.Env[snapshot.EnvClusterName] = h
			s.AWSNode.NodeAgent = &snapshot.NodeAgent{NetworkPolicy: false}
			s.NetworkPolicies = []snapshot.PolicyCount{{Kind: "NetworkPolicy", Count: 1, Names: []string{"shop/deny-all"}}}
		},
		checks: []string{"network-policy-not-enforced"},
	},
	{
		name: "aws-node's CLUSTER_NAME, the policy controller off",
		edit: func(s *snapshot.Snapshot, h string) {
			s.AWSNode.Env[snapshot.EnvClusterName] = h
			s.AWSNode.NodeAgent = &snapshot.NodeAgent{NetworkPolicy: true}
			s.VPCCNIConfigState = "found"
			s.VPCCNIConfig = map[string]string{"enable-network-policy-controller": "false"}
			s.NetworkPolicies = []snapshot.PolicyCount{{Kind: "NetworkPolicy", Count: 1, Names: []string{"shop/deny-all"}}}
		},
		checks: []string{"network-policy-not-enforced"},
	},
	{
		name: "a NodeClaim's name, the node to replace",
		edit: func(s *snapshot.Snapshot, h string) {
			ciliumENI(1, nil, false)(s)
			s.CiliumNodes[0].SubnetIDs = []string{"subnet-0other"}
			s.NodeClaims[0].Name = h
		},
		checks: []string{"cilium-eni-selection-mismatch"},
	},
	{
		name: "a Node's name and its stopped instance's ID",
		edit: func(s *snapshot.Snapshot, h string) {
			s.Instances[0].State = "stopped"
			s.Nodes[0].Name = h
			for i := range s.NodeClaims {
				s.NodeClaims[i].NodeName = h
			}
		},
		checks: []string{"instance-not-running"},
	},
}

// TestCommandsRoundTripHostileValues feeds hostile values into every input that flows into a
// command, and has a POSIX shell parse every command of every finding back: each must give
// exactly the finding's argument vector, and nothing else may run.
func TestCommandsRoundTripHostileValues(t *testing.T) {
	for _, in := range hostileInputs {
		for _, h := range hostileValues {
			if h == "" {
				continue // an empty name or key is no input a check acts on
			}
			t.Run(in.name+"/"+h, func(t *testing.T) {
				s := healthy()
				in.edit(s, h)
				seen := assertCommandsRoundTrip(t, Analyze(s, Options{}))
				for _, id := range in.checks {
					if seen[id] == 0 {
						t.Errorf("%s gave no command for input %q", id, h)
					}
				}
			})
		}
	}
}

// TestCommandsRoundTripDemo has a POSIX shell parse every command of both demo clusters back.
func TestCommandsRoundTripDemo(t *testing.T) {
	for _, ctx := range demo.Contexts() {
		s, err := demo.SnapshotOf(ctx)
		if err != nil {
			t.Fatal(err)
		}
		seen := assertCommandsRoundTrip(t, Analyze(s, Options{}))
		t.Logf("%s: commands by check: %v", ctx, seen)
	}
}

// TestDemoCiliumHostileTaintKeyRunsNothing puts a taint key that closes the JSON and the
// quotes of a pasted kubectl patch into the Cilium demo's cilium-config: the remedy's command,
// pasted into a shell, runs nothing, and its patch still names the key as it is.
func TestDemoCiliumHostileTaintKeyRunsNothing(t *testing.T) {
	s, err := demo.SnapshotOf(demo.CiliumContext)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pwned := filepath.Join(dir, "PWNED")
	key := `x"}}]' ; touch ` + pwned + ` ; echo '`
	if s.Cilium.Config == nil {
		s.Cilium.Config = map[string]string{}
	}
	s.Cilium.Config["agent-not-ready-taint-key"] = key
	commands := 0
	for _, f := range Analyze(s, Options{}).Findings {
		if f.ID != "nodepool-startup-taint-missing" {
			continue
		}
		for _, c := range f.Commands {
			commands++
			if got := shellParse(t, dir, c.String()); !slices.Equal(got, c.Argv) {
				t.Errorf("the shell parsed %s back as %q, want %q", c, got, c.Argv)
			}
			var patch []struct {
				Value json.RawMessage `json:"value"`
			}
			if err := json.Unmarshal([]byte(c.Argv[len(c.Argv)-1]), &patch); err != nil || len(patch) != 1 {
				t.Fatalf("the patch %q is not one JSON operation: %v", c.Argv[len(c.Argv)-1], err)
			}
			var taint map[string]string
			var taints []map[string]string
			if json.Unmarshal(patch[0].Value, &taint) != nil {
				if err := json.Unmarshal(patch[0].Value, &taints); err != nil || len(taints) != 1 {
					t.Fatalf("the patch's value %s is neither a taint nor a list of one: %v", patch[0].Value, err)
				}
				taint = taints[0]
			}
			if taint["key"] != key {
				t.Errorf("the patch's taint key is %q, want %q", taint["key"], key)
			}
		}
	}
	if commands == 0 {
		t.Fatal("nodepool-startup-taint-missing gave no command on the Cilium demo")
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Errorf("pasting the remedy ran the taint key's touch: %s exists", pwned)
	}
	assertNothingRan(t, dir)
}

// assertCommandsRoundTrip checks every command of r's findings through a POSIX shell and
// returns how many commands each check gave.
func assertCommandsRoundTrip(t *testing.T, r Report) map[string]int {
	t.Helper()
	dir := t.TempDir()
	seen := map[string]int{}
	for _, f := range r.Findings {
		for _, c := range f.Commands {
			seen[f.ID]++
			if len(c.Argv) == 0 {
				t.Errorf("%s on %s has a command without arguments", f.ID, f.Subject())
				continue
			}
			if got := shellParse(t, dir, c.String()); !slices.Equal(got, c.Argv) {
				t.Errorf("%s on %s: the shell parsed %s back as %q, want %q", f.ID, f.Subject(), c, got, c.Argv)
			}
			if c.ReadOnly == (c.Changes != "") {
				t.Errorf("%s on %s: %s is read-only %v and changes %q", f.ID, f.Subject(), c, c.ReadOnly, c.Changes)
			}
		}
	}
	assertNothingRan(t, dir)
	return seen
}
