package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// finding is what the catalogue test compares of each finding.
type finding struct{ ID, Severity, Node, Resource string }

type jsonReport struct {
	Summary struct {
		Nodes, Clean, WithWarnings, WithCritical, Skipped int
	} `json:"summary"`
	Findings []struct {
		ID, Severity, Node, Resource, Message, Remedy string
		Commands                                      []jsonCommand `json:"commands"`
	} `json:"findings"`
}

// jsonCommand is a command of a finding's remedy.
type jsonCommand struct {
	Argv     []string `json:"argv"`
	ReadOnly bool     `json:"readOnly"`
}

// commandLines returns the argument vectors of cmds, each joined by spaces, one per line.
func commandLines(cmds []jsonCommand) string {
	var lines []string
	for _, c := range cmds {
		lines = append(lines, strings.Join(c.Argv, " "))
	}
	return strings.Join(lines, "\n")
}

func decode(t *testing.T, r result) jsonReport {
	t.Helper()
	var rep jsonReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("decoding -o json: %v\n%s", err, r.stdout)
	}
	return rep
}

func (rep jsonReport) set() []finding {
	var out []finding
	for _, f := range rep.Findings {
		out = append(out, finding{f.ID, f.Severity, f.Node, f.Resource})
	}
	slices.SortFunc(out, func(a, b finding) int {
		return strings.Compare(a.ID+a.Node+a.Resource, b.ID+b.Node+b.Resource)
	})
	return out
}

// TestCatalogue builds a cluster where each core check has one node or object in the state a
// user really ends up in, and expects exactly those findings.
func TestCatalogue(t *testing.T) {
	tiny := catalogueWorld(t)
	const dom = ".us-west-2.compute.internal"

	snap := filepath.Join(t.TempDir(), "catalogue.json")
	r := karpnet(t, runOpts{}, "check", "-o", "json", "--save-snapshot", snap)
	wantCode(t, r, 1)
	wantSandboxFailure(t, snap, "ip-10-0-16-12"+dom, "web-7d9f8")
	want := []finding{
		{"instance-not-found", "critical", "ip-10-0-0-12" + dom, "node/ip-10-0-0-12" + dom},
		{"instance-not-running", "critical", "ip-10-0-0-13" + dom, "node/ip-10-0-0-13" + dom},
		{"instance-type-mismatch", "warning", "ip-10-0-0-15" + dom, "node/ip-10-0-0-15" + dom},
		{"internal-ip-not-instance-ip", "critical", "ip-10-0-0-16" + dom, "node/ip-10-0-0-16" + dom},
		{"internal-ip-not-instance-ip", "critical", "ip-10-0-0-17" + dom, "node/ip-10-0-0-17" + dom},
		{"internal-ip-outside-subnet", "critical", "ip-10-0-0-16" + dom, "node/ip-10-0-0-16" + dom},
		{"max-pods-exceeds-ip-capacity", "critical", "ip-10-0-16-12" + dom, "node/ip-10-0-16-12" + dom},
		{"nodeclass-not-ready", "critical", "", "ec2nodeclass/broken"},
		{"pod-ip-allocation-failures", "critical", "ip-10-0-16-12" + dom, "node/ip-10-0-16-12" + dom},
		{"provider-id-invalid", "warning", "ip-10-0-0-11" + dom, "node/ip-10-0-0-11" + dom},
		{"security-group-drift", "warning", "ip-10-0-16-11" + dom, "ec2nodeclass/default"},
		{"subnet-ip-exhaustion", "critical", "", "subnet/" + tiny.id},
		{"subnet-not-selected", "warning", "ip-10-0-64-10" + dom, "ec2nodeclass/default"},
		{"zone-mismatch", "warning", "ip-10-0-0-14" + dom, "node/ip-10-0-0-14" + dom},
	}
	rep := decode(t, r)
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Errorf("findings (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	for _, f := range rep.Findings {
		if f.Message == "" || f.Remedy == "" {
			t.Errorf("finding %s on %s%s has no message or remedy", f.ID, f.Node, f.Resource)
		}
	}
	wantCIReports(t, rep)
}

// catalogueWorld builds the catalogue's cluster: each core check has one node or object in the
// state a user really ends up in. It returns the /28 subnet that runs out of addresses.
func catalogueWorld(t *testing.T) subnetRef {
	t.Helper()
	w := newWorld(t, harness.CRDsV1)
	ctx := t.Context()
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	b := subnetRef{w.subnet("10.0.16.0/20", "us-west-2b"), "us-west-2b"}
	legacy := w.subnet("10.0.64.0/20", "us-west-2a") // lost its discovery tag: no longer selected
	tiny := subnetRef{w.subnet("10.0.80.0/28", "us-west-2c"), "us-west-2c"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true), w.securityGroup("e2e-nodes", false)}
	debug := w.securityGroup("debug-ssh", false)
	w.awsNode(map[string]string{"WARM_ENI_TARGET": "1"})

	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a, b}, sgs: sgs})
	w.nodePool("general", "v1", "default", []string{"us-west-2a", "us-west-2b"}, 0)
	w.nodeClass(nodeClassSpec{name: "dense", subnets: []subnetRef{a, b}, sgs: sgs, maxPods: 110})
	w.nodePool("dense", "v1", "dense", []string{"us-west-2a", "us-west-2b"}, 0)
	w.nodeClass(nodeClassSpec{name: "batch", subnets: []subnetRef{tiny}, sgs: sgs})
	w.nodePool("batch", "v1", "batch", []string{"us-west-2c"}, 0)
	w.nodeClass(nodeClassSpec{name: "broken", subnets: nil, sgs: sgs,
		notReady: &[3]string{"SubnetsReady", "SubnetsNotFound", "SubnetSelector did not match any Subnets"}})
	w.nodePool("broken", "v1", "broken", []string{"us-west-2a"}, 0)

	launch := func(s subnetRef, ip string, groups ...string) ec2types.Instance {
		return w.instance(instanceSpec{typ: "m5.large", subnet: s.id, sgs: append(slices.Clone(sgs), groups...), ip: ip})
	}
	node := func(name string, in ec2types.Instance, class string, pods int64, edit func(*nodeSpec)) {
		pool := map[string]string{"default": "general", "dense": "dense", "batch": "batch"}[class]
		w.karpenterNode(name, pool, class, "v1", in, pods, edit)
	}
	const dom = ".us-west-2.compute.internal"

	node("ip-10-0-0-10"+dom, launch(a, "10.0.0.10"), "default", 29, nil) // healthy
	node("ip-10-0-16-10"+dom, launch(b, "10.0.16.10"), "default", 29, nil)

	// Registered before the cloud provider set it: no providerID.
	node("ip-10-0-0-11"+dom, launch(a, "10.0.0.11"), "default", 29, func(s *nodeSpec) { s.providerID = "" })
	// The instance is long gone from EC2 but the Node stayed behind.
	node("ip-10-0-0-12"+dom, launch(a, "10.0.0.12"), "default", 29, func(s *nodeSpec) {
		s.providerID = "aws:///us-west-2a/i-0123456789abcdef0"
	})
	// Stopped by hand.
	stopped := launch(a, "10.0.0.13")
	node("ip-10-0-0-13"+dom, stopped, "default", 29, nil)
	if _, err := w.ec2.StopInstances(ctx, &ec2.StopInstancesInput{InstanceIds: []string{aws.ToString(stopped.InstanceId)}}); err != nil {
		t.Fatalf("stopping an instance: %v", err)
	}
	// A template label pinned the wrong zone, another the wrong type.
	node("ip-10-0-0-14"+dom, launch(a, "10.0.0.14"), "default", 29, func(s *nodeSpec) { s.zone = "us-west-2b" })
	node("ip-10-0-0-15"+dom, launch(a, "10.0.0.15"), "default", 29, func(s *nodeSpec) { s.typ = "m5.xlarge" })
	// kubelet --node-ip overrides: an address from another network, and a neighbour's address.
	node("ip-10-0-0-16"+dom, launch(a, "10.0.0.16"), "default", 29, func(s *nodeSpec) { s.internalIP = "192.168.10.16" })
	node("ip-10-0-0-17"+dom, launch(a, "10.0.0.17"), "default", 29, func(s *nodeSpec) { s.internalIP = "10.0.0.200" })
	// Launched into a subnet the class no longer selects.
	node("ip-10-0-64-10"+dom, launch(subnetRef{legacy, "us-west-2a"}, "10.0.64.10"), "default", 29, nil)
	// Someone attached a debugging group by hand.
	node("ip-10-0-16-11"+dom, launch(b, "10.0.16.11", debug), "default", 29, nil)
	// kubelet.maxPods 110 on an m5.large: 29 pod IPs at most.
	node("ip-10-0-16-12"+dom, launch(b, "10.0.16.12"), "dense", 110, nil)
	// A /28 holds one node and not the next.
	// The batch node took its warm IPs (the primary ENI's 9 secondaries): the /28 has 1 address
	// left, fewer than the 10 the next node takes at once.
	node("ip-10-0-80-10"+dom, w.warmIPs(launch(tiny, "10.0.80.10"), 9), "batch", 29, nil)

	// Pods on the over-packed node fail to get an address; karpnet keeps the kubelet's events.
	w.sandboxFailure("ip-10-0-16-12"+dom, "web-7d9f8", 4)
	return tiny
}

// cmpDiff compares findings.
func cmpDiff(want, got []finding) string { return cmp.Diff(want, got) }

// wantSandboxFailure checks that the saved snapshot holds the pod's FailedCreatePodSandBox event
// on node.
func wantSandboxFailure(t *testing.T, file, node, pod string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		SandboxFailures []struct{ Node, Pod, Message string } `json:"sandboxFailures"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("decoding the snapshot: %v", err)
	}
	for _, f := range s.SandboxFailures {
		if f.Node == node && f.Pod == pod && strings.Contains(f.Message, "failed to assign an IP address") {
			return
		}
	}
	t.Errorf("snapshot sandbox failures: got %+v, want pod %s on %s", s.SandboxFailures, pod, node)
}
