package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// healthyCluster is a general NodePool over three zones, one m5.large node in each, all as
// Karpenter launched them.
type healthyCluster struct {
	*world
	subnets []subnetRef
	sgs     []string
	nodes   []string
}

func newHealthyCluster(t *testing.T) *healthyCluster {
	t.Helper()
	w := newWorld(t, harness.CRDsV1)
	c := &healthyCluster{world: w}
	for i, zone := range []string{"us-west-2a", "us-west-2b", "us-west-2c"} {
		c.subnets = append(c.subnets, subnetRef{id: w.subnet(fmt.Sprintf("10.0.%d.0/20", 16*i), zone), zone: zone})
	}
	c.sgs = []string{w.securityGroup("eks-cluster-sg-e2e", true), w.securityGroup("e2e-nodes", false)}
	w.nodeClass(nodeClassSpec{name: "default", subnets: c.subnets, sgs: c.sgs})
	w.nodePool("general", "v1", "default", []string{"us-west-2a", "us-west-2b", "us-west-2c"}, 0)
	w.awsNode(map[string]string{"AWS_VPC_K8S_CNI_EXTERNALSNAT": "false", "WARM_ENI_TARGET": "1"})
	for i, sn := range c.subnets {
		in := w.instance(instanceSpec{typ: "m5.large", subnet: sn.id, sgs: c.sgs, ip: fmt.Sprintf("10.0.%d.10", 16*i)})
		name := fmt.Sprintf("ip-10-0-%d-10.us-west-2.compute.internal", 16*i)
		w.karpenterNode(name, "general", "default", "v1", in, 29, nil)
		c.nodes = append(c.nodes, name)
	}
	return c
}

func TestHealthyClusterIsClean(t *testing.T) {
	newHealthyCluster(t)
	r := karpnet(t, runOpts{}, "check", "--fail-on", "info")
	wantCode(t, r, 0)
	if !strings.Contains(r.stdout, "3 nodes: 3 ok, 0 with warnings, 0 with criticals") {
		t.Errorf("stdout: got\n%s\nwant 3 clean nodes", r.stdout)
	}

	j := karpnet(t, runOpts{}, "check", "-o", "json")
	wantCode(t, j, 0)
	var rep struct {
		Region   string `json:"region"`
		Findings []any  `json:"findings"`
		Nodes    []struct {
			Identity struct{ InstanceID, NodePool, NodeClass, NodeClaim string }
			Subnet   struct{ Selected bool }
			Status   string
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &rep); err != nil {
		t.Fatalf("decoding -o json: %v\n%s", err, j.stdout)
	}
	if rep.Region != region || len(rep.Findings) != 0 || len(rep.Nodes) != 3 {
		t.Errorf("got region %q, %d findings, %d nodes; want %s, 0, 3", rep.Region, len(rep.Findings), len(rep.Nodes), region)
	}
	for _, n := range rep.Nodes {
		if n.Identity.InstanceID == "" || n.Identity.NodeClaim == "" || !n.Subnet.Selected || n.Status != "ok" {
			t.Errorf("node not joined with its instance, NodeClaim and selected subnet: %+v", n)
		}
	}
}

// TestSnapshotReplaysTheSameReport saves what a live run read and replays it offline, with no
// cluster and no EC2 reachable.
func TestSnapshotReplaysTheSameReport(t *testing.T) {
	newHealthyCluster(t)
	file := filepath.Join(t.TempDir(), "cluster.json.gz")
	live := karpnet(t, runOpts{}, "check", "-o", "wide", "--save-snapshot", file)
	wantCode(t, live, 0)
	offline := karpnet(t, runOpts{
		kubeconfig: filepath.Join(t.TempDir(), "none"),
		env:        []string{"AWS_ENDPOINT_URL_EC2=http://127.0.0.1:1"},
	}, "check", "-o", "wide", "--snapshot", file)
	wantCode(t, offline, 0)
	if offline.stdout != live.stdout {
		t.Errorf("replayed report differs:\n--- live\n%s\n--- replay\n%s", live.stdout, offline.stdout)
	}
	if fi, err := os.Stat(file); err != nil || fi.Size() == 0 {
		t.Errorf("snapshot file: %v", err)
	}
}
