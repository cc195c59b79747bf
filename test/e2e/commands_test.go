package e2e

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/cmdverify"
	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// TestRemedyCommandsRunInTheRealTools runs every command of karpnet's remedies through the
// tool that would run it, changing nothing: the commands of both demo clusters, of
// pkg/diagnose's table cases (written by `go test ./pkg/diagnose` with KARPNET_COMMAND_CORPUS
// set) and of the broken worlds of this suite (the catalogue, Cilium, private-subnet, egress,
// security group, placement, VPC CNI, consistency, address and network policy clusters,
// checked by the real binary). kubectl commands run against this suite's API server
// holding the objects they are about: for the demo and unit commands, built from the
// finding's snapshot; for the worlds, the objects the world made. The AWS CLI parses each aws
// command and calls a local endpoint that refuses it (internal/testkit/cmdverify says exactly what
// passes). A command a tool rejects is a bug in the check that wrote it.
func TestRemedyCommandsRunInTheRealTools(t *testing.T) {
	start := time.Now()
	ctx := t.Context()
	py, err := cmdverify.FindAWSCLI(ctx, true)
	if err != nil {
		t.Fatalf("verifying the remedies' aws commands needs the AWS CLI v1: %v", err)
	}
	aws, err := cmdverify.StartAWS(ctx, py, t.TempDir())
	if err != nil {
		t.Fatalf("starting the AWS CLI: %v", err)
	}
	defer aws.Close()
	kubectlBin, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("verifying the remedies' kubectl commands needs kubectl: %v", err)
	}
	dyn, err := dynamic.NewForConfig(env.kube.Admin)
	if err != nil {
		t.Fatal(err)
	}
	v := &commandVerifier{t: t, aws: aws, cluster: cmdverify.Cluster{Dynamic: dyn},
		kubectl: &cmdverify.Kubectl{Binary: kubectlBin, Kubeconfig: env.kube.AdminKubeconfig, Dir: t.TempDir(),
			Env: append([]string{"PATH=" + env.binDir + string(os.PathListSeparator) + os.Getenv("PATH"), "NO_COLOR=1"},
				env.moto.Env(region)...)},
		done: map[string]bool{}, sources: map[string]int{}, tools: map[string]int{}}
	t.Logf("%s; kubectl at %s", aws.Version, kubectlBin)

	// The suite's broken worlds, each checked by the real binary while its objects exist.
	for _, w := range []struct {
		name  string
		build func(*testing.T)
	}{
		{"catalogue", func(t *testing.T) { catalogueWorld(t) }},
		{"cilium", ciliumWorld},
		{"private-subnet", func(t *testing.T) { privateSubnetWorld(t) }},
		{"egress", func(t *testing.T) { egressWorld(t) }},
		{"security-groups", func(t *testing.T) { securityGroupsWorld(t) }},
		{"placement", func(t *testing.T) { placementWorld(t) }},
		{"vpc-cni", vpcCNIWorld},
		{"consistency", consistencyWorld},
		{"addresses", func(t *testing.T) { newAddressCluster(t) }},
		{"network-policy-no-configmap", func(t *testing.T) { policyWorld(t, true).networkPolicy("default-deny") }},
		{"network-policy-controller-off", func(t *testing.T) {
			w := policyWorld(t, true)
			w.networkPolicy("default-deny")
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "amazon-vpc-cni", Namespace: "kube-system"},
				Data: map[string]string{"enable-network-policy-controller": "false"}}
			if _, err := w.kube.CoreV1().ConfigMaps("kube-system").Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
				t.Fatalf("creating amazon-vpc-cni: %v", err)
			}
		}},
	} {
		built := time.Now()
		w.build(t)
		rep := decode(t, karpnet(t, runOpts{}, "check", "-o", "json"))
		checked := time.Now()
		n := v.total
		for _, f := range rep.Findings {
			for _, c := range f.Commands {
				v.verify(cmdverify.Command{Source: "e2e", Origin: w.name + " " + f.ID, Argv: c.Argv, ReadOnly: c.ReadOnly}, true)
			}
		}
		if v.total == n {
			t.Errorf("the %s world gave no command: %v", w.name, rep.set())
		}
		t.Logf("%s world: %d commands; built and checked in %s, verified in %s", w.name, v.total-n,
			checked.Sub(built).Round(100*time.Millisecond), time.Since(checked).Round(100*time.Millisecond))
	}

	// The demo clusters and the unit tables, each command against its objects built from its
	// snapshot, in an API server with the Karpenter and Auto Mode CRDs and nothing else.
	if err := env.kube.Reset(ctx); err != nil {
		t.Fatalf("resetting the API server: %v", err)
	}
	if err := env.kube.InstallCRDs(ctx, harness.CRDsV1AutoMode); err != nil {
		t.Fatalf("installing the CRDs: %v", err)
	}
	collected := time.Now()
	corpus := append(demoCommands(t), unitCommands(t)...)
	verifying := time.Now()
	// The AWS CLI needs no API server: its commands run beside kubectl's.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for _, c := range corpus {
			if c.Program() == "aws" {
				v.verify(c, false)
			}
		}
	}()
	for _, c := range corpus {
		if c.Program() != "aws" {
			v.verify(c, false)
		}
	}
	wg.Wait()
	t.Logf("demo and unit corpora: %d commands; collected in %s, verified in %s", len(corpus),
		verifying.Sub(collected).Round(100*time.Millisecond), time.Since(verifying).Round(100*time.Millisecond))

	var tools []string
	for _, k := range slices.Sorted(maps.Keys(v.tools)) {
		tools = append(tools, fmt.Sprintf("%s %d", k, v.tools[k]))
	}
	t.Logf("verified %d commands (%d distinct runs) in %s: %s (patch %d also --local); demo %d, unit %d, e2e %d",
		v.total, len(v.done), time.Since(start).Round(time.Second), strings.Join(tools, ", "), v.local,
		v.sources["demo"], v.sources["unit"], v.sources["e2e"])
	for _, s := range []string{"demo", "unit", "e2e"} {
		if v.sources[s] == 0 {
			t.Errorf("the %s corpus gave no command: the collection is broken", s)
		}
	}
}

// commandVerifier runs commands through the real tools once each and counts them.
type commandVerifier struct {
	t       *testing.T
	aws     *cmdverify.AWS
	kubectl *cmdverify.Kubectl
	cluster cmdverify.Cluster
	// mu guards the counts: the aws commands run beside the kubectl ones.
	mu sync.Mutex
	// done holds the commands (with their objects) already run; sources counts every command
	// by corpus, tools the distinct ones by program and service or subcommand.
	done           map[string]bool
	sources, tools map[string]int
	total, local   int
}

// verify runs c through its tool, unless it already ran against the same objects. live says
// the objects c is about are in the API server already; otherwise c.Objects are put there.
func (v *commandVerifier) verify(c cmdverify.Command, live bool) {
	t := v.t
	t.Helper()
	key := c.Key()
	if live {
		// The same command in another world runs against that world's objects.
		key = strings.Fields(c.Origin)[0] + " " + key
	}
	tool := c.Program()
	if tool == "aws" && len(c.Argv) > 1 {
		tool += " " + c.Argv[1]
	}
	v.mu.Lock()
	v.total++
	v.sources[c.Source]++
	seen := v.done[key]
	v.done[key] = true
	if !seen {
		v.tools[tool]++
		if c.Program() == "kubectl" && cmdverify.Verb(c.Argv) == "patch" {
			v.local++
		}
	}
	v.mu.Unlock()
	if seen {
		return
	}
	fail := func(err error) {
		t.Errorf("%s: %s (%s):\n%v", c.Source, c.Origin, diagnose.ShellJoin(c.Argv), err)
	}
	switch c.Program() {
	case "aws":
		if len(c.Argv) < 3 {
			fail(fmt.Errorf("no service and operation"))
			return
		}
		if got := cmdverify.AWSReadOnly(c.Argv[2]); got != c.ReadOnly {
			fail(fmt.Errorf("the finding says the command changes nothing: %t; %s does: %t", c.ReadOnly, c.Argv[2], got))
		}
		if _, err := v.aws.Verify(c.Argv); err != nil {
			fail(err)
		}
	case "kubectl":
		object := func(r cmdverify.Ref) (map[string]any, error) { return cmdverify.ObjectOf(c.Objects, r) }
		if live {
			object = func(r cmdverify.Ref) (map[string]any, error) { return v.cluster.Get(t.Context(), r) }
		} else {
			// The API server holds exactly what the snapshot had of the objects the command is
			// about: an object the snapshot lacks is deleted, as is one the command creates.
			for _, refs := range [][]cmdverify.Ref{cmdverify.Targets(c.Argv), cmdverify.Creates(c.Argv)} {
				if err := v.cluster.Clear(t.Context(), refs); err != nil {
					fail(err)
					return
				}
			}
			if err := v.cluster.Put(t.Context(), c.Objects); err != nil {
				fail(err)
				return
			}
		}
		checks, err := v.kubectl.Verify(t.Context(), c, object)
		switch {
		case err != nil && c.ObjectsError != "":
			fail(fmt.Errorf("%s\n%w", c.ObjectsError, err))
		case err != nil:
			fail(err)
		case c.ObjectsError != "":
			fail(fmt.Errorf("kubectl accepted it, but %s", c.ObjectsError))
		}
		for _, ch := range checks {
			if c.ReadOnly {
				t.Logf("%s: kubectl %s: %s", c.Origin, strings.Join(ch.Args, " "), cmp.Or(ch.Accepted, "exit 0"))
			}
		}
	default:
		fail(fmt.Errorf("no verifier for program %q", c.Program()))
	}
}

// demoCommands returns the commands of both demo clusters' findings, with the objects each
// is about built from the demo snapshot.
func demoCommands(t *testing.T) []cmdverify.Command {
	t.Helper()
	var out []cmdverify.Command
	for _, ctx := range demo.Contexts() {
		s, err := demo.SnapshotOf(ctx)
		if err != nil {
			t.Fatalf("the %s demo snapshot: %v", ctx, err)
		}
		file := filepath.Join(t.TempDir(), ctx+".json")
		var b bytes.Buffer
		if err := snapshot.Write(&b, s); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, f := range diagnose.Analyze(s, diagnose.Options{}).Findings {
			for _, c := range f.Commands {
				cmd := cmdverify.Command{Source: "demo", Origin: ctx + " " + f.ID, Argv: c.Argv, ReadOnly: c.ReadOnly}
				if len(c.Argv) > 1 && c.Argv[1] == "karpnet" {
					cmd.Snapshot = file
				}
				if cmd.Objects, err = cmdverify.Manifests(s, c.Argv); err != nil {
					cmd.ObjectsError = err.Error()
				}
				out = append(out, cmd)
			}
		}
	}
	return out
}

// unitCommands runs pkg/diagnose's tests with KARPNET_COMMAND_CORPUS set and returns the
// commands its table cases wrote.
func unitCommands(t *testing.T) []cmdverify.Command {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	corpus := filepath.Join(t.TempDir(), "unit-commands.jsonl")
	cmd := exec.CommandContext(t.Context(), "go", "test", "-count=1", "./pkg/diagnose")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "KARPNET_COMMAND_CORPUS="+corpus)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test ./pkg/diagnose with KARPNET_COMMAND_CORPUS: %v\n%s", err, out)
	}
	f, err := os.Open(corpus)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := cmdverify.ReadCorpus(f)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
