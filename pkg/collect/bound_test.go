package collect

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostile"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestCollectBoundsHostileAnswers collects a cluster whose answers no real one gives: an
// Event message of 1.2 MB, a 5 MB cilium-config value, a Node's capacity.pods of
// 99999999999999999999, instance types with 2147483647 ENIs and addresses or -1 ENIs. The
// snapshot the run keeps reads back with the snapshot reader, each number out of range is a gap
// naming its field, and each string cut is named in a note.
func TestCollectBoundsHostileAnswers(t *testing.T) {
	// The first node's capacity.pods wraps around an int64.
	var objects []unstructured.Unstructured
	for _, f := range []string{"nodes.yaml", "aws-node.yaml", "events.yaml", "nodeclaims-v1.yaml", "nodepools-v1.yaml",
		"ec2nodeclasses-v1.yaml", "eniconfigs.yaml"} {
		objects = append(objects, kubeLoadList(t, f)...)
	}
	status, _ := objects[0].Object["status"].(map[string]any)
	status["capacity"] = map[string]any{"pods": "99999999999999999999", "cpu": "2"}
	k := hostile.NewKube(objects...)
	k.Add(map[string]any{"apiVersion": "v1", "kind": "Event",
		"metadata":       map[string]any{"name": "web-0.17e9a1b2c3d4ffff", "namespace": "shop"},
		"involvedObject": map[string]any{"kind": "Pod", "name": "web-0", "namespace": "shop"},
		"reason":         "FailedCreatePodSandBox", "type": "Warning",
		"message": "Failed to create pod sandbox: " + strings.Repeat("x", 1_200_000),
		"source":  map[string]any{"component": "kubelet", "host": "ip-10-0-1-10.us-west-2.compute.internal"},
		"count":   int64(2), "firstTimestamp": "2026-08-20T10:00:00Z", "lastTimestamp": "2026-08-20T10:05:00Z"})
	k.Add(map[string]any{"apiVersion": "apps/v1", "kind": "DaemonSet",
		"metadata": map[string]any{"name": "cilium", "namespace": "kube-system"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"name": "cilium-agent", "image": "quay.io/cilium/cilium:v1.20.2"}}}}}})
	k.Add(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "cilium-config", "namespace": "kube-system"},
		"data":     map[string]any{"ipam": "eni", "agent-not-ready-taint-key": strings.Repeat("t", 5_000_000)}})

	sim := ec2sim.New()
	sim.AddInstances(
		snapshot.Instance{ID: "i-0a1b2c3d4e5f60001", Type: "m5.large", State: "running", Zone: "us-west-2a"},
		snapshot.Instance{ID: "i-0a1b2c3d4e5f60002", Type: "p5.48xlarge", State: "running", Zone: "us-west-2b"},
		snapshot.Instance{ID: "i-0a1b2c3d4e5f60003", Type: "t3.medium", State: "running", Zone: "us-west-2c"})
	sim.AddInstanceTypes(
		snapshot.InstanceType{Name: "m5.large", Hypervisor: "nitro", VCPUs: 2, MaxENIs: 2147483647, IPv4PerENI: 2147483647},
		snapshot.InstanceType{Name: "p5.48xlarge", Hypervisor: "nitro", VCPUs: 192, MaxENIs: -1, IPv4PerENI: 50},
		snapshot.InstanceType{Name: "t3.medium", Hypervisor: "nitro", VCPUs: 2, MaxENIs: 3, IPv4PerENI: 6,
			NetworkCards: []snapshot.NetworkCard{{MaxENIs: 3}}})
	c := kubeHostileCollector(t, k, 0, 0)
	c.EC2, c.Region = ec2sim.NewClient(sim.Start(t), "us-west-2"), "us-west-2"
	s, err := c.Collect(t.Context(), Scope{})
	if err != nil {
		t.Fatal(err)
	}

	var buf bytes.Buffer
	if err := snapshot.Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	size := buf.Len()
	start := time.Now()
	got, err := snapshot.Read(&buf)
	if err != nil {
		t.Fatalf("the run's own snapshot (%d bytes): %v", size, err)
	}
	t.Logf("the run's snapshot: %d bytes, read back in %s", size, time.Since(start).Round(time.Millisecond))

	for _, want := range []string{
		"nodes[ip-10-0-1-10.us-west-2.compute.internal].status.capacity.pods: 99999999999999999999 is out of range (0 to 10000000)",
		"instanceTypes[m5.large].maxENIs: 2147483647 is out of range (0 to 1024)",
		"instanceTypes[m5.large].ipv4PerENI: 2147483647 is out of range (0 to 1024)",
		"instanceTypes[p5.48xlarge].maxENIs: -1 is out of range (0 to 1024)",
	} {
		if !slices.ContainsFunc(got.Gaps, func(g snapshot.Gap) bool { return strings.Contains(g.Reason, want) }) {
			t.Errorf("gaps %+v: want one saying %q", got.Gaps, want)
		}
	}
	var types []string
	for _, it := range got.InstanceTypes {
		types = append(types, it.Name)
	}
	if !slices.Equal(types, []string{"t3.medium"}) {
		t.Errorf("instance types: got %v, want t3.medium only", types)
	}
	i := slices.IndexFunc(got.Nodes, func(n corev1.Node) bool { return n.Name == "ip-10-0-1-10.us-west-2.compute.internal" })
	if _, ok := got.Nodes[i].Status.Capacity[corev1.ResourcePods]; i < 0 || ok {
		t.Errorf("the node with capacity.pods out of range: want it read without capacity.pods")
	}
	note := strings.Join(got.Notes, "\n")
	for _, want := range []string{"(1,200,030 bytes)", "cilium.config.agent-not-ready-taint-key (5,000,000 bytes)"} {
		if !strings.Contains(note, want) {
			t.Errorf("notes %q: want them to name %q", note, want)
		}
	}
	j := slices.IndexFunc(got.SandboxFailures, func(f snapshot.SandboxFailure) bool { return f.Pod == "web-0" })
	if j < 0 {
		t.Fatalf("sandbox failures %+v: want web-0's", got.SandboxFailures)
	}
	if m := got.SandboxFailures[j].Message; !strings.HasPrefix(m, "Failed to create pod sandbox: xxx") || !strings.Contains(m, "[cut by karpnet: ") {
		t.Errorf("web-0's message: got %d bytes, want it cut and marked", len(m))
	}
	if got.Cilium == nil || got.Cilium.Config[snapshot.CiliumKeyIPAM] != "eni" {
		t.Errorf("cilium-config: got %+v, want ipam eni kept", got.Cilium)
	}
}

// TestCollectBoundsLongLists collects 110,000 FailedCreatePodSandBox events, more elements
// than a snapshot's list holds: the run's snapshot reads back, no list holds more than the
// reader takes, and a gap says what was left out.
func TestCollectBoundsLongLists(t *testing.T) {
	if testing.Short() {
		t.Skip("110,000 events through an API server: skipped with -short")
	}
	const n = 110_000
	var objects []unstructured.Unstructured
	for _, f := range []string{"nodes.yaml", "aws-node.yaml"} {
		objects = append(objects, kubeLoadList(t, f)...)
	}
	k := hostile.NewKube(objects...)
	node := objects[0].GetName()
	for i := range n {
		k.Add(map[string]any{"apiVersion": "v1", "kind": "Event",
			"metadata":       map[string]any{"name": fmt.Sprintf("web-%d.%x", i, i), "namespace": "shop"},
			"involvedObject": map[string]any{"kind": "Pod", "name": fmt.Sprintf("web-%d", i), "namespace": "shop"},
			"reason":         "FailedCreatePodSandBox", "type": "Warning",
			"message": "Failed to create pod sandbox: plugin type=\"aws-cni\" failed (add): InsufficientCidrBlocks",
			"source":  map[string]any{"component": "kubelet", "host": node},
			"count":   int64(1), "lastTimestamp": fmt.Sprintf("2026-08-20T10:%02d:%02dZ", i/60%60, i%60)})
	}
	c := kubeHostileCollector(t, k, 0, 0)
	c.EC2, c.Region = ec2sim.NewClient(ec2sim.New().Start(t), "us-west-2"), "us-west-2"
	start := time.Now()
	s, err := c.Collect(t.Context(), Scope{})
	if err != nil {
		t.Fatal(err)
	}
	collected := time.Since(start)
	var buf bytes.Buffer
	if err := snapshot.Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	size := buf.Len()
	start = time.Now()
	got, err := snapshot.Read(&buf)
	if err != nil {
		t.Fatalf("the run's own snapshot (%d bytes): %v", size, err)
	}
	t.Logf("collected in %s; snapshot of %d bytes read back in %s", collected.Round(time.Millisecond), size,
		time.Since(start).Round(time.Millisecond))
	limit := int(snapshot.MaxElements(snapshot.DefaultMaxBytes))
	if len(got.SandboxFailures) > limit {
		t.Errorf("sandboxFailures: %d kept, want at most %d", len(got.SandboxFailures), limit)
	}
	if len(got.SandboxFailures) < n &&
		!slices.ContainsFunc(got.Gaps, func(g snapshot.Gap) bool { return strings.Contains(g.Reason, "sandboxFailures") }) {
		t.Errorf("sandboxFailures: %d of %d kept, and no gap says so: %+v", len(got.SandboxFailures), n, got.Gaps)
	}
}
