package e2e

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// TestV1beta1Cluster is a cluster still on Karpenter's v1beta1 API, where kubelet settings live
// in the NodePool: karpnet reads it and names the NodePool field in its remedy.
func TestV1beta1Cluster(t *testing.T) {
	w := newWorld(t, harness.CRDsV1beta1)
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true)}
	w.awsNode(map[string]string{"WARM_ENI_TARGET": "1"})
	w.nodeClass(nodeClassSpec{name: "default", version: "v1beta1", subnets: []subnetRef{a}, sgs: sgs})
	w.nodePool("default", "v1beta1", "default", []string{"us-west-2a"}, 110)
	healthy := w.instance(instanceSpec{typ: "m5.large", subnet: a.id, sgs: sgs, ip: "10.0.0.10"})
	w.karpenterNode("ip-10-0-0-10.us-west-2.compute.internal", "default", "default", "v1beta1", healthy, 29, nil)
	dense := w.instance(instanceSpec{typ: "m5.large", subnet: a.id, sgs: sgs, ip: "10.0.0.11"})
	w.karpenterNode("ip-10-0-0-11.us-west-2.compute.internal", "default", "default", "v1beta1", dense, 110, nil)

	r := karpnet(t, runOpts{}, "check", "-o", "json")
	wantCode(t, r, 1)
	rep := decode(t, r)
	want := []finding{{"max-pods-exceeds-ip-capacity", "critical", "ip-10-0-0-11.us-west-2.compute.internal",
		"node/ip-10-0-0-11.us-west-2.compute.internal"}}
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Fatalf("findings (-want +got):\n%s", diff)
	}
	if remedy := rep.Findings[0].Remedy; !strings.Contains(remedy, "spec.template.spec.kubelet.maxPods of NodePool default") {
		t.Errorf("remedy: got %q, want the v1beta1 NodePool kubelet field", remedy)
	}
}

// TestClusterWithoutKarpenter has only managed node group nodes and no Karpenter CRDs: every
// check that needs no NodeClass still runs, and the missing CRDs are reported, not fatal.
func TestClusterWithoutKarpenter(t *testing.T) {
	w := newWorld(t, harness.CRDsNone)
	a := w.subnet("10.0.0.0/20", "us-west-2a")
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true)}
	w.awsNode(map[string]string{"WARM_ENI_TARGET": "1"})
	for i, pods := range []int64{29, 110} {
		in := w.instance(instanceSpec{typ: "m5.large", subnet: a, sgs: sgs, ip: fmt.Sprintf("10.0.0.%d", 10+i)})
		w.node(nodeSpec{
			name: fmt.Sprintf("ip-10-0-0-%d.us-west-2.compute.internal", 10+i), providerID: providerID(in),
			zone: "us-west-2a", typ: "m5.large", internalIP: fmt.Sprintf("10.0.0.%d", 10+i), pods: pods,
			labels: map[string]string{"eks.amazonaws.com/nodegroup": "ng-1"},
		})
	}
	r := karpnet(t, runOpts{}, "check", "-o", "json")
	wantCode(t, r, 1) // the node group's 110 pods on an m5.large is critical
	rep := decode(t, r)
	want := []finding{
		{"data-unavailable", "warning", "", "ec2nodeclasses.karpenter.k8s.aws"},
		{"data-unavailable", "warning", "", "nodeclaims.karpenter.sh"},
		{"data-unavailable", "warning", "", "nodepools.karpenter.sh"},
		{"max-pods-exceeds-ip-capacity", "critical", "ip-10-0-0-11.us-west-2.compute.internal", "node/ip-10-0-0-11.us-west-2.compute.internal"},
	}
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Errorf("findings (-want +got):\n%s\n%s", diff, r.stdout)
	}
}

// TestViewerForbiddenOnKarpenter runs as a user who may read nodes but not Karpenter objects:
// the report is partial, says what it could not read and which RBAC rule fixes it, and by
// default exits 0 (data-unavailable is a warning).
func TestViewerForbiddenOnKarpenter(t *testing.T) {
	newHealthyCluster(t)
	viewer := runOpts{kubeconfig: env.kube.ViewerKubeconfig}
	r := karpnet(t, viewer, "check", "-o", "json")
	wantCode(t, r, 0)
	rep := decode(t, r)
	if rep.Summary.Nodes != 3 {
		t.Errorf("summary: got %d nodes, want the 3 the viewer can list", rep.Summary.Nodes)
	}
	var forbidden []string
	for _, f := range rep.Findings {
		if f.ID != "data-unavailable" {
			t.Errorf("unexpected finding %s on %s%s: %s", f.ID, f.Node, f.Resource, f.Message)
			continue
		}
		if strings.Contains(f.Message+f.Remedy, "forbidden") && strings.Contains(f.Remedy, "grant") {
			forbidden = append(forbidden, f.Resource)
		}
	}
	if len(forbidden) < 3 {
		t.Errorf("got forbidden findings on %v, want nodeclaims, nodepools and ec2nodeclasses with a grant remedy\n%s", forbidden, r.stdout)
	}
	wantCode(t, karpnet(t, viewer, "check", "--fail-on", "warning"), 1)
}

// TestEC2Unauthorized: the caller's IAM policy allows no EC2 Describe call. The report comes
// from Kubernetes alone, with one finding per refused call naming the IAM action.
func TestEC2Unauthorized(t *testing.T) {
	newHealthyCluster(t)
	for _, action := range []string{"DescribeInstances", "DescribeSubnets", "DescribeSecurityGroups", "DescribeInstanceTypes"} {
		if err := env.moto.Fail(t.Context(), action, "UnauthorizedOperation", 403, -1); err != nil {
			t.Fatalf("making moto refuse %s: %v", action, err)
		}
	}
	r := karpnet(t, runOpts{}, "check", "-o", "json")
	wantCode(t, r, 0)
	rep := decode(t, r)
	if rep.Summary.Nodes != 3 {
		t.Errorf("summary: got %d nodes, want 3 from Kubernetes", rep.Summary.Nodes)
	}
	seen := map[string]bool{}
	for _, f := range rep.Findings {
		if f.ID != "data-unavailable" {
			t.Errorf("unexpected finding %s on %s%s: %s", f.ID, f.Node, f.Resource, f.Message)
			continue
		}
		seen[f.Resource] = true
		action := strings.TrimPrefix(f.Resource, "ec2:")
		if !strings.Contains(f.Remedy, "ec2:"+action) {
			t.Errorf("remedy for %s: got %q, want the IAM action ec2:%s", f.Resource, f.Remedy, action)
		}
	}
	if !seen["ec2:DescribeInstances"] {
		t.Errorf("no data-unavailable finding for ec2:DescribeInstances:\n%s", r.stdout)
	}
}

// TestEC2ThrottlingIsRetried: EC2 throttles a burst of Describe calls; the SDK's retryer waits
// it out and the report is complete.
func TestEC2ThrottlingIsRetried(t *testing.T) {
	newHealthyCluster(t)
	if err := env.moto.Fail(t.Context(), "DescribeInstances", "RequestLimitExceeded", 503, 2); err != nil {
		t.Fatalf("making moto throttle: %v", err)
	}
	r := karpnet(t, runOpts{}, "check", "--fail-on", "info")
	wantCode(t, r, 0)
	if !strings.Contains(r.stdout, "3 nodes: 3 ok") {
		t.Errorf("stdout: got\n%s\nwant a complete, clean report", r.stdout)
	}
	counts, err := env.moto.Requests(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if counts["DescribeInstances"] < 3 {
		t.Errorf("DescribeInstances requests: got %d, want at least 3 (two throttled, then answered)", counts["DescribeInstances"])
	}
}

// TestEC2UnreachableIsBounded points EC2 at an endpoint that accepts connections and never
// answers: with --request-timeout the run ends in bounded time with a clear finding.
func TestEC2UnreachableIsBounded(t *testing.T) {
	newHealthyCluster(t)
	hole := blackhole(t)
	r := karpnet(t, runOpts{env: []string{"AWS_ENDPOINT_URL_EC2=http://" + hole}},
		"check", "--request-timeout", "2s", "-o", "json")
	wantCode(t, r, 0)
	if r.duration > 20*time.Second {
		t.Errorf("took %s with --request-timeout 2s, want it bounded", r.duration)
	}
	rep := decode(t, r)
	found := false
	for _, f := range rep.Findings {
		if f.ID == "data-unavailable" && strings.Contains(f.Message, "--request-timeout") {
			found = true
		}
	}
	if !found {
		t.Errorf("no data-unavailable finding naming --request-timeout:\n%s", r.stdout)
	}
	t.Logf("EC2 unreachable: finished in %s", r.duration.Round(time.Millisecond))
}

// blackhole listens on a loopback port, accepts connections and never answers.
func blackhole(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}
